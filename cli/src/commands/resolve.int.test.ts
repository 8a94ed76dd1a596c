/**
 * `a2a-ledger resolve` against the real ingest, broker, registry and reconciler (default/4): a task lost
 * in input-required that no worker may resume blocks; the operator restarts it from scratch through
 * ingest; the reconciler commands the re-dispatch, naming the resolution as its cause; and
 * `replay --kafka --baseline recorded` reproduces every recorded decision, and so does a second blocked
 * task that the trust policy's fallback (set with `policy set --fallback`) restarts from scratch. Bad options and a token that
 * may not resolve are refused, and nothing is recorded for them.
 */
import { all, events, probed } from "@a2a-ledger/core/testing/builders";
import { createIngestApp, loadConfig as loadIngestConfig } from "@a2a-ledger/ingest";
import type { Admin } from "@a2a-ledger/kafka";
import { readMessages } from "@a2a-ledger/kafka/testing";
import type { Observation } from "@a2a-ledger/schemas";
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
  waitForReconciler,
} from "../../test/ledger-stack.ts";
import { run } from "../../test/run.ts";
import { resolutionOf } from "./resolve.ts";

const operatorToken = "operator-token-0123456789";
const orchestratorToken = "orchestrator-token-0123456789";
const savedEnv = { ...process.env };
let admin: Admin;
let stack: Stack;
let ingest: { url: string; close(): Promise<void> };

const e = events("resolve-");
/** Minutes ago, so that the resolution (now) finds the correlation still held (retention measures stream time). */
const t0 = Date.now() - 300_000;
/** t is lost on w1 in input-required; w2 verifies completing from scratch, not input-required: blocked. */
const history: Observation[] = [
  ...probed(
    e,
    { w1: { states: all }, w2: { states: ["TASK_STATE_SUBMITTED", "TASK_STATE_WORKING", "TASK_STATE_COMPLETED"] } },
    t0,
  ),
  e.dispatch("t", "w1", { at: t0 + 100 }),
  e.state("t", "w1", "a1", "input-required", { at: t0 + 110 }),
  e.notFound("t", "w1", "a1", { at: t0 + 120 }),
];

/** Every decision committed so far (the reconciler's group is at the end of its input when this is called). */
const decisions = () => committedDecisions(admin, stack);

beforeAll(async () => {
  admin = kafka.admin();
  await admin.connect();
  await serde.registerAll();
  stack = await createStack(admin, "cli-resolve");
  await startReconciler(stack, { A2A_LEDGER_RULES: "default/4", A2A_LEDGER_TRUSTED_VENDORS: "" });
  await produce(stack.topics.observations, history);
  await waitForReconciler(admin, stack);
  const config = loadIngestConfig({
    ...process.env,
    A2A_LEDGER_INGEST_TOPIC: stack.topics.observations,
    A2A_LEDGER_INGEST_PORT: "0",
    A2A_LEDGER_INGEST_LOG_LEVEL: "silent",
    A2A_LEDGER_INGEST_TOKENS: `${operatorToken}=operator:*;principal=ops-desk,${orchestratorToken}=orchestrator:*`,
  });
  const { server } = createIngestApp(config, { logger: false });
  ingest = { url: await server.listen({ host: "127.0.0.1", port: 0 }), close: () => server.close() };
  process.env["A2A_LEDGER_INGEST_URL"] = ingest.url;
  process.env["A2A_LEDGER_TOPIC_SUFFIX"] = stack.suffix;
  process.env["A2A_LEDGER_TRUSTED_VENDORS"] = "";
}, 300_000);

afterAll(async () => {
  process.env = savedEnv;
  await ingest?.close();
  if (stack) await deleteStack(admin, stack);
  await admin?.disconnect();
});

describe("resolve: its options", () => {
  it("takes exactly one way out, a reason, and a worker only where one is named", () => {
    const base = { correlation: "t", reason: "the customer asked", operator: "alice" };
    expect(resolutionOf({ ...base, fail: true })).toMatchObject({
      action: "FAIL",
      workerId: null,
      observer: "operator:alice",
    });
    expect(resolutionOf({ ...base, "redispatch-to": "w2" })).toMatchObject({ action: "REDISPATCH", workerId: "w2" });
    expect(resolutionOf({ ...base, restart: true, on: "w2" })).toMatchObject({ action: "RESTART", workerId: "w2" });
    expect(() => resolutionOf({ ...base })).toThrow(/exactly one of/);
    expect(() => resolutionOf({ ...base, fail: true, restart: true })).toThrow(/exactly one of/);
    expect(() => resolutionOf({ ...base, fail: true, on: "w2" })).toThrow(/--on names the worker of a --restart/);
    expect(() => resolutionOf({ ...base, fail: true, reason: "  " })).toThrow(/needs --reason/);
    expect(() => resolutionOf({ ...base, fail: true, reason: "x".repeat(1001) })).toThrow(/at most 1000/);
    expect(() => resolutionOf({ ...base, fail: true, operator: "alice\nUser:admin" })).toThrow(/is not a name/);
    expect(() => resolutionOf({ ...base, correlation: "", fail: true })).toThrow(/needs --correlation/);
  });
});

describe("resolve through ingest, carried out by the reconciler", () => {
  it("refuses a token that may not resolve, recording nothing", async () => {
    process.env["A2A_LEDGER_INGEST_TOKEN"] = orchestratorToken;
    const refused = await run(["resolve", "--correlation", "t", "--fail", "--reason", "nope", "--operator", "mallory"]);
    expect(refused.code).toBe(2);
    // The CLI writes as operator:<name>, which an orchestrator's token may not claim.
    expect(refused.stderr).toMatch(/INGEST_OBSERVER_FORBIDDEN[\s\S]*may not write as observer "operator:mallory"/);
    expect(refused.stderr).not.toContain(orchestratorToken);
  });

  it("blocks the loss, then restarts it from scratch on the operator's word, naming the resolution as the cause", async () => {
    const before = await decisions();
    expect(before.filter((d) => d.correlationId === "t").map((d) => d.type)).toEqual([
      // The loss in input-required is evidence against w1's interrupted states (R9 for tasks).
      "CapabilitiesVerified",
      "TaskIndeterminate",
      "ReconciliationBlocked",
    ]);
    process.env["A2A_LEDGER_INGEST_TOKEN"] = operatorToken;
    const resolved = await run([
      "resolve",
      "--correlation",
      "t",
      "--restart",
      "--reason",
      "w1 restarted without its store; start over",
      "--operator",
      "alice",
    ]);
    expect(resolved.stderr).toBe("");
    expect(resolved.code).toBe(0);
    const eventId = /recorded (resolve-[0-9a-f-]+)/.exec(resolved.stdout)?.[1];
    expect(eventId).toBeDefined();
    await waitForReconciler(admin, stack);
    const after = await decisions();
    const command = after.find((d) => d.type === "RedispatchCommanded" && d.correlationId === "t");
    expect(command).toMatchObject({
      correlationId: "t",
      targetWorkerId: "w2",
      resumeState: null,
      attempt: 2,
      causeEventIds: [eventId],
      rulesVersion: "default/4",
    });
    // The observation carries who did it, as ingest stamped it.
    const landed = await readMessages(kafka, stack.topics.observations, history.length + 1, 30_000);
    const records = await Promise.all(landed.map(async (m) => (await serde.decode(m.value ?? Buffer.alloc(0))).record));
    expect(records.find((r) => (r as Observation).eventId === eventId)).toMatchObject({
      type: "OperatorResolved",
      observer: "operator:alice",
      principal: "ops-desk",
      action: "RESTART",
      workerId: null,
    });
  }, 120_000);

  it("restarts a blocked task from scratch once the trust policy's fallback for its skill came due", async () => {
    const set = await run([
      "policy",
      "set",
      "--trusted-vendors",
      "",
      "--fallback",
      "summarize=1m",
      "--valid-from",
      // Well past the CLI's 5 s margin, which it checks only after reading the policy topic; the events
      // below are dated from the time the CLI prints, so nothing waits for it.
      String(Date.now() + 30_000),
    ]);
    expect(set.stderr).toBe("");
    expect(set.code).toBe(0);
    expect(set.stdout).toContain("fallback: summarize restarts from scratch after 1m blocked");
    const from = Date.parse(/valid from (\S+)/.exec(set.stdout)?.[1] ?? "");
    expect(Number.isNaN(from)).toBe(false);
    await produce(stack.topics.observations, [
      e.dispatch("t2", "w1", { at: from + 100 }),
      e.state("t2", "w1", "b1", "input-required", { at: from + 110 }),
      e.notFound("t2", "w1", "b1", { at: from + 120 }),
    ]);
    await waitForReconciler(admin, stack);
    const block = (await decisions()).find((d) => d.type === "ReconciliationBlocked" && d.correlationId === "t2");
    expect(block).toMatchObject({ fallbackAt: from + 120 + 60_000, policyVersion: 2 });
    // The orchestrator asks again a minute later: the partition's stream time passes the fallback's moment.
    await produce(stack.topics.observations, [e.notFound("t2", "w1", "b1", { at: from + 120 + 61_000 })]);
    await waitForReconciler(admin, stack);
    const restart = (await decisions()).find((d) => d.type === "RedispatchCommanded" && d.correlationId === "t2");
    expect(restart).toMatchObject({
      targetWorkerId: "w2",
      resumeState: null,
      decidedAt: from + 120 + 60_000,
      decisionId: expect.stringMatching(/:RedispatchCommanded:fallback$/),
    });
  }, 120_000);

  it("is reproduced by replay --kafka --baseline recorded", async () => {
    const replayed = await run(["replay", "--kafka", "--baseline", "recorded", "--json", "--fail-on-diff"]);
    expect(replayed.stderr).toBe("");
    expect(replayed.code).toBe(0);
    const summary = JSON.parse(replayed.stdout.trim().split("\n").at(-1) ?? "{}") as {
      summary: { correlationsChanged: number; determinism: { rulesVersion: string; reproduced: boolean } };
    };
    expect(summary.summary).toMatchObject({
      correlationsChanged: 0,
      determinism: { rulesVersion: "default/4", reproduced: true },
    });
  }, 60_000);
});
