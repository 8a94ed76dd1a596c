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
 * A broker answers from its own view of the cluster, which learns of a topic created a moment ago
 * (another service's start, `a2a-ledger up`) a little later than the controller: a topic not seen, or
 * a metadata answer of UNKNOWN_TOPIC_OR_PARTITION or LEADER_NOT_AVAILABLE, is asked again for up to
 * `settleMs` before it counts as missing.
 */
export async function partitionCounts(
  admin: Admin,
  topics: readonly string[],
  settleMs = 15_000,
): Promise<TopicPartitionCount[]> {
  const deadline = Date.now() + settleMs;
  for (let delay = 100; ; delay = Math.min(delay * 2, 1_000)) {
    const counts = await countsOnce(admin, topics).catch((error: unknown) => {
      if (isUnsettled(error)) return new MissingTopicsError([...topics]);
      throw error;
    });
    if (!(counts instanceof MissingTopicsError)) return counts;
    if (Date.now() + delay > deadline) throw counts;
    await new Promise((resolve) => setTimeout(resolve, delay));
  }
}

async function countsOnce(
  admin: Admin,
  topics: readonly string[],
): Promise<TopicPartitionCount[] | MissingTopicsError> {
  // kafkajs asks for every topic at once and fails the whole request when one is missing: the listing names which.
  const present = new Set(await admin.listTopics());
  const missing = topics.filter((t) => !present.has(t));
  if (missing.length > 0) return new MissingTopicsError(missing);
  const metadata = await admin.fetchTopicMetadata({ topics: [...topics] });
  const counts = topics.map((topic) => ({
    topic,
    partitions: metadata.topics.find((t) => t.name === topic)?.partitions.length ?? 0,
  }));
  const empty = counts.filter((c) => c.partitions === 0).map((c) => c.topic);
  return empty.length > 0 ? new MissingTopicsError(empty) : counts;
}

/** A metadata answer from a broker that has not learned of the topic yet. */
const isUnsettled = (error: unknown): boolean => {
  const type = (error as { type?: unknown } | null)?.type;
  return type === "UNKNOWN_TOPIC_OR_PARTITION" || type === "LEADER_NOT_AVAILABLE";
};

export class MissingTopicsError extends Error {
  override name = "MissingTopicsError";
  constructor(readonly topics: readonly string[]) {
    super(
      `${topics.join(", ")} ${topics.length === 1 ? "does" : "do"} not exist: a reader or writer needs each topic's partition count. Create the ledger's topics first (npm run infra:up, a2a-ledger up, or the projector's start, with A2A_LEDGER_PARTITIONS and A2A_LEDGER_TOPIC_SUFFIX as wanted)`,
    );
  }
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
