/**
 * `replay --shards N` prints what `--shards 1` prints, byte for byte: the decisions (`--json`), a
 * comparison with its summary and diffs, and the HTML report, for the generated log (a real task lost in
 * input-required under default/3 included) from a file (from the topic a real reconciler read, in its
 * recorded order: replay-shards.int.test.ts). The shards really split the work: each owns decisions of its own.
 */
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { cardHash } from "@a2a-ledger/core";
import { generateLog } from "@a2a-ledger/core/testing";
import { agentCard, events } from "@a2a-ledger/core/testing/builders";
import type { Decision, TaskState } from "@a2a-ledger/schemas";
import { afterAll, describe, expect, it } from "vitest";
import { byShards, expectSame } from "../../test/by-shards.ts";
import { parseLines } from "../../test/observations.ts";
import { run } from "../../test/run.ts";
import { shardOf } from "../replay/replay-shard.ts";

const generated = generateLog(12_000);
const lastAt = Math.max(...parseLines(generated.slice(-50)).map((o) => o.occurredAt));
// A conformance probe asking for a task id nobody saw (default/3 tells it apart from default/2).
const probeLine = JSON.stringify({
  type: "TaskNotFoundObserved",
  correlationId: "task-196",
  observer: "tck",
  workerId: "w-delta",
  serverTaskId: "tck-made-up-id",
  method: "GetTask",
  errorCode: "-32001",
  eventId: "ev-tck-1",
  occurredAt: lastAt + 1,
});
const lines = [...generated, probeLine];
const dir = mkdtempSync(join(tmpdir(), "a2a-ledger-shards-"));
const input = join(dir, "log.ndjson");
writeFileSync(input, `${lines.join("\n")}\n`);
const savedEnv = { ...process.env };
process.env["A2A_LEDGER_TRUSTED_VENDORS"] = "";

const decisionsOf = (stdout: string) =>
  stdout
    .split("\n")
    .filter((l) => l !== "")
    .map((l) => JSON.parse(l) as Decision);

afterAll(() => {
  process.env = { ...savedEnv };
});

describe("replay --shards N from a file", () => {
  for (const rules of ["default/2", "default/3"]) {
    it(`lists the ${rules} decisions of the generated log byte for byte as one shard does, each shard owning some`, async () => {
      const results = await byShards(["--input", input, "--rules", rules, "--json"]);
      expectSame(results);
      const decisions = decisionsOf(results[0]?.stdout ?? "");
      for (const n of [2, 3])
        expect(new Set(decisions.map((d) => shardOf(d.correlationId, n))).size, `${n} shards`).toBe(n);
      if (rules === "default/3") {
        // The real task lost in input-required revokes the worker's interrupted states: a capability change
        // a shard not owning that task must know of.
        expect(
          decisions.filter((d) => d.type === "CapabilitiesVerified" && (d as { durable?: boolean }).durable === false)
            .length,
        ).toBeGreaterThan(0);
      }
    }, 300_000);

    it(`compares ${rules} with restart-from-scratch to the same summary, diffs and report`, async () => {
      const results = [];
      for (const shards of [1, 2, 3]) {
        const report = join(dir, `${rules.replace("/", "-")}-${shards}.html`);
        const r = await run([
          "replay",
          "--input",
          input,
          "--baseline",
          rules,
          "--candidate",
          "restart-from-scratch",
          "--json",
          "--report",
          report,
          "--shards",
          String(shards),
        ]);
        results.push({ shards, ...r, report: readFileSync(report, "utf8") });
      }
      expectSame(results);
      expect(results[0]?.stdout.split("\n").length).toBeGreaterThan(10);
      for (const r of results.slice(1)) expect(r.report, `report of --shards ${r.shards}`).toBe(results[0]?.report);
      // The text rendering too.
      expectSame(
        await byShards(["--input", input, "--baseline", rules, "--candidate", "restart-from-scratch"], [1, 2]),
      );
    }, 300_000);
  }

  it("evicts as one shard does: the same CorrelationExpired decisions at the same places, also in a window", async () => {
    const retention = ["--retention", "1s", "--stale-after", "2s"];
    const results = await byShards(["--input", input, "--rules", "default/2", "--json", ...retention]);
    expectSame(results);
    const decisions = decisionsOf(results[0]?.stdout ?? "");
    const expired = decisions.filter((d) => d.type === "CorrelationExpired");
    expect(expired.length).toBeGreaterThan(10);
    for (const n of [2, 3])
      expect(new Set(expired.map((d) => shardOf(d.correlationId, n))).size, `${n} shards`).toBe(n);
    // Without retention the same log expires nothing: the flags are what evicts.
    const kept = await run(["replay", "--input", input, "--rules", "default/2", "--json", "--retention", "off"]);
    expect(decisionsOf(kept.stdout).some((d) => d.type === "CorrelationExpired")).toBe(false);
    const times = parseLines(lines).map((o) => o.occurredAt);
    const since = String(Math.min(...times) + 9_000);
    expectSame(
      await byShards(["--input", input, "--rules", "default/2", "--json", "--since", since, ...retention]),
      100,
    );
  }, 300_000);

  it("cuts a window and one correlation as one shard does", async () => {
    const times = parseLines(lines)
      .map((o) => o.occurredAt)
      .sort((x, y) => x - y);
    const since = String(times[Math.floor(times.length / 3)]);
    const until = String(times[Math.floor((2 * times.length) / 3)]);
    expectSame(
      await byShards([
        "--input",
        input,
        "--since",
        since,
        "--until",
        until,
        "--baseline",
        "default/2",
        "--candidate",
        "default/3",
        "--json",
      ]),
    );
    const lost = await byShards(
      ["--input", input, "--rules", "default/3", "--correlation", "task-196", "--json"],
      [1, 2],
    );
    expectSame(lost, 100);
  }, 300_000);

  it("orders the re-dispatches one probe's sweep emits for correlations of different shards as one shard does", async () => {
    // Given two tasks lost in input-required on an ephemeral worker, blocked (no other worker can resume
    // them), the one of shard 1 first in id order; then a durable worker's card and probe: one sweep
    // re-dispatches both at the probe.
    const e = events("sweep-");
    const acme = agentCard({
      org: "Acme",
      states: ["submitted", "working", "input-required", "completed", "failed"],
      taskStore: "ephemeral",
      skills: [{ id: "summarize", outputModes: ["text/plain"] }],
    });
    const gamma = agentCard({
      org: "Gamma",
      states: [
        "TASK_STATE_SUBMITTED",
        "TASK_STATE_WORKING",
        "TASK_STATE_INPUT_REQUIRED",
        "TASK_STATE_COMPLETED",
        "TASK_STATE_FAILED",
      ],
      taskStore: "durable",
      skills: [{ id: "summarize", outputModes: ["text/plain"] }],
    });
    const ids: string[] = [];
    for (let k = 0; ids.length < 4; k++) {
      const id = `task-${k}`;
      const want = ids.length % 2 === 0 ? 1 : 0;
      if (shardOf(id, 2) === want) ids.push(id);
    }
    const states: TaskState[] = [
      "TASK_STATE_SUBMITTED",
      "TASK_STATE_WORKING",
      "TASK_STATE_INPUT_REQUIRED",
      "TASK_STATE_COMPLETED",
    ];
    const log = [
      e.card("w-acme", acme, { at: 1_000, maxAge: 3600 }),
      e.probe("w-acme", cardHash(acme), { at: 2_000, states, modes: ["text/plain"] }),
      ...ids.flatMap((id, i) => [
        e.dispatch(id, "w-acme", {
          at: 10_000 + i * 100,
          accepted: ["text/plain"],
          cardHash: cardHash(acme),
          cardFetchedAt: 1_000,
        }),
        e.state(id, "w-acme", `${id}-t`, "working", { at: 10_010 + i * 100, observer: "proxy", via: "stream" }),
        e.state(id, "w-acme", `${id}-t`, "input-required", { at: 10_020 + i * 100, observer: "proxy", via: "stream" }),
        e.notFound(id, "w-acme", `${id}-t`, { at: 20_000 + i * 100 }),
      ]),
      e.card("w-gamma", gamma, { at: 30_000, maxAge: 3600 }),
      e.probe("w-gamma", cardHash(gamma), { at: 30_010, states, modes: ["text/plain"], durable: true }),
    ];
    const file = join(dir, "sweep.ndjson");
    writeFileSync(file, `${log.map((o) => JSON.stringify(o)).join("\n")}\n`);
    // When replayed with one and with two shards, then the same lines
    const results = await byShards(["--input", file, "--rules", "default/2", "--json"], [1, 2]);
    expectSame(results, 100);
    const redispatched = decisionsOf(results[0]?.stdout ?? "")
      .filter((d) => d.type === "RedispatchCommanded")
      .map((d) => d.correlationId);
    expect(redispatched).toEqual(ids);
  }, 120_000);

  it("refuses a shard count that is not a whole number from 1 to 6, and a rules module, with exit 2", async () => {
    for (const bad of ["0", "7", "two", "1.5", "-1", ""]) {
      const r = await run(["replay", "--input", input, `--shards=${bad}`]);
      expect({ bad, code: r.code, stdout: r.stdout }).toEqual({ bad, code: 2, stdout: "" });
      expect(r.stderr).toContain("expected a whole number from 1 to 6");
    }
    const module = join(import.meta.dirname, "../../test/fixtures/throwing-rules.ts");
    const r = await run(["replay", "--input", input, "--candidate", module, "--shards", "2"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("--shards 2 needs shipped rule sets");
  });
});
