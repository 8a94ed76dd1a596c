/**
 * Two partitions read in the "wrong" order: a task's state is folded live before the card and probe
 * that govern it, though they happened earlier (another partition, recorded late). A replay merged by
 * time (the records' CreateTime) judges the state against the card and finds a violation the live reconciler could not
 * see; `replay --kafka --baseline recorded` follows the reconciler's batch records and reproduces what
 * was decided live: an empty diff, in every one of 20 rounds, each with its own worker and task.
 */
import { agentCard, events } from "@a2a-ledger/core/testing/builders";
import { cardHash } from "@a2a-ledger/core";
import { type Admin, correlationPartitions, partitionOf } from "@a2a-ledger/kafka";
import { produceAll } from "@a2a-ledger/kafka/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
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
import type { ReplaySummary } from "../replay/replay-report.ts";

const rounds = Number(process.env.REPLAY_ORDER_ROUNDS ?? 20);
const lifecycle = ["submitted", "working", "input-required", "completed", "failed"];
const e = events("order-");
let admin: Admin;
let stack: Stack;
const savedEnv = { ...process.env };

const parse = (stdout: string) => {
  const lines = stdout.trim().split("\n");
  return {
    changed: lines.slice(0, -1).map((l) => (JSON.parse(l) as { correlationId: string }).correlationId),
    summary: (JSON.parse(lines.at(-1) as string) as { summary: ReplaySummary }).summary,
  };
};

beforeAll(async () => {
  admin = kafka.admin();
  await admin.connect();
  stack = await createStack(admin, "cli-order");
  process.env.A2A_LEDGER_TOPIC_SUFFIX = stack.suffix;
  await startReconciler(stack);
}, 120_000);

afterAll(async () => {
  process.env = { ...savedEnv };
  if (stack) await deleteStack(admin, stack);
  await admin?.disconnect();
});

describe("replay in the order the reconciler read", () => {
  it(`reproduces the live decisions of a task folded before its worker's card, in ${rounds} rounds out of ${rounds}, where an event-time replay differs`, async () => {
    const corrs: string[] = [];
    const outcomes: {
      round: number;
      recorded: { code: number; changed: string[]; order: ReplaySummary["order"] };
      eventTime: string[];
    }[] = [];
    for (let round = 0; round < rounds; round++) {
      const worker = `w${round}`;
      // The task and its worker's card on different partitions (one partition keeps its own order).
      let corr = `task-${round}`;
      for (
        let k = 0;
        partitionOf(corr, correlationPartitions) === partitionOf(`probe-${worker}`, correlationPartitions);
        k++
      )
        corr = `task-${round}-${k}`;
      corrs.push(corr);
      const base = Date.now() - 60_000;
      const card = agentCard({ org: `Org${round}`, states: lifecycle, taskStore: "durable" });
      // Live: the task's partition first (nothing known of the worker yet) ...
      await produce(stack.topics.observations, [
        e.dispatch(corr, worker, { at: base + 1_000 }),
        e.state(corr, worker, `${corr}-t`, "input-required", { at: base + 2_000 }),
      ]);
      await waitForReconciler(admin, stack);
      // ... then the card and the probe that happened before it (the probe verifies no interrupted state),
      // appended late with their own time as the records' CreateTime, as a producer that stamps its
      // records with the event's time does: merged by record time, they come first.
      const late = [
        e.card(worker, card, { at: base }),
        e.probe(worker, cardHash(card), {
          at: base + 10,
          states: ["TASK_STATE_SUBMITTED", "TASK_STATE_WORKING", "TASK_STATE_COMPLETED"],
          modes: ["text/plain"],
        }),
      ];
      await produceAll(kafka, stack.topics.observations, late, {
        key: (o) => o.correlationId,
        encode: (o) => serde.encode(o),
        timestamp: (o) => o.occurredAt,
      });
      await waitForReconciler(admin, stack);

      const recorded = await run(["replay", "--kafka", "--baseline", "recorded", "--json", "--fail-on-diff"]);
      expect(recorded.stderr).toBe("");
      const r = parse(recorded.stdout);
      const eventTime = await run(["replay", "--kafka", "--baseline", "recorded", "--order", "event-time", "--json"]);
      outcomes.push({
        round,
        recorded: { code: recorded.code, changed: r.changed, order: r.summary.order },
        eventTime: parse(eventTime.stdout).changed,
      });
    }
    // The race happened in every round: merged by event time, the round's task is judged otherwise.
    for (const o of outcomes) expect(o.eventTime, `round ${o.round}`).toContain(corrs[o.round]);
    // And the recorded order reproduces every live decision, every round.
    expect(outcomes.map((o) => ({ round: o.round, ...o.recorded }))).toEqual(
      outcomes.map((o) => ({
        round: o.round,
        code: 0,
        changed: [],
        order: { kind: "recorded", batches: expect.any(Number) },
      })),
    );
  }, 900_000);

  it("falls back to the time-merged order, and says why, when the batch topic holds a record that is not a batch record", async () => {
    const producer = kafka.producer();
    await producer.connect();
    await producer.send({
      topic: stack.topics.batches,
      acks: -1,
      messages: [{ key: "0", value: Buffer.from("not a batch record") }],
    });
    await producer.disconnect();
    const { code, stdout, stderr } = await run(["replay", "--kafka", "--baseline", "recorded", "--json"]);
    expect(code).toBe(0);
    expect(stderr).toMatch(
      /^a2a-ledger replay: partitions merged by event time, not in the order the reconciler read them: .*a2a\.reconciler\.batches\.v1.* is not a batch record/,
    );
    expect(parse(stdout).summary.order).toMatchObject({
      kind: "event-time",
      reason: expect.stringContaining("is not a batch record"),
    });
    expect(parse(stdout).summary.events).toBeGreaterThan(0);
  }, 120_000);

  it("refuses an unknown --order with exit code 2", async () => {
    const { code, stderr } = await run(["replay", "--kafka", "--order", "sideways"]);
    expect(code).toBe(2);
    expect(stderr).toContain("--order sideways: expected recorded or event-time");
  });
});
