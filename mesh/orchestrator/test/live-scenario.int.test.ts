/**
 * The end-to-end test: `a2a-ledger up --demo` — the real stack, every service as its own process (ingest,
 * reconciler, projector, dispatcher), W1 and W2 on @a2a-js/sdk, W3 on the Python a2a-sdk, a recording proxy
 * per worker, and this package's orchestrator playing the DESIGN §1 story through them — on a private
 * topic set. Then the ledger (its decisions and observations on Kafka) and the projector's API are checked,
 * and Ctrl-C must stop every process, the Python agent included.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { randomUUID } from "node:crypto";
import { mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { endpointsFromEnv, suffixedTopicNames } from "@a2a-ledger/kafka";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isType, LedgerFeed } from "@a2a-ledger/ledger-feed";
import type { StoryReport } from "../src/story.ts";

const bin = fileURLToPath(new URL("../../../cli/bin/a2a-ledger.js", import.meta.url));
const suffix = `e2e-${randomUUID().slice(0, 8)}`;
const topics = suffixedTopicNames(suffix);
const endpoints = endpointsFromEnv();

let up: ChildProcess;
let output = "";
let exited: Promise<number | null>;
let report: StoryReport;
let feed: LedgerFeed;
let processes: { name: string; pid: number }[] = [];
let startedAt = 0;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The last lines of every process's log, so a failed run in CI says what each process was doing. */
function logTails(logDir: string, lines = 12): string {
  let files: string[];
  try {
    files = readdirSync(logDir)
      .filter((f) => f.endsWith(".log"))
      .sort();
  } catch {
    return `(no logs in ${logDir})`;
  }
  return files
    .map(
      (f) =>
        `--- ${f}\n${readFileSync(join(logDir, f), "utf8")
          .trimEnd()
          .split("\n")
          .slice(-lines)
          .map((l) => l.slice(0, 400))
          .join("\n")}`,
    )
    .join("\n");
}

beforeAll(async () => {
  startedAt = Date.now();
  const dataDir = mkdtempSync(join(tmpdir(), "e2e-"));
  up = spawn(process.execPath, [bin, "up", "--demo"], {
    env: {
      ...process.env,
      A2A_LEDGER_DATA_DIR: dataDir,
      A2A_LEDGER_TOPIC_SUFFIX: suffix,
      A2A_LEDGER_INGEST_PORT: "0",
      A2A_LEDGER_PROJECTOR_PORT: "0",
      A2A_LEDGER_DISPATCHER_PORT: "0",
      A2A_LEDGER_KAFKA_LOG_LEVEL: "nothing",
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  exited = new Promise((resolve) => up.once("exit", (code) => resolve(code)));
  up.stdout?.on("data", (c: Buffer) => (output += c.toString()));
  up.stderr?.on("data", (c: Buffer) => (output += c.toString()));
  const deadline = Date.now() + 280_000;
  while (!output.includes("running; Ctrl-C stops every process")) {
    if (up.exitCode !== null || Date.now() > deadline)
      throw new Error(
        `a2a-ledger up --demo did not complete the story:\n${output}\n${logTails(join(dataDir, "logs"))}`,
      );
    await sleep(250);
  }
  console.log(`a2a-ledger up --demo reached "running" in ${((Date.now() - startedAt) / 1000).toFixed(1)} s`);
  const line = output.split("\n").find((l) => l.startsWith('{"demo":'));
  report = (JSON.parse(line ?? "{}") as { report: StoryReport }).report;
  processes = [...output.matchAll(/^process (\S+): pid (\d+)/gm)].map((m) => ({
    name: m[1] as string,
    pid: Number(m[2]),
  }));
  feed = new LedgerFeed({
    brokers: endpoints.brokers,
    registryUrl: endpoints.registryUrl,
    topics: [topics.decisions, topics.observations],
    from: "beginning",
  });
  await feed.start();
}, 300_000);

afterAll(async () => {
  await feed?.stop();
  if (up !== undefined && up.exitCode === null) {
    up.kill("SIGINT");
    await exited;
  }
});

describe("the live §1 story, on the ledger", () => {
  it("the lost task is indeterminate, never failed, and re-dispatched to the worker whose verified states contain INPUT_REQUIRED, under its correlation and attempt", async () => {
    const lost = report.lost.correlationId;
    const [w1Task, w3Task] = report.lost.serverTaskIds;
    expect(w1Task?.workerId).toBe(report.workers.w1);
    const indeterminate = await feed.waitFor(
      isType("TaskIndeterminate", (d) => d.correlationId === lost),
      30_000,
      "TaskIndeterminate",
    );
    expect(indeterminate).toMatchObject({
      workerId: report.workers.w1,
      serverTaskId: w1Task?.serverTaskId,
      lastState: "TASK_STATE_INPUT_REQUIRED",
    });
    const redispatch = await feed.waitFor(
      isType("RedispatchCommanded", (d) => d.correlationId === lost),
      30_000,
      "RedispatchCommanded",
    );
    expect(redispatch).toMatchObject({
      targetWorkerId: report.workers.w3,
      attempt: 2,
      resumeState: "TASK_STATE_INPUT_REQUIRED",
      fromServerTaskId: w1Task?.serverTaskId,
    });
    // W3 is the one whose probe verified INPUT_REQUIRED for the skill; W2's did not.
    for (const w of [report.workers.w2, report.workers.w3])
      await feed.waitFor(
        isType("CapabilitiesVerified", (d) => d.workerId === w),
        30_000,
        `CapabilitiesVerified for ${w}`,
      );
    const verified = (workerId: string) =>
      feed.ofType("CapabilitiesVerified").filter((d) => d.workerId === workerId && d.decidedAt <= redispatch.decidedAt);
    expect(
      verified(report.workers.w3)
        .at(-1)
        ?.skills.find((s) => s.skillId === "answer")?.states,
    ).toContain("TASK_STATE_INPUT_REQUIRED");
    expect(
      verified(report.workers.w2)
        .at(-1)
        ?.skills.find((s) => s.skillId === "answer")?.states,
    ).not.toContain("TASK_STATE_INPUT_REQUIRED");
    // The dispatcher's re-dispatch reached the ledger with its attempt, from the dispatcher and from W3's proxy.
    for (const observer of ["dispatcher", `proxy:${report.workers.w3}`]) {
      const dispatched = await feed.waitFor(
        isType("TaskDispatched", (o) => o.correlationId === lost && o.observer === observer),
        30_000,
        `${observer}'s TaskDispatched`,
      );
      expect(dispatched).toMatchObject({
        workerId: report.workers.w3,
        attempt: 2,
        skillId: "answer",
        acceptedOutputModes: ["application/json", "text/plain"],
      });
    }
    // Its lineage holds every server task id, the loss was seen, and it ends reconciled on W3; never failed.
    for (const task of report.lost.serverTaskIds) {
      await feed.waitFor(
        isType(
          "TaskStateObserved",
          (o) => o.correlationId === lost && o.workerId === task.workerId && o.serverTaskId === task.serverTaskId,
        ),
        30_000,
        `a state of ${task.workerId}/${task.serverTaskId}`,
      );
    }
    await feed.waitFor(
      isType("TaskNotFoundObserved", (o) => o.correlationId === lost && o.serverTaskId === w1Task?.serverTaskId),
      30_000,
      "the TaskNotFound of W1's task",
    );
    await feed.waitFor(
      isType("TaskReconciled", (d) => d.correlationId === lost && d.serverTaskId === w3Task?.serverTaskId),
      30_000,
      "TaskReconciled on W3",
    );
    const tasks = new Set(
      feed
        .ofType("TaskStateObserved")
        .filter((o) => o.correlationId === lost)
        .map((o) => `${o.workerId}/${o.serverTaskId}`),
    );
    expect(tasks).toEqual(
      new Set([`${w1Task?.workerId}/${w1Task?.serverTaskId}`, `${w3Task?.workerId}/${w3Task?.serverTaskId}`]),
    );
    expect(feed.ofType("TaskFailed").filter((d) => d.correlationId === lost)).toEqual([]);
  });

  it("records TASK_STORE_NOT_DURABLE from W1's parked canary, and OUTPUT_MODE_NOT_ADVERTISED and DIVERGENT_ARTIFACTS for the retry after W1's reload", async () => {
    const canary = (
      await feed.waitFor(
        isType("ProbeCompleted", (o) => o.workerId === report.workers.w1),
        30_000,
        "W1's ProbeCompleted",
      )
    ).parkedCanaries[0];
    // default/4 also charges the real task W1 lost in input-required (its card claims a durable store);
    // the canary's loss is charged on the probe's own correlation.
    const notDurable = await feed.waitFor(
      isType(
        "ContractViolation",
        (d) =>
          d.kind === "TASK_STORE_NOT_DURABLE" &&
          d.workerId === report.workers.w1 &&
          d.serverTaskId === canary?.serverTaskId,
      ),
      30_000,
      "TASK_STORE_NOT_DURABLE of the canary",
    );
    expect(notDurable.correlationId).toBe(`probe-${report.workers.w1}`);
    await feed.waitFor(
      isType("TaskNotFoundObserved", (o) => o.serverTaskId === canary?.serverTaskId && o.observer === "dispatcher"),
      30_000,
      "the canary's TaskNotFound, seen by the dispatcher",
    );

    const retried = report.retried.correlationId;
    expect(report.retried.serverTaskIds.map((t) => t.mediaTypes)).toEqual([["application/json"], ["text/plain"]]);
    const second = report.retried.serverTaskIds[1]?.serverTaskId;
    const notAdvertised = await feed.waitFor(
      isType("ContractViolation", (d) => d.correlationId === retried && d.kind === "OUTPUT_MODE_NOT_ADVERTISED"),
      30_000,
      "OUTPUT_MODE_NOT_ADVERTISED",
    );
    expect(notAdvertised).toMatchObject({
      workerId: report.workers.w1,
      serverTaskId: second,
      observed: "text/plain",
      allowed: ["application/json"],
    });
    const divergent = await feed.waitFor(
      isType("ContractViolation", (d) => d.correlationId === retried && d.kind === "DIVERGENT_ARTIFACTS"),
      30_000,
      "DIVERGENT_ARTIFACTS",
    );
    expect(divergent.attempts).toEqual([1, 2]);
  });
});

describe("W2 enforces its card at emission", () => {
  it("refuses INPUT_REQUIRED and application/json at the source, records both refusals, and completes in text/plain as its card says", async () => {
    const { correlationId, workerId, serverTaskId } = report.guarded;
    expect(report.guarded).toMatchObject({
      workerId: report.workers.w2,
      state: "TASK_STATE_COMPLETED",
      mediaTypes: ["text/plain"],
    });
    const refusedState = await feed.waitFor(
      isType("EmissionRefused", (o) => o.correlationId === correlationId && o.emission === "STATUS"),
      30_000,
      "W2's refused INPUT_REQUIRED",
    );
    expect(refusedState).toMatchObject({
      observer: `guard:${workerId}`,
      workerId,
      serverTaskId,
      skillId: "answer",
      kind: "STATE_NOT_ADVERTISED",
      state: "TASK_STATE_INPUT_REQUIRED",
      allowed: ["TASK_STATE_SUBMITTED", "TASK_STATE_WORKING", "TASK_STATE_COMPLETED"],
    });
    const refusedMode = await feed.waitFor(
      isType("EmissionRefused", (o) => o.correlationId === correlationId && o.emission === "ARTIFACT"),
      30_000,
      "W2's refused application/json",
    );
    expect(refusedMode).toMatchObject({
      workerId,
      serverTaskId,
      kind: "OUTPUT_MODE_NOT_ADVERTISED",
      parts: [{ mediaType: "application/json" }],
      allowed: ["text/plain"],
    });
    // Nothing off-card reached a client: W2's proxy saw no INPUT_REQUIRED and no application/json for the task.
    // The proxy records the task's artifact before its final state, on one partition: once the feed holds
    // the COMPLETED sighting it holds every artifact the proxy recorded before it.
    await feed.waitFor(
      isType(
        "TaskStateObserved",
        (o) =>
          o.correlationId === correlationId && o.observer === `proxy:${workerId}` && o.state === "TASK_STATE_COMPLETED",
      ),
      30_000,
      "W2's task completed, as its proxy saw it",
    );
    const seen = feed
      .ofType("TaskStateObserved")
      .filter((o) => o.correlationId === correlationId)
      .map((o) => o.state);
    expect(seen).not.toContain("TASK_STATE_INPUT_REQUIRED");
    // The artifact's observation may be recorded after the final state's (the proxy records what each answer
    // carries, and a final task can carry its artifact): wait for it, bounded, then check every one seen.
    await feed.waitFor(
      isType("ArtifactEmitted", (o) => o.correlationId === correlationId),
      30_000,
      "W2's artifact, as its proxy saw it",
    );
    expect(
      feed
        .ofType("ArtifactEmitted")
        .filter((o) => o.correlationId === correlationId)
        .flatMap((o) => o.parts.map((p) => p.mediaType)),
    ).toEqual(["text/plain"]);
    expect(feed.ofType("ContractViolation").filter((d) => d.correlationId === correlationId)).toEqual([]);
  });
});

interface Lineage {
  status: string;
  attempts: { attempt: number; workerId: string; serverTasks: { serverTaskId: string }[] }[];
  violations: { kind: string }[];
  decisions: { type: string }[];
}

describe("the live §1 story, through the projector's API", () => {
  it("returns the lineage of both tasks with every server task id, the decisions and the violations, and W1's TASK_STORE_NOT_DURABLE", async () => {
    const page = /^The projector's page: (\S+)$/m.exec(output)?.[1];
    expect(page, "up printed no projector page (services/projector is not in this checkout)").toBeDefined();
    const api = (page ?? "").replace(/\/+$/, "");
    const get = async <T>(path: string): Promise<T> => {
      const response = await fetch(`${api}${path}`);
      expect(response.status, path).toBe(200);
      return (await response.json()) as T;
    };
    const settled = async <T>(path: string, ready: (body: T) => boolean): Promise<T> => {
      const deadline = Date.now() + 60_000;
      for (;;) {
        const response = await fetch(`${api}${path}`);
        if (response.status === 200) {
          const body = (await response.json()) as T;
          if (ready(body) || Date.now() > deadline) return body;
        } else if (Date.now() > deadline) return get<T>(path);
        await sleep(500);
      }
    };
    const lost = await settled<Lineage>(`/v1/tasks/${encodeURIComponent(report.lost.correlationId)}`, (l) =>
      l.decisions.some((d) => d.type === "TaskReconciled"),
    );
    expect(lost.attempts.map((a) => [a.attempt, a.workerId])).toEqual([
      [1, report.workers.w1],
      [2, report.workers.w3],
    ]);
    expect(lost.attempts.flatMap((a) => a.serverTasks.map((t) => t.serverTaskId)).sort()).toEqual(
      report.lost.serverTaskIds.map((t) => t.serverTaskId).sort(),
    );
    expect(lost.decisions.map((d) => d.type)).toEqual(
      expect.arrayContaining(["TaskIndeterminate", "RedispatchCommanded", "TaskReconciled"]),
    );
    expect(lost.decisions.map((d) => d.type)).not.toContain("TaskFailed");
    expect(lost.status).toBe("reconciled");

    const retried = await settled<Lineage>(`/v1/tasks/${encodeURIComponent(report.retried.correlationId)}`, (l) =>
      l.violations.some((v) => v.kind === "DIVERGENT_ARTIFACTS"),
    );
    expect(retried.violations.map((v) => v.kind)).toEqual(
      expect.arrayContaining(["OUTPUT_MODE_NOT_ADVERTISED", "DIVERGENT_ARTIFACTS"]),
    );
    expect(retried.attempts.flatMap((a) => a.serverTasks.map((t) => t.serverTaskId)).sort()).toEqual(
      report.retried.serverTaskIds.map((t) => t.serverTaskId).sort(),
    );

    // Under default/4 both of W1's losses breach its durable claim: the parked canary's (on the probe's
    // correlation) and the real task's.
    const notDurable = await settled<{ items: { kind: string; workerId: string; correlationId: string }[] }>(
      `/v1/violations?kind=TASK_STORE_NOT_DURABLE&workerId=${encodeURIComponent(report.workers.w1)}`,
      (b) => b.items.length >= 2,
    );
    expect(notDurable.items.map((v) => [v.kind, v.workerId, v.correlationId]).sort()).toEqual(
      [
        ["TASK_STORE_NOT_DURABLE", report.workers.w1, report.lost.correlationId],
        ["TASK_STORE_NOT_DURABLE", report.workers.w1, `probe-${report.workers.w1}`],
      ].sort(),
    );
    expect((await fetch(`${api}/v1/workers/${encodeURIComponent(report.workers.w1)}`)).status).toBe(200);

    // W2's page lists the emissions its guard refused, next to W1's unguarded text/plain violation.
    const w2 = await settled<{ refusedEmissions: { kind: string; correlationId: string; refused: string }[] }>(
      `/v1/workers/${encodeURIComponent(report.workers.w2)}`,
      (w) => w.refusedEmissions.filter((r) => r.correlationId === report.guarded.correlationId).length >= 2,
    );
    expect(
      w2.refusedEmissions
        .filter((r) => r.correlationId === report.guarded.correlationId)
        .map((r) => [r.kind, r.refused])
        .sort(),
    ).toEqual([
      ["OUTPUT_MODE_NOT_ADVERTISED", "application/json"],
      ["STATE_NOT_ADVERTISED", "TASK_STATE_INPUT_REQUIRED"],
    ]);
    const guarded = await get<{ refusedEmissions: unknown[] }>(
      `/v1/tasks/${encodeURIComponent(report.guarded.correlationId)}`,
    );
    expect(guarded.refusedEmissions).toHaveLength(2);
  });
});

describe("Ctrl-C", () => {
  it("stops every process of the mesh, the Python agent included", async () => {
    expect(processes.map((p) => p.name)).toEqual(
      expect.arrayContaining([
        "ingest",
        "reconciler",
        "dispatcher",
        "W1",
        "W2",
        "W3",
        "proxy-W1",
        "proxy-W2",
        "proxy-W3",
        "orchestrator",
      ]),
    );
    up.kill("SIGINT");
    expect(await exited).toBe(0);
    for (const p of processes) {
      let alive = true;
      try {
        process.kill(p.pid, 0);
      } catch {
        alive = false;
      }
      expect(alive, `${p.name} (pid ${p.pid}) still runs`).toBe(false);
    }
  });
});
