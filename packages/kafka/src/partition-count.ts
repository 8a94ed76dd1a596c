/**
 * The partition count of the correlation-keyed topics (observations, decisions, commands and the
 * changelog, co-partitioned by correlation id). It is chosen when the topics are created
 * (`A2A_LEDGER_PARTITIONS`) and cannot change in place: murmur2(key) % count places each correlation,
 * and the changelog and the reconciler's state are keyed by partition number. Every reader and writer
 * therefore learns it from the topics' metadata (`installedPartitions`), never from the setting.
 */
import type { Admin } from "kafkajs";

/** The setting that sizes the correlation-keyed topics when they are created. */
export const partitionsSettingName = "A2A_LEDGER_PARTITIONS";

/** The partition count of new correlation-keyed topics when `A2A_LEDGER_PARTITIONS` is unset. */
export const defaultPartitions = 6;

/** The bounds of `A2A_LEDGER_PARTITIONS`. */
export const partitionsBounds = { min: 1, max: 1024 } as const;

export class PartitionsSettingError extends Error {
  override name = "PartitionsSettingError";
}

/**
 * The partition count `A2A_LEDGER_PARTITIONS` asks for (`defaultPartitions` when unset or blank); a
 * value that is not a whole number from 1 to 1024 is a PartitionsSettingError naming it.
 */
export function partitionsFromEnv(env: NodeJS.ProcessEnv = process.env): number {
  const raw = env[partitionsSettingName];
  if (raw === undefined || raw.trim() === "") return defaultPartitions;
  const n = /^\s*\d+\s*$/.test(raw) ? Number(raw) : Number.NaN;
  if (!Number.isSafeInteger(n) || n < partitionsBounds.min || n > partitionsBounds.max) {
    throw new PartitionsSettingError(
      `${partitionsSettingName}=${JSON.stringify(raw)}: expected a whole number from ${partitionsBounds.min} to ${partitionsBounds.max} (the partition count of the correlation-keyed topics when they are created)`,
    );
  }
  return n;
}

/** A topic and how many partitions it has. */
export interface TopicPartitionCount {
  topic: string;
  partitions: number;
}

export class PartitionDisagreementError extends Error {
  override name = "PartitionDisagreementError";
  constructor(readonly counts: readonly TopicPartitionCount[]) {
    super(
      `The correlation-keyed topics must have one partition count, and they disagree:\n${counts.map((c) => `  ${c.topic}: ${c.partitions} partitions`).join("\n")}\n` +
        "A correlation would be placed on different partitions in each. Re-create the topics with one count (docs: moving a ledger to a new partition count); nothing was changed.",
    );
  }
}

/**
 * The one partition count of co-partitioned topics, or a PartitionDisagreementError naming each topic
 * and its count when they differ; undefined for no topics.
 */
export function agreedPartitions(counts: readonly TopicPartitionCount[]): number | undefined {
  const distinct = new Set(counts.map((c) => c.partitions));
  if (distinct.size > 1) throw new PartitionDisagreementError(counts);
  return counts[0]?.partitions;
}

/**
 * Each topic's partition count, from the cluster's metadata. A topic that is missing (or has no
 * partitions in the answer) is an error naming it: a reader cannot place a key without its count.
 */
export async function partitionCounts(admin: Admin, topics: readonly string[]): Promise<TopicPartitionCount[]> {
  const metadata = await admin.fetchTopicMetadata({ topics: [...topics] });
  return topics.map((topic) => {
    const partitions = metadata.topics.find((t) => t.name === topic)?.partitions.length ?? 0;
    if (partitions === 0) throw new Error(`${topic} has no partitions in the cluster's metadata: create the ledger's topics first (a2a-ledger up, npm run infra:up)`);
    return { topic, partitions };
  });
}

/**
 * The installed partition count of co-partitioned topics (the ledger's correlation-keyed topics), read
 * from the metadata; a PartitionDisagreementError when they disagree.
 */
export async function installedPartitions(admin: Admin, topics: readonly string[]): Promise<number> {
  if (topics.length === 0) throw new Error("installedPartitions needs at least one topic");
  const counts = await partitionCounts(admin, topics);
  return agreedPartitions(counts) as number;
}
