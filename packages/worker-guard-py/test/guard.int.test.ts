/**
 * The Python guard on a real a2a-sdk worker called by the real a2a-sdk client (tests/live_guard.py), recording
 * through the real ingest service to Kafka: what the executor and the client saw, and what the ledger got.
 */
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { startLedger, type TestLedger } from "@a2a-ledger/worker-guard/testing";
import type { Observation } from "@a2a-ledger/schemas";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const root = fileURLToPath(new URL("..", import.meta.url));
let ledger: TestLedger;
let cases: Record<
  string,
  {
    taskId: string;
    state: string;
    caught: string[];
    artifactModes: string[][];
    refused?: number;
    recordErrors?: string[];
  }
>;
let observations: Observation[];

function runLive(ingestUrl: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(`${root}.venv/bin/python`, ["-m", "tests.live_guard"], {
      cwd: root,
      env: { ...process.env, INGEST_URL: ingestUrl },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    let err = "";
    child.stdout.on("data", (d: Buffer) => (out += d.toString()));
    child.stderr.on("data", (d: Buffer) => (err += d.toString()));
    const timer = setTimeout(() => child.kill("SIGKILL"), 90_000);
    child.on("exit", (code) => {
      clearTimeout(timer);
      if (code === 0) resolve(out);
      else reject(new Error(`live_guard exited ${code}: ${err.slice(-2000)}`));
    });
  });
}

beforeAll(async () => {
  ledger = await startLedger("refusals-py");
  const out = await runLive(ledger.url);
  cases = Object.fromEntries(
    out
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as { case: string })
      .map((c) => [c.case, c]),
  ) as unknown as typeof cases;
  observations = await ledger.observations(5);
}, 180_000);

afterAll(async () => {
  await ledger?.close();
});

describe("the guard on a Python a2a-sdk worker", () => {
  it("raises a typed error to the executor for a state the card does not advertise, and the client never sees it", () => {
    expect(cases["state"]).toMatchObject({
      state: "TASK_STATE_COMPLETED",
      caught: ["GUARD_STATE_NOT_ADVERTISED"],
      artifactModes: [["text/plain"]],
    });
    expect(observations[0]).toMatchObject({
      type: "EmissionRefused",
      correlationId: "py-state",
      observer: "guard:W-guarded-py",
      workerId: "W-guarded-py",
      serverTaskId: cases["state"]!.taskId,
      skillId: "answer",
      emission: "STATUS",
      kind: "STATE_NOT_ADVERTISED",
      state: "TASK_STATE_INPUT_REQUIRED",
      rawState: "TASK_STATE_INPUT_REQUIRED",
      allowed: ["TASK_STATE_SUBMITTED", "TASK_STATE_WORKING", "TASK_STATE_COMPLETED"],
    });
  });

  it("refuses an artifact outside the skill's output modes and lets the allowed one through", () => {
    expect(cases["mode"]).toMatchObject({
      state: "TASK_STATE_COMPLETED",
      caught: ["GUARD_OUTPUT_MODE_NOT_ADVERTISED"],
      artifactModes: [["text/plain"]],
    });
    expect(observations[1]).toMatchObject({
      correlationId: "py-mode",
      emission: "ARTIFACT",
      kind: "OUTPUT_MODE_NOT_ADVERTISED",
      state: null,
      parts: [{ kind: "TEXT", mediaType: "application/json", sizeBytes: 19 }],
      allowed: ["text/plain"],
    });
  });

  it("judges by the card in force at emission, not the card at dispatch", () => {
    expect(cases["change"]).toMatchObject({
      caught: ["GUARD_OUTPUT_MODE_NOT_ADVERTISED"],
      artifactModes: [["application/json"]],
    });
    expect(observations[2]).toMatchObject({
      correlationId: "py-change",
      parts: [{ mediaType: "text/plain" }],
      allowed: ["application/json"],
    });
  });

  it("falls back to the task id as the correlation id, and every refusal reached the ledger", () => {
    expect(observations[3]).toMatchObject({
      correlationId: cases["no-correlation"]!.taskId,
      skillId: null,
      state: "TASK_STATE_AUTH_REQUIRED",
    });
    expect(cases["summary"]).toMatchObject({ refused: 4, recordErrors: [] });
    expect(observations).toHaveLength(4);
  });
});
