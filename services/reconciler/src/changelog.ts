/**
 * Per-correlation state lives in the compacted changelog, one record per correlation on the same
 * partition number as its observations (written there explicitly), encoded by the rule set's model
 * (`decider.serialize`: a format byte and Avro binary since default/2, see core's correlation/codec.ts;
 * the frozen default/1 writes JSON text). On assignment the reconciler reads the changelog up to its end,
 * decodes each value with `decider.deserialize` and keeps the partitions it now owns.
 */
import type { Decider, LedgerState } from "@a2a-ledger/core";
import { type Admin, type Kafka, TopicReader } from "@a2a-ledger/kafka";

export type PartitionStates = Map<number, Map<string, LedgerState>>;

export interface Restored {
  states: PartitionStates;
  /** The offset each partition was read up to (its last stable offset when the restore began). */
  upTo: Record<number, string>;
}

export async function restoreChangelog(kafka: Kafka, admin: Admin, topic: string, partitions: ReadonlySet<number>, groupPrefix: string, decider: Decider): Promise<Restored> {
  const states: PartitionStates = new Map([...partitions].map((p) => [p, new Map<string, LedgerState>()]));
  const reader = new TopicReader(kafka, admin, topic, (partition, message) => {
    const forPartition = states.get(partition);
    if (forPartition === undefined || message.key === null) return;
    const correlationId = message.key.toString("utf8");
    if (message.value === null) forPartition.delete(correlationId);
    else forPartition.set(correlationId, decider.deserialize(message.value));
  }, `${groupPrefix}-restore`);
  await reader.start();
  let upTo: Record<number, string>;
  try {
    upTo = await reader.caughtUp(120_000, partitions);
  } finally {
    await reader.stop();
  }
  return { states, upTo };
}
