/**
 * The trust policy topic (a2a.policy.v1) as the CLI reads and writes it: every recorded version, read
 * whole (read_committed) into the history the core's `policyAt` judges by; a new version written under
 * its version number as key, so compaction keeps every version. Both retry a retriable Kafka error
 * within the CLI's bound (kafka-retries.ts).
 */
import { withPolicyVersion } from "@a2a-ledger/core";
import { KafkaRetriesExhaustedError } from "@a2a-ledger/kafka";
import type { TrustPolicy } from "@a2a-ledger/schemas";
import type { Cluster } from "./cluster.ts";
import { decodeRecord } from "./decode-record.ts";
import type { SkippedRecord } from "./observation-topic.ts";
import { withKafkaRetries } from "./kafka-retries.ts";
import { streamTopic, TopicUnavailableError } from "./topic-stream.ts";

export interface RecordedPolicy {
  /** Every version, in the order first seen; a version recorded twice is its last record. */
  versions: TrustPolicy[];
  skipped: SkippedRecord[];
}

export async function readPolicyHistory(cluster: Cluster, topic = cluster.topics.policy): Promise<RecordedPolicy> {
  let versions: TrustPolicy[] = [];
  const skipped: SkippedRecord[] = [];
  for await (const slice of streamTopic(cluster.kafka, topic, { groupPrefix: "a2a-ledger-replay-policy" })) {
    for (const record of slice) {
      const where = `${topic}[${record.partition}]@${record.offset}`;
      const decoded = await decodeRecord(cluster.serde, record);
      if (typeof decoded === "string") skipped.push({ where, reason: decoded });
      else if (decoded.record.type !== "TrustPolicy")
        skipped.push({ where, reason: `a ${decoded.typeName} record, not a trust policy` });
      else {
        const { type: _type, ...version } = decoded.record;
        versions = withPolicyVersion(versions, version);
      }
    }
  }
  return { versions, skipped };
}

/**
 * Writes one version (acknowledged by every in-sync replica before this resolves). A retriable failure is
 * retried within the CLI's bound; a version written twice is the same record under the same key.
 */
export async function writePolicyVersion(
  cluster: Cluster,
  policy: TrustPolicy,
  topic = cluster.topics.policy,
): Promise<void> {
  const value = await cluster.serde.encode({ type: "TrustPolicy", ...policy });
  try {
    await withKafkaRetries(`writing ${topic}`, async () => {
      const producer = cluster.kafka.producer({
        idempotent: true,
        maxInFlightRequests: 1,
        allowAutoTopicCreation: false,
      });
      try {
        await producer.connect();
        await producer.send({ topic, acks: -1, messages: [{ key: String(policy.version), value }] });
      } finally {
        await producer.disconnect().catch(() => undefined);
      }
    });
  } catch (e) {
    if (e instanceof KafkaRetriesExhaustedError)
      throw new TopicUnavailableError(`cannot write ${topic}: ${e.message}`, { cause: e });
    throw e;
  }
}
