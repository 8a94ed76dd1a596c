/**
 * State kept across rebalances, on Kafka: two reconcilers share the group. A partition instance A keeps
 * through a rebalance is not read again (A's restore count per partition stays 1); a partition that moved
 * to B, was committed to by B, and came back to A is restored again, and A decides on B's state: the
 * decisions equal the replay of the whole log, none twice.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CapabilityTable, createDecider, defaultRuleSet, foldBatch, replay } from "@a2a-ledger/core";
import { correlationPartitions, partitionOf } from "@a2a-ledger/kafka";
import type { Observation } from "@a2a-ledger/schemas";
import {
  byCorrelation,
  fixture,
  kafka,
  kafkaSuite,
  parseLines,
  produce,
  readDecisions,
  seededPolicy,
  startInProcess,
  waitForGroupAtEnd,
} from "../test/harness.ts";
import type { Reconciler } from "./reconciler.ts";

const { admin, fixtures, running } = kafkaSuite({ beforeAll, afterAll });

/** A metric's value per partition label. */
async function perPartition(
  reconciler: Reconciler,
  metric: "partitionRestores" | "statesKept",
): Promise<Map<number, number>> {
  return new Map((await reconciler.metrics[metric].get()).values.map((v) => [Number(v.labels.partition), v.value]));
}

/** Waits until the group's rebalance after a member left is done: one member, stable. */
async function stableWithOneMember(groupId: string): Promise<void> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const [group] = (await admin.describeGroups([groupId])).groups;
    if (group?.state === "Stable" && group.members.length === 1) return;
    if (Date.now() > deadline)
      throw new Error(
        `group ${groupId} did not settle with one member: ${group?.state}, ${group?.members.length} members`,
      );
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** One correlation per partition, and its task's three steps: dispatched, working, lost. */
function correlations(): { ids: string[]; step: (n: 0 | 1 | 2) => Observation[] } {
  const ids: string[] = [];
  for (let i = 0; ids.length < correlationPartitions; i++) {
    const id = `kept-${i}`;
    if (!ids.some((k) => partitionOf(k, correlationPartitions) === partitionOf(id, correlationPartitions)))
      ids.push(id);
  }
  const line = (o: Record<string, unknown>) => JSON.stringify(o);
  const steps = [
    (id: string, i: number) =>
      line({
        type: "TaskDispatched",
        eventId: `${id}-d`,
        correlationId: id,
        occurredAt: 1_000 + i,
        observer: "orchestrator",
        workerId: "w1",
        skillId: "summarize",
        messageId: `m-${id}`,
        acceptedOutputModes: ["text/plain"],
      }),
    (id: string, i: number) =>
      line({
        type: "TaskStateObserved",
        eventId: `${id}-s`,
        correlationId: id,
        occurredAt: 2_000 + i,
        observer: "proxy",
        workerId: "w1",
        serverTaskId: `t-${id}`,
        state: "working",
        via: "stream",
      }),
    (id: string, i: number) =>
      line({
        type: "TaskNotFoundObserved",
        eventId: `${id}-l`,
        correlationId: id,
        occurredAt: 3_000 + i,
        observer: "orchestrator",
        workerId: "w1",
        serverTaskId: `t-${id}`,
        method: "GetTask",
        errorCode: "-32001",
      }),
  ];
  return { ids, step: (n) => parseLines(ids.map((id, i) => (steps[n] as (id: string, i: number) => string)(id, i))) };
}

describe("state across rebalances", () => {
  it("keeps the state of a partition that stays, and restores one that had another owner in between", async () => {
    const { step } = correlations();
    const f = await fixture(admin, "kept");
    fixtures.push(f);
    const a = await startInProcess(f);
    running.push(a);
    await produce(f.topics.observations, step(0));
    await waitForGroupAtEnd(admin, f);
    const all = Array.from({ length: correlationPartitions }, (_, p) => p);
    expect(Object.fromEntries(await perPartition(a, "partitionRestores")), "A restored every partition once").toEqual(
      Object.fromEntries(all.map((p) => [p, 1])),
    );

    // B joins: its start resolves once the group's rebalance is done (A rejoined too).
    const b = await startInProcess(f);
    await produce(f.topics.observations, step(1));
    await waitForGroupAtEnd(admin, f);
    const moved = [...(await perPartition(b, "partitionRestores")).keys()].sort((x, y) => x - y);
    const kept = all.filter((p) => !moved.includes(p));
    expect(moved.length, "B took partitions").toBeGreaterThan(0);
    expect(kept.length, "A kept partitions").toBeGreaterThan(0);
    expect(Object.fromEntries(await perPartition(a, "partitionRestores")), "A read no partition again").toEqual(
      Object.fromEntries(all.map((p) => [p, 1])),
    );
    expect(
      Object.fromEntries(await perPartition(a, "statesKept")),
      "A kept the state of the partitions it kept",
    ).toEqual(Object.fromEntries(kept.map((p) => [p, 1])));

    // B leaves: its partitions, which it committed to, come back to A (and A is given its own again).
    await b.stop();
    await stableWithOneMember(f.groupId);
    await produce(f.topics.observations, step(2));
    await waitForGroupAtEnd(admin, f);
    const restores = await perPartition(a, "partitionRestores");
    expect(Object.fromEntries(restores), "A restored again exactly the partitions B had").toEqual(
      Object.fromEntries(all.map((p) => [p, moved.includes(p) ? 2 : 1])),
    );
    expect(Object.fromEntries(await perPartition(a, "statesKept"))).toEqual(
      Object.fromEntries(kept.map((p) => [p, 2])),
    );

    const decisions = await readDecisions(f.topics.decisions);
    const decisionIds = decisions.map((d) => d.decisionId);
    expect(new Set(decisionIds).size, "no decision twice").toBe(decisionIds.length);
    const expected = replay([...step(0), ...step(1), ...step(2)], defaultRuleSet, { policy: seededPolicy() });
    expect(expected.length).toBeGreaterThan(0);
    expect(byCorrelation(decisions)).toEqual(byCorrelation(expected));
  }, 180_000);

  it("restores a partition it kept when another owner committed to its changelog in between, and decides on that state", async () => {
    const { step } = correlations();
    const f = await fixture(admin, "kept-moved");
    fixtures.push(f);
    const a = await startInProcess(f);
    running.push(a);
    await produce(f.topics.observations, step(0));
    await waitForGroupAtEnd(admin, f);
    const b = await startInProcess(f);
    running.push(b);
    const moved = new Set((await perPartition(b, "partitionRestores")).keys());
    await produce(f.topics.observations, step(1));
    await waitForGroupAtEnd(admin, f);
    const kept = [...(await perPartition(a, "statesKept")).keys()];
    const p = kept[0];
    if (p === undefined) throw new Error(`A kept no partition (B took ${[...moved].join(", ")})`);

    // Another owner of partition p (as after A was thrown out of the group without noticing) commits a
    // correlation's state to p's changelog under p's transactional id, which fences A's producer.
    let other = "";
    for (let i = 0; other === ""; i++) if (partitionOf(`other-${i}`, correlationPartitions) === p) other = `other-${i}`;
    const line = (o: Record<string, unknown>) => JSON.stringify(o);
    const [dispatched, lost] = parseLines([
      line({
        type: "TaskDispatched",
        eventId: "o-d",
        correlationId: other,
        occurredAt: 5_000,
        observer: "orchestrator",
        workerId: "w1",
        skillId: "summarize",
        messageId: "m-o",
        acceptedOutputModes: ["text/plain"],
      }),
      line({
        type: "TaskNotFoundObserved",
        eventId: "o-l",
        correlationId: other,
        occurredAt: 6_000,
        observer: "orchestrator",
        workerId: "w1",
        serverTaskId: "t-o",
        method: "GetTask",
        errorCode: "-32001",
      }),
    ]) as [Observation, Observation];
    const decider = createDecider(defaultRuleSet);
    const folded = foldBatch(
      { decider, policy: seededPolicy(), capabilities: new CapabilityTable(), stateOf: () => undefined },
      [dispatched],
    );
    const owner = kafka.producer({
      transactionalId: `${f.groupId}.${f.topics.observations}.${p}`,
      idempotent: true,
      maxInFlightRequests: 1,
    });
    await owner.connect();
    const tx = await owner.transaction();
    await tx.send({
      topic: f.topics.changelog,
      messages: [
        { key: other, value: Buffer.from(decider.serialize(folded.states.get(other) as never)), partition: p },
      ],
    });
    await tx.commit();
    await owner.disconnect();

    // A rejoins with its partitions (B leaves), p among them: its next batch on p finds the changelog moved.
    await b.stop();
    await stableWithOneMember(f.groupId);
    await produce(f.topics.observations, [lost]);
    await waitForGroupAtEnd(admin, f);
    expect((await perPartition(a, "partitionRestores")).get(p), `partition ${p} was restored again`).toBe(2);
    expect(
      (await perPartition(a, "statesKept")).get(p),
      `partition ${p} was kept only through the first rebalance`,
    ).toBe(1);
    const decisions = (await readDecisions(f.topics.decisions)).filter((d) => d.correlationId === other);
    const expected = replay([dispatched, lost], defaultRuleSet, { policy: seededPolicy() });
    expect(expected.length).toBeGreaterThan(0);
    expect(byCorrelation(decisions), "A decided on the other owner's state").toEqual(byCorrelation(expected));
  }, 180_000);
});
