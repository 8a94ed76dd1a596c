/**
 * The oracle for a reconciler under an order-sensitive rule set. Under default/4 a lost task is evidence
 * about its worker for every correlation, so which partition the reconciler folded first changes what it
 * decided, and a replay merged by time is no oracle. This one replays the observations topic in the
 * order the reconciler's transactions recorded (a2a.reconciler.batches.v1), each batch against the
 * capability table and policy versions it read (the core's BatchOrderFold), and says how many
 * observations the records held: every observation in exactly one batch, or the records are wrong.
 *
 * An observation in two committed batches would be folded twice. kafkajs fetches a new owner's
 * position at the assignment, before its producer fences the old owner, so a batch the old owner commits
 * in between is fetched again; the reconciler reads the committed offset again after the fence and
 * skips what lies below it (already-committed.int.test.ts). So no observation may be held by two batches:
 * each one that is, is described (with the producer epochs of the two batches) in `refolds`.
 */
import { BatchOrderFold, createDecider, defaultRuleSet, type PolicySource, recordedBatch } from "@a2a-ledger/core";
import type { Decision, Observation, ReconcilerBatch } from "@a2a-ledger/schemas";
import { type Fixture, readAll, seededPolicy, serde } from "./harness.ts";

export interface RecordedReplay {
  decisions: Decision[];
  /** Observations on the topic. */
  observations: number;
  /** Distinct observations the batch records held. */
  covered: number;
  /** Batches that held an observation an earlier batch held too, each described. */
  refolds: string[];
}

export async function replayInRecordedOrder(
  f: Fixture,
  policy: PolicySource = seededPolicy(),
  ruleSet = defaultRuleSet,
): Promise<RecordedReplay> {
  const byPartition = new Map<number, { offset: number; observation: Observation }[]>();
  let observations = 0;
  for (const r of await readAll(f.topics.observations)) {
    const observation = (await serde.decode(r.value as Buffer)).record as Observation;
    let list = byPartition.get(r.partition);
    if (list === undefined) byPartition.set(r.partition, (list = []));
    list.push({ offset: r.offset, observation });
    observations++;
  }
  const folder = new BatchOrderFold(createDecider(ruleSet), policy);
  const decisions: Decision[] = [];
  const folded = new Set<Observation>();
  const refolds: string[] = [];
  /** The producer epoch of the batch record that last held each observation. */
  const heldBy = new Map<Observation, number | null>();
  for (const r of await readAll(f.topics.batches)) {
    const batch = recordedBatch((await serde.decode(r.value as Buffer)).record as ReconcilerBatch);
    const { fromOffset: from, toOffset: to } = batch;
    const held =
      from === null || to === null
        ? []
        : (byPartition.get(batch.partition) ?? []).filter((o) => o.offset >= from && o.offset <= to);
    const again = held.filter((o) => folded.has(o.observation));
    if (again.length > 0)
      refolds.push(
        `partition ${batch.partition}, batch ${from}-${to} (producer epoch ${r.producerEpoch}): ${again.length} observation(s) held before, at offsets ${again.map((o) => o.offset).join(", ")} (epoch ${heldBy.get((again[0] as { observation: Observation }).observation)})`,
      );
    for (const o of held) heldBy.set(o.observation, r.producerEpoch);
    for (const o of held) folded.add(o.observation);
    decisions.push(
      ...folder.fold(
        held.map((o) => o.observation),
        batch,
      ).decisions,
    );
  }
  // What no batch holds (the reconciler has not read it): after them, by time.
  const rest = [...byPartition.values()]
    .flat()
    .map((o) => o.observation)
    .filter((o) => !folded.has(o))
    .sort((a, b) => a.occurredAt - b.occurredAt);
  if (rest.length > 0) decisions.push(...folder.fold(rest).decisions);
  return { decisions, observations, covered: folded.size, refolds };
}
