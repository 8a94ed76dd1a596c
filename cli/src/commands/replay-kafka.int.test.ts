/**
 * `replay` and `export` against the real broker, registry and reconciler: the reconciler (its own
 * process, on the default rule set) folds a generated log from a private topic set; the CLI then replays
 * the topic and its exports.
 *
 * Two oracles, each read apart from the CLI: what the reconciler committed (its decisions topic, read by a
 * consumer of the test's own) for a replay of the topic, which follows the reconciler's batch records; and
 * the core's pure replay of the generated log merged by time for an export, which has no batch records.
 * Under the default rule set one correlation's loss is evidence about its worker for every other
 * correlation, so the order partitions were read in matters and the two can differ (ARCHITECTURE §9).
 */
import { existsSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { defaultRuleSet, replay, restartFromScratchRuleSet } from "@a2a-ledger/core";
import { generateLog } from "@a2a-ledger/core/testing";
import type { Admin } from "@a2a-ledger/kafka";
import { readMessages } from "@a2a-ledger/kafka/testing";
import type { Decision, Observation } from "@a2a-ledger/schemas";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  committedDecisions,
  createStack,
  deleteStack,
  kafka,
  produce,
  serde,
  type Stack,
  startReconciler,
  stopReconciler,
  waitForReconciler,
} from "../../test/ledger-stack.ts";
import { parseLines } from "../../test/observations.ts";
import { run } from "../../test/run.ts";
import { type CorrelationDiff, diffDecisions } from "../decision-diff.ts";
import type { RejectionSummary } from "../replay/rejections.ts";
import type { ReplaySummary } from "../replay/replay-report.ts";

const dir = mkdtempSync(join(tmpdir(), "a2a-ledger-replay-kafka-"));
const log = parseLines(generateLog(4_000, { refreshEvery: Number.MAX_SAFE_INTEGER }));
const capabilityPhase = log.filter((o) => o.correlationId.startsWith("probe-"));
const tasks = log.filter((o) => !o.correlationId.startsWith("probe-"));
/** The trust policy the reconciler seeds on an empty policy topic (version 1, no vendor trusted). */
const policy = { versions: [{ version: 1, validFrom: 0, trustedVendors: [] }] };
/** The log replayed merged by time: what a file (an export) decides. */
const byTime = replay(log, defaultRuleSet, { policy });
/** What the reconciler committed, read back once it folded the log. */
let recorded: Decision[] = [];
let admin: Admin;
let stack: Stack;
const savedEnv = { ...process.env };

type Line = Partial<CorrelationDiff> & { startedBeforeWindow?: boolean; summary?: ReplaySummary };
const lines = (text: string): Line[] =>
  text
    .split("\n")
    .filter((l) => l !== "")
    .map((l) => JSON.parse(l) as Line);
const summaryOf = (text: string) => lines(text).at(-1)?.summary as ReplaySummary;

beforeAll(async () => {
  admin = kafka.admin();
  await admin.connect();
  await serde.registerAll();
  stack = await createStack(admin, "cli-replay");
  await startReconciler(stack, { A2A_LEDGER_TRUSTED_VENDORS: "" });
  // Cards and probes first, as a mesh starts; then the tasks, and one record that is not an observation.
  await produce(stack.topics.observations, capabilityPhase);
  await waitForReconciler(admin, stack);
  await produce(stack.topics.observations, tasks, [{ key: "task-poison", value: Buffer.from("not avro at all") }]);
  await waitForReconciler(admin, stack);
  recorded = await committedDecisions(admin, stack);
  process.env["A2A_LEDGER_TOPIC_SUFFIX"] = stack.suffix;
  process.env["A2A_LEDGER_TRUSTED_VENDORS"] = "";
}, 300_000);

afterAll(async () => {
  process.env = savedEnv;
  if (stack) await deleteStack(admin, stack);
  await admin?.disconnect();
});

describe("replay --kafka against what the reconciler committed", () => {
  it("replays the topic with the recorded rules version to an empty diff, and says so", async () => {
    const json = await run(["replay", "--kafka", "--baseline", "recorded", "--json", "--fail-on-diff"]);
    expect(json.stderr).toBe("");
    expect(json.code).toBe(0);
    const summary = summaryOf(json.stdout);
    expect(summary).toMatchObject({
      events: log.length,
      correlationsChanged: 0,
      determinism: { rulesVersion: "default/4", reproduced: true },
    });
    expect(summary.baseline).toMatchObject({ recorded: true, rulesVersion: "default/4", decisions: recorded.length });
    expect(summary.candidate.decisions).toBe(recorded.length);
    expect(summary.skipped).toEqual([
      {
        where: expect.stringMatching(new RegExp(`^${stack.topics.observations.replace(/\./g, "\\.")}\\[\\d\\]@\\d+$`)),
        reason: expect.stringContaining("not a Confluent wire-format record"),
      },
    ]);
    const text = await run(["replay", "--kafka", "--baseline", "recorded"]);
    expect(text.stdout).toContain(
      `determinism check passed: replaying the recorded observations with default/4 reproduces all ${recorded.length} recorded decisions (empty diff)`,
    );
  }, 120_000);

  it("with restart-from-scratch as candidate, differs exactly where the pure replays differ, and nowhere else", async () => {
    const { code, stdout } = await run([
      "replay",
      "--kafka",
      "--baseline",
      "recorded",
      "--candidate",
      "restart-from-scratch",
      "--json",
      "--fail-on-diff",
    ]);
    expect(code).toBe(1);
    const diffs = lines(stdout).slice(0, -1);
    // restart-from-scratch judges no worker by another correlation's loss, so merged by time it decides what
    // it decides in the recorded order.
    const predicted = diffDecisions(recorded, replay(log, restartFromScratchRuleSet, { policy }));
    expect(predicted.length).toBeGreaterThan(5);
    const ids = (ds: readonly Partial<CorrelationDiff>[]) => ds.map((d) => d.correlationId).sort();
    expect(ids(diffs)).toEqual(ids(predicted));
    const shape = (d: Partial<CorrelationDiff>) => ({
      removed: d.removed?.map((x) => x.decisionId),
      added: d.added?.map((x) => x.decisionId),
      changed: d.changed?.map((x) => x.decisionId),
      first: d.first?.index,
    });
    const byId = new Map(predicted.map((d) => [d.correlationId, shape(d)]));
    for (const d of diffs) expect(shape(d)).toEqual(byId.get(d.correlationId as string));
    expect(summaryOf(stdout).determinism).toBeNull();
  }, 120_000);

  it("replays one correlation against its recorded decisions", async () => {
    const target = recorded.find((d) => d.type === "TaskReconciled")?.correlationId as string;
    const { code, stdout } = await run([
      "replay",
      "--kafka",
      "--correlation",
      target,
      "--baseline",
      "recorded:default/4",
      "--json",
    ]);
    expect(code).toBe(0);
    expect(summaryOf(stdout)).toMatchObject({
      events: log.filter((o) => o.correlationId === target).length,
      correlations: 1,
      correlationsChanged: 0,
      baseline: { decisions: recorded.filter((d) => d.correlationId === target).length },
    });
  }, 120_000);
});

describe("export → replay", () => {
  it.each(["avro", "ndjson"])(
    "a %s export replays to exactly the decisions the log decides merged by time, and differs from the record exactly where that order judges otherwise",
    async (format) => {
      const file = join(dir, `all.${format}`);
      const exported = await run(["export", "--kafka", "--output", file]);
      expect(exported.code).toBe(0);
      expect(exported.stderr).toContain(
        `exported ${log.length.toLocaleString("en-US")} of ${log.length.toLocaleString("en-US")} observations`,
      );
      const listed = await run(["replay", "--input", file, "--json"]);
      expect(listed.code).toBe(0);
      const ids = (ds: readonly { decisionId: string }[]) => ds.map((d) => d.decisionId).sort();
      expect(
        ids(
          listed.stdout
            .split("\n")
            .filter(Boolean)
            .map((l) => JSON.parse(l) as { decisionId: string }),
        ),
      ).toEqual(ids(byTime));

      const { code, stdout } = await run(["replay", "--input", file, "--baseline", "recorded", "--json"]);
      expect(code).toBe(0);
      const predicted = diffDecisions(recorded, byTime);
      const correlations = (ds: readonly Partial<CorrelationDiff>[]) => ds.map((d) => d.correlationId).sort();
      expect(correlations(lines(stdout).slice(0, -1))).toEqual(correlations(predicted));
      expect(summaryOf(stdout)).toMatchObject({
        events: log.length,
        correlationsChanged: predicted.length,
        determinism: { rulesVersion: "default/4", reproduced: predicted.length === 0 },
        baseline: { decisions: recorded.length },
        order: { kind: "event-time" },
      });
    },
    120_000,
  );

  it("a windowed replay of the topic decides as the record did; a windowed export replays the window as the whole file does; one that holds only the window differs also where its correlations started before it or a worker was revoked before it", async () => {
    const since = (tasks[Math.floor(tasks.length / 2)] as Observation).occurredAt;
    const topic = await run(["replay", "--kafka", "--since", String(since), "--baseline", "recorded", "--json"]);
    expect(topic.code).toBe(0);
    // Exact: the correlations in the window and the shared ones are folded whole (a first pass names them).
    expect(lines(topic.stdout).slice(0, -1)).toEqual([]);
    expect(summaryOf(topic.stdout).events).toBe(log.filter((o) => o.occurredAt >= since).length);
    expect(summaryOf(topic.stdout).baseline.decisions).toBeGreaterThan(0);

    // A file folds merged by time: where that order judges otherwise than the record, the whole log does too.
    const byOrder = new Set(diffDecisions(recorded, byTime).map((d) => d.correlationId));
    const startedBefore = new Set(log.filter((o) => o.occurredAt < since).map((o) => o.correlationId));
    const changedIn = async (file: string, only: string[]) => {
      expect((await run(["export", "--kafka", "--since", String(since), ...only, "--output", file])).code).toBe(0);
      const replayed = await run([
        "replay",
        "--input",
        file,
        "--since",
        String(since),
        "--baseline",
        "recorded",
        "--json",
      ]);
      expect(replayed.code).toBe(0);
      return lines(replayed.stdout)
        .slice(0, -1)
        .map((d) => d.correlationId as string);
    };
    // The correlations in the window and the shared ones, whole: a loss before the window that revoked a
    // worker is in the file.
    const window = await changedIn(join(dir, "window.avro"), []);
    expect(window.filter((id) => !byOrder.has(id))).toEqual([]);
    // Exactly the window: the correlations that started before it are judged without their beginnings, and
    // ones wholly inside it without the revocations that losses before it caused.
    const onlyScope = await changedIn(join(dir, "only-scope.avro"), ["--only-scope"]);
    expect(onlyScope.some((id) => startedBefore.has(id) && !byOrder.has(id))).toBe(true);
    expect(onlyScope.some((id) => !startedBefore.has(id) && !byOrder.has(id))).toBe(true);
  }, 120_000);
});

describe("observations the rules reject, from the topic", () => {
  it("are named by topic, partition and offset with the reconciler's reason code, and the rest is decided", async () => {
    const throwing = join(import.meta.dirname, "../../test/fixtures/throwing-rules.ts");
    const { code, stdout, stderr } = await run(["replay", "--kafka", "--baseline", throwing, "--json"]);
    expect(code).toBe(0);
    const { rejected } = JSON.parse(stderr.split("\n").find((l) => l.startsWith('{"rejected"')) as string) as {
      rejected: RejectionSummary;
    };
    // Where each observation really is on the topic.
    const topic = stack.topics.observations;
    const at = new Map<string, string>();
    for (const m of await readMessages(kafka, topic, log.length + 1, 60_000)) {
      if (m.key === "task-poison") continue;
      const o = (await serde.decode(m.value as Buffer)).record as Observation;
      at.set(o.eventId, `${topic}[${m.partition}]@${m.offset}`);
    }
    expect(at.size).toBe(log.length);
    const notFound = log.filter((o) => o.type === "TaskNotFoundObserved");
    expect(notFound.length).toBeGreaterThan(1);
    expect(rejected.count).toBe(notFound.length);
    const listed = rejected.observations.map((r) => r.eventId);
    expect(new Set(listed).size).toBe(Math.min(100, notFound.length));
    expect(listed.filter((id) => !notFound.some((o) => o.eventId === id))).toEqual([]);
    for (const r of rejected.observations)
      expect([r.where, r.reason, r.detail]).toEqual([
        at.get(r.eventId),
        "RECONCILER_RULES_REJECTED",
        "explode: cannot judge a lost task",
      ]);
    // Every other observation is decided; none of the decisions stems from a rejected one.
    const decided = stdout
      .split("\n")
      .filter((l) => l !== "")
      .map((l) => JSON.parse(l) as { causeEventIds: string[] });
    expect(decided.length).toBeGreaterThan(0);
    const notFoundIds = new Set(notFound.map((o) => o.eventId));
    expect(decided.some((d) => d.causeEventIds.some((id) => notFoundIds.has(id)))).toBe(false);
  }, 120_000);
});

describe("when the log is not what the record claims", () => {
  it("a determinism check that fails names the first differing decision of each correlation", async () => {
    await stopReconciler(stack);
    const lost = recorded.find((d) => d.type === "TaskReconciled") as {
      correlationId: string;
      workerId: string | null;
      serverTaskId: string;
    };
    const tampered: Observation = {
      type: "TaskNotFoundObserved",
      eventId: "tampered-1",
      principal: null,
      correlationId: lost.correlationId,
      occurredAt: (log.at(-1) as Observation).occurredAt + 1,
      observer: "orchestrator",
      workerId: "w-acme",
      serverTaskId: "never-seen",
      method: "GetTask",
      errorCode: "-32001",
    };
    await produce(stack.topics.observations, [tampered]);
    const { code, stdout } = await run(["replay", "--kafka", "--baseline", "recorded"]);
    expect(code).toBe(0);
    expect(stdout).toContain("determinism check FAILED");
    expect(stdout).toMatch(
      new RegExp(
        `${lost.correlationId}\\n(.*\\n)*  first difference at decision \\d+: baseline nothing, candidate tampered-1:`,
      ),
    );
  }, 120_000);
});

describe("Kafka out of reach", () => {
  it("is retried within A2A_LEDGER_CLI_KAFKA_RETRY_MS, each retry said, then exit code 3 with a clear message that says it retried, and no output or file", async () => {
    process.env["KAFKA_BROKERS"] = "127.0.0.1:1";
    process.env["A2A_LEDGER_CLI_KAFKA_RETRY_MS"] = "2000";
    try {
      const replayed = await run(["replay", "--kafka", "--json"]);
      expect(replayed.code).toBe(3);
      expect(replayed.stdout).toBe("");
      const lines = replayed.stderr.split("\n");
      expect(lines.pop()).toBe("");
      expect(lines.at(-1)).toMatch(
        /^a2a-ledger replay: cannot read a2a\.(policy|observations)\.v1\.cli-replay-\w+: .*ECONNREFUSED.* \(retried \d+ times? over \d+\.\d s\) \(brokers 127\.0\.0\.1:1\)$/,
      );
      expect(lines.length).toBeGreaterThanOrEqual(2);
      for (const retry of lines.slice(0, -1))
        expect(retry).toMatch(
          /^a2a-ledger replay: reading a2a\.(policy|observations)\.v1\.cli-replay-\w+ failed: .*ECONNREFUSED.*; retry \d+ in \d\.\d+ s \(\d+ s of A2A_LEDGER_CLI_KAFKA_RETRY_MS left\)$/,
        );
      const out = join(dir, "never.avro");
      const exported = await run(["export", "--kafka", "--output", out]);
      expect(exported.code).toBe(3);
      expect(exported.stderr).toMatch(/\(retried \d+ times? over \d+\.\d s\)/);
      expect(existsSync(out) || existsSync(`${out}.partial`)).toBe(false);
      // No retry at all with a bound of 0.
      process.env["A2A_LEDGER_CLI_KAFKA_RETRY_MS"] = "0";
      const once = await run(["replay", "--kafka", "--json"]);
      expect(once.code).toBe(3);
      expect(once.stderr).toMatch(
        /^a2a-ledger replay: cannot read a2a\.(policy|observations)\.v1\.cli-replay-\w+: .*\(brokers 127\.0\.0\.1:1\)\n$/,
      );
      expect(once.stderr).not.toContain("retr");
    } finally {
      if (savedEnv["KAFKA_BROKERS"] === undefined) delete process.env["KAFKA_BROKERS"];
      else process.env["KAFKA_BROKERS"] = savedEnv["KAFKA_BROKERS"];
      if (savedEnv["A2A_LEDGER_CLI_KAFKA_RETRY_MS"] === undefined) delete process.env["A2A_LEDGER_CLI_KAFKA_RETRY_MS"];
      else process.env["A2A_LEDGER_CLI_KAFKA_RETRY_MS"] = savedEnv["A2A_LEDGER_CLI_KAFKA_RETRY_MS"];
    }
  }, 120_000);

  it("a topic that does not exist is exit code 3", async () => {
    const { code, stderr } = await run(["replay", "--kafka", "--topic", "a2a.no-such-topic"]);
    expect(code).toBe(3);
    expect(stderr).toContain("topic a2a.no-such-topic does not exist");
  }, 60_000);
});
