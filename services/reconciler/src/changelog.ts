/**
 * Per-correlation state lives in the compacted changelog, one record per correlation on the same
 * partition number as its observations (written there explicitly), encoded by the rule set's model
 * (`decider.serialize`: a format byte and Avro binary since default/2, see core's correlation/codec.ts;
 * the frozen default/1 writes JSON text). A restore reads only the changelog partitions it restores, up
 * to their end — from the beginning, or from a local snapshot's offset (`RestoreSeed`, state-snapshot.ts) —
 * and decodes each value with `decider.deserialize`. It takes as long as they are large:
 * there is no total time limit, only a stall guard (no progress for `stallMs` fails it).
 */
import type { Decider, LedgerState } from "@a2a-ledger/core";
import { type Admin, type Kafka, type PartitionProgress, TopicReader } from "@a2a-ledger/kafka";

export type PartitionStates = Map<number, Map<string, LedgerState>>;

/**
 * The changelog key of a partition's stream time (retention: the latest occurredAt folded on it), beside
 * its correlations' states: written, with the partition given explicitly, by every transaction that moved
 * it, so a restore resumes eviction exactly where the last commit left it. No correlation id starts with NUL.
 */
export const streamTimeKey = "\u0000stream-time";

/** What the restore of one partition read and kept. */
export interface PartitionRestored {
  partition: number;
  /** Records read (values and tombstones). */
  records: number;
  /** Correlations kept (the partition's state). */
  correlations: number;
  /** The offset read up to: the partition's last stable offset when the restore began. */
  offset: string;
  /** From the start of the read until this partition was read to its end. */
  ms: number;
}

export interface RestoreWatch {
  /** A read that makes no progress for this long fails (the consumer restarts); a long one that moves never does. */
  stallMs: number;
  /** About every second: each partition's end and position. */
  progress?: (partitions: readonly PartitionProgress[]) => void;
  /** Once per partition, when it was read to its end. */
  restored?: (partition: PartitionRestored) => void;
}

export interface Restored {
  states: PartitionStates;
  /** Each partition's stream time as last committed (absent: never written, a changelog from before retention). */
  streamTimes: Map<number, number>;
  /** The offset each partition was read up to (its last stable offset when the restore began). */
  upTo: Record<number, string>;
}

/** A partition's state as of a changelog offset (a local snapshot): the restore reads on from there. */
export interface RestoreSeed {
  offset: bigint;
  states: Map<string, LedgerState>;
  streamTime: number | null;
}

export async function restoreChangelog(
  kafka: Kafka,
  admin: Admin,
  topic: string,
  partitions: ReadonlySet<number>,
  groupPrefix: string,
  decider: Decider,
  watch: RestoreWatch,
  seeds: ReadonlyMap<number, RestoreSeed> = new Map(),
): Promise<Restored> {
  const states: PartitionStates = new Map(
    [...partitions].map((p) => [p, seeds.get(p)?.states ?? new Map<string, LedgerState>()]),
  );
  const records = new Map([...partitions].map((p) => [p, 0]));
  const streamTimes = new Map<number, number>();
  for (const [p, seed] of seeds) if (partitions.has(p) && seed.streamTime !== null) streamTimes.set(p, seed.streamTime);
  const reader = new TopicReader(
    kafka,
    admin,
    topic,
    (partition, message) => {
      const forPartition = states.get(partition);
      if (forPartition === undefined || message.key === null) return;
      records.set(partition, (records.get(partition) ?? 0) + 1);
      const correlationId = message.key.toString("utf8");
      if (correlationId === streamTimeKey) {
        const time = message.value === null ? Number.NaN : Number(message.value.toString("utf8"));
        if (Number.isSafeInteger(time)) streamTimes.set(partition, time);
        return;
      }
      if (message.value === null) forPartition.delete(correlationId);
      else forPartition.set(correlationId, decider.deserialize(message.value));
    },
    `${groupPrefix}-restore`,
    {
      partitions: [...partitions],
      startAt: new Map([...seeds].filter(([p]) => partitions.has(p)).map(([p, seed]) => [p, seed.offset])),
    },
  );
  const started = Date.now();
  await reader.start();
  let upTo: Record<number, string>;
  try {
    upTo = await reader.caughtUp(
      {
        stallMs: watch.stallMs,
        ...(watch.progress === undefined ? {} : { progress: watch.progress }),
        reached: (partition, end) =>
          watch.restored?.({
            partition,
            records: records.get(partition) ?? 0,
            correlations: states.get(partition)?.size ?? 0,
            offset: end,
            ms: Date.now() - started,
          }),
      },
      partitions,
    );
  } finally {
    await reader.stop();
  }
  return { states, streamTimes, upTo };
}
