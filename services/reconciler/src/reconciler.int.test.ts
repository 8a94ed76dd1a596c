import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { defaultRuleSet, replay } from "@a2a-ledger/core";
import { sampleDecision } from "@a2a-ledger/schemas/testing";
import {
  byCorrelation,
  seededPolicy,
  fixture,
  kafka,
  kafkaSuite,
  readAll,
  designSection1Story,
  produce,
  readDecisions,
  serde,
  startInProcess,
  waitForGroupAtEnd,
} from "../test/harness.ts";
import { isCommand } from "./batch.ts";
import { dlqHeader } from "./poison.ts";

const { story, capabilityPhase, taskPhase } = designSection1Story();

const { admin, fixtures, running } = kafkaSuite({ beforeAll, afterAll });

describe("the reconciler on Kafka", () => {
  it("turns the DESIGN §1 sequence into exactly the decisions and commands the file replay predicts", async () => {
    const f = await fixture(admin, "design1");
    fixtures.push(f);
    const reconciler = await startInProcess(f);
    running.push(reconciler);
    // Probes run before tasks are dispatched: the capabilities they verify are committed first.
    await produce(f.topics.observations, capabilityPhase);
    await waitForGroupAtEnd(admin, f);
    await produce(f.topics.observations, taskPhase);
    await waitForGroupAtEnd(admin, f);

    const expected = replay(story, defaultRuleSet, { policy: seededPolicy() });
    expect(expected.map((d) => d.type)).toContain("TaskIndeterminate");
    expect(expected.map((d) => d.type)).toContain("RedispatchCommanded");
    const decisions = await readDecisions(f.topics.decisions);
    expect(byCorrelation(decisions)).toEqual(byCorrelation(expected));
    const commands = await readDecisions(f.topics.commands);
    expect(byCorrelation(commands)).toEqual(byCorrelation(expected.filter(isCommand)));
    const redispatch = commands.find((c) => c.type === "RedispatchCommanded");
    expect(redispatch).toMatchObject({
      correlationId: "task-42",
      targetWorkerId: "w-gamma",
      resumeState: "TASK_STATE_INPUT_REQUIRED",
    });
    expect(decisions.some((d) => d.type === "TaskFailed")).toBe(false);
  }, 120_000);

  it("sends poison records to the DLQ with reason and source coordinates, and processes the stream behind them", async () => {
    const f = await fixture(admin, "poison");
    fixtures.push(f);
    const reconciler = await startInProcess(f);
    running.push(reconciler);
    const producer = kafka.producer();
    await producer.connect();
    const partitionOf = async (key: string) => {
      const [meta] = await producer.send({
        topic: f.topics.observations,
        messages: [{ key, value: Buffer.from("not avro at all") }],
      });
      return meta;
    };
    const poisoned = await partitionOf("task-42");
    await producer.send({
      topic: f.topics.observations,
      messages: [{ key: "task-42", value: Buffer.from([0, 0x7f, 0xff, 0xff, 0x01, 0x02]) }],
    });
    const decision = story.find((o) => o.type === "TaskDispatched");
    if (!decision) throw new Error("story without a dispatch");
    await producer.send({
      topic: f.topics.observations,
      messages: [{ key: "someone-else", value: await serde.encode(decision) }],
    });
    const aDecision = sampleDecision("TaskIndeterminate");
    await producer.send({
      topic: f.topics.observations,
      messages: [{ key: aDecision.correlationId, value: await serde.encode(aDecision) }],
    });
    await producer.disconnect();
    await produce(f.topics.observations, story);
    await waitForGroupAtEnd(admin, f);

    const dead = await readAll(f.topics.dlq);
    // The DLQ keeps the order of each source partition; "someone-else" is on another partition than task-42.
    const reasonOf = (m: (typeof dead)[number]) => m.headers?.[dlqHeader.reason]?.toString();
    expect(dead.map(reasonOf).sort()).toEqual([
      "RECONCILER_KEY_MISMATCH",
      "RECONCILER_NOT_AN_OBSERVATION",
      "RECONCILER_UNDECODABLE",
      "RECONCILER_UNKNOWN_SCHEMA",
    ]);
    const fromPoisoned = dead.filter(
      (m) => m.headers?.[dlqHeader.partition]?.toString() === String(poisoned?.partition),
    );
    expect(fromPoisoned.map(reasonOf)).toEqual(["RECONCILER_UNDECODABLE", "RECONCILER_UNKNOWN_SCHEMA"]);
    const undecodable = fromPoisoned[0];
    expect(undecodable?.value?.toString()).toBe("not avro at all");
    expect(undecodable?.headers?.[dlqHeader.topic]?.toString()).toBe(f.topics.observations);
    expect(undecodable?.headers?.[dlqHeader.offset]?.toString()).toBe(String(poisoned?.baseOffset));
    const all = await readDecisions(f.topics.decisions);
    expect(all.some((d) => d.type === "TaskIndeterminate" && d.correlationId === "task-42")).toBe(true);
  }, 120_000);

  it("restores per-correlation state from the changelog after a restart instead of replaying observations", async () => {
    const f = await fixture(admin, "restore");
    fixtures.push(f);
    const lostAt = taskPhase.findIndex((o) => o.type === "TaskNotFoundObserved");
    const first = await startInProcess(f);
    await produce(f.topics.observations, [...capabilityPhase]);
    await waitForGroupAtEnd(admin, f);
    await produce(f.topics.observations, taskPhase.slice(0, lostAt));
    await waitForGroupAtEnd(admin, f);
    await first.stop();

    const second = await startInProcess(f);
    running.push(second);
    await produce(f.topics.observations, taskPhase.slice(lostAt));
    await waitForGroupAtEnd(admin, f);
    const processed = (await second.metrics.observations.get()).values[0]?.value;
    expect(processed, "the restarted instance processed only what came after the restart").toBe(
      taskPhase.length - lostAt,
    );
    const decisions = await readDecisions(f.topics.decisions);
    expect(byCorrelation(decisions)).toEqual(byCorrelation(replay(story, defaultRuleSet, { policy: seededPolicy() })));
  }, 120_000);
});
