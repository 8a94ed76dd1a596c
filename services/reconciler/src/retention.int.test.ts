/**
 * Retention on Kafka: a correlation leaves the reconciler's state (a changelog tombstone) once its
 * partition's stream time passes its horizon — a finished one silently, one without an outcome with
 * CorrelationExpired — and a restart resumes at the stream time the last commit recorded, so it evicts
 * as the uninterrupted reconciler and the replay do. The horizons here are seconds of event time.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { defaultRuleSet, replay } from "@a2a-ledger/core";
import { correlationPartitions, dlqHeader, partitionOf } from "@a2a-ledger/kafka";
import type { Observation, ReconcilerBatch } from "@a2a-ledger/schemas";
import {
  byCorrelation,
  fixture,
  kafkaSuite,
  parseLines,
  produce,
  readAll,
  readDecisions,
  seededPolicy,
  serde,
  startInProcess,
  waitForGroupAtEnd,
} from "../test/harness.ts";
import { streamTimeKey } from "./changelog.ts";

const { admin, fixtures, running } = kafkaSuite({ beforeAll, afterAll });

const retentionEnv = { A2A_LEDGER_RECONCILER_RETENTION: "2s", A2A_LEDGER_RECONCILER_STALE_AFTER: "5s" };

/** `n` correlation ids that share one partition. */
function samePartition(n: number): string[] {
  const ids: string[] = [];
  const target = partitionOf("ret-0", correlationPartitions);
  for (let i = 0; ids.length < n; i++)
    if (partitionOf(`ret-${i}`, correlationPartitions) === target) ids.push(`ret-${i}`);
  return ids;
}

const dispatch = (id: string, at: number, eventId = `${id}-d@${at}`) =>
  JSON.stringify({
    type: "TaskDispatched",
    eventId,
    correlationId: id,
    occurredAt: at,
    observer: "orchestrator",
    workerId: "w1",
    skillId: "summarize",
    messageId: `m-${id}`,
    acceptedOutputModes: ["text/plain"],
  });
const seen = (id: string, state: string, at: number, eventId = `${id}-${state}@${at}`) =>
  JSON.stringify({
    type: "TaskStateObserved",
    eventId,
    correlationId: id,
    occurredAt: at,
    observer: "proxy",
    workerId: "w1",
    serverTaskId: `t-${id}`,
    state,
    via: "get",
  });

/** The changelog's latest value per key of one partition (null: a tombstone). */
async function changelogOf(topic: string, partition: number): Promise<Map<string, Buffer | null>> {
  const latest = new Map<string, Buffer | null>();
  for (const r of await readAll(topic)) if (r.partition === partition && r.key !== null) latest.set(r.key, r.value);
  return latest;
}

describe("retention on Kafka", () => {
  it("evicts finished and stale correlations with tombstones, resumes the stream time after a restart, and decides as the replay", async () => {
    const [done, stale, carrier, open, late] = samePartition(5) as [string, string, string, string, string];
    const partition = partitionOf(done, correlationPartitions);
    const f = await fixture(admin, "retention", retentionEnv);
    fixtures.push(f);

    const first: Observation[] = parseLines([
      dispatch(done, 1_000),
      seen(done, "completed", 1_100),
      dispatch(stale, 1_000),
      seen(stale, "working", 1_200),
      // 7 000: past done's horizon (1 100 + 2 000) and stale's (1 200 + 5 000).
      dispatch(carrier, 7_000),
      seen(carrier, "completed", 7_100),
      // Past carrier's horizon (9 100).
      dispatch(open, 18_000),
      // A redelivery of open's dispatch: no change to open (still last seen at 18 000), but the stream time is 20 000.
      dispatch(open, 20_000, `${open}-d@18000`),
    ]);
    const a = await startInProcess(f);
    running.push(a);
    await produce(f.topics.observations, first);
    await waitForGroupAtEnd(admin, f);

    const afterFirst = await changelogOf(f.topics.changelog, partition);
    expect(afterFirst.get(done), "finished: tombstoned").toBeNull();
    expect(afterFirst.get(stale), "stale: tombstoned").toBeNull();
    expect(afterFirst.get(carrier), "carrier: tombstoned").toBeNull();
    expect(afterFirst.get(open), "open: within its horizon").toBeInstanceOf(Buffer);
    expect(afterFirst.get(streamTimeKey)?.toString()).toBe("20000");
    expect((await a.metrics.evicted.get()).values.map((v) => [v.labels.outcome, v.value]).sort()).toEqual([
      ["finished", 2],
      ["stale", 1],
    ]);
    const batches = await Promise.all(
      (await readAll(f.topics.batches)).map(
        async (r) => (await serde.decode(r.value as Buffer)).record as ReconcilerBatch,
      ),
    );
    expect(batches.every((b) => b.retentionMs === 2_000 && b.staleMs === 5_000)).toBe(true);

    // A restart: the partition is restored from its changelog, with the stream time its last commit recorded.
    await a.stop();
    running.splice(running.indexOf(a), 1);
    const b = await startInProcess(f);
    running.push(b);
    // Events of 16 000 and 16 500 for a correlation not held, behind the recorded stream time (20 000) by
    // more than the 2 s horizon: too late to fold, dead-lettered. A restart that took the stream time from
    // the states (open's 18 000) would have folded and kept them (16 500 + 2 000 is past 18 000).
    const second = parseLines([dispatch(late, 16_000), seen(late, "completed", 16_500)]);
    await produce(f.topics.observations, second);
    await waitForGroupAtEnd(admin, f);
    expect(
      (await changelogOf(f.topics.changelog, partition)).has(late),
      "too late at the restored stream time: never held",
    ).toBe(false);
    const dead = (await readAll(f.topics.dlq)).map((r) => ({
      key: r.key,
      reason: r.headers?.[dlqHeader.reason]?.toString(),
    }));
    expect(dead).toEqual([
      { key: late, reason: "RECONCILER_OBSERVATION_TOO_LATE" },
      { key: late, reason: "RECONCILER_OBSERVATION_TOO_LATE" },
    ]);

    const decisions = await readDecisions(f.topics.decisions);
    const expired = decisions.filter((d) => d.type === "CorrelationExpired");
    expect(expired.map((d) => [d.correlationId, d.decidedAt])).toEqual([[stale, 6_200]]);
    const expected = replay([...first, ...second], defaultRuleSet, {
      policy: seededPolicy(),
      retention: { finishedMs: 2_000, staleMs: 5_000 },
    });
    expect(byCorrelation(decisions)).toEqual(byCorrelation(expected));
  }, 180_000);
});
