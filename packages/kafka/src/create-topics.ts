/**
 * Creating topics and waiting until every partition has a leader that the whole cluster knows of.
 *
 * kafkajs' `createTopics({ waitForLeaders: true })` asks one broker's metadata a few times; on a
 * loaded three-node cluster the answer can still be UNKNOWN_TOPIC_OR_PARTITION or
 * LEADER_NOT_AVAILABLE when its retries run out, and it throws although the topic was created. Here
 * that wait goes on, bounded, until the metadata names a leader for every partition.
 */
import type { Admin, ITopicConfig } from "kafkajs";

const retriableTypes = new Set([
  "UNKNOWN_TOPIC_OR_PARTITION",
  "LEADER_NOT_AVAILABLE",
  "NOT_LEADER_OR_FOLLOWER",
  "REQUEST_TIMED_OUT",
  "NOT_CONTROLLER",
]);

const isRetriable = (err: unknown): boolean => {
  const e = err as { type?: unknown; retriable?: unknown; name?: unknown } | null;
  return (
    e !== null &&
    typeof e === "object" &&
    ((typeof e.type === "string" && retriableTypes.has(e.type)) ||
      e.name === "KafkaJSNumberOfRetriesExceeded" ||
      e.retriable === true)
  );
};

function refusal(err: unknown): Error {
  const errors = (err as { errors?: unknown }).errors;
  if (!Array.isArray(errors) || errors.length === 0) return err instanceof Error ? err : new Error(String(err));
  const reasons = errors.map((e: { topic?: unknown; type?: unknown; message?: unknown }) =>
    `${String(e.topic ?? "?")}: ${String(e.type ?? "")} ${String(e.message ?? "")}`.trim(),
  );
  return new Error(`topic creation refused: ${reasons.join("; ")}`, { cause: err });
}

/** Whether every partition of every topic has a leader in `admin`'s metadata. */
async function leadersKnown(admin: Admin, topics: readonly string[]): Promise<boolean> {
  try {
    const { topics: described } = await admin.fetchTopicMetadata({ topics: [...topics] });
    return (
      described.length === topics.length &&
      described.every((t) => t.partitions.length > 0 && t.partitions.every((p) => p.leader >= 0))
    );
  } catch (err) {
    if (isRetriable(err)) return false;
    throw err;
  }
}

/**
 * Creates `topics` (those that exist already are left alone) and resolves once each partition has a
 * leader, or rejects after `timeoutMs` naming the topics still without one.
 */
export async function createTopicsAndWait(admin: Admin, topics: ITopicConfig[], timeoutMs = 60_000): Promise<void> {
  if (topics.length === 0) return;
  try {
    await admin.createTopics({ waitForLeaders: true, topics });
  } catch (err) {
    // A topic that exists already is not an error for kafkajs (it answers false); a real refusal is,
    // and says for which topic and why (kafkajs only says "Topic creation errors").
    if (!isRetriable(err)) throw refusal(err);
  }
  const names = topics.map((t) => t.topic);
  const deadline = Date.now() + timeoutMs;
  for (let delay = 100; !(await leadersKnown(admin, names)); delay = Math.min(delay * 2, 2_000)) {
    if (Date.now() > deadline)
      throw new Error(`topics ${names.join(", ")} still have partitions without a leader after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, delay));
  }
}
