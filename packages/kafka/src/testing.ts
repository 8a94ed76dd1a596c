/**
 * Test helpers against a real broker: throwaway topics and bounded reads.
 */
import { randomUUID } from "node:crypto";
import type { Admin, Kafka, KafkaMessage } from "kafkajs";
import { createTopicsAndWait } from "./create-topics.ts";
import { endOffsets } from "./end-offsets.ts";
import { TopicReader } from "./topic-reader.ts";
import { replicationFor } from "./topics.ts";

/** A throwaway topic, replicated as the ledger's topics are on this cluster. */
export async function createTestTopic(
  admin: Admin,
  prefix: string,
  partitions = 1,
  configs: Record<string, string> = {},
): Promise<string> {
  const name = `test.${prefix}.${randomUUID().slice(0, 8)}`;
  const replication = replicationFor((await admin.describeCluster()).brokers.length);
  await createTopicsAndWait(admin, [
    {
      topic: name,
      numPartitions: partitions,
      replicationFactor: replication.factor,
      configEntries: Object.entries({ ...replication.configs, ...configs }).map(([n, value]) => ({ name: n, value })),
    },
  ]);
  return name;
}

export interface ReadMessage {
  partition: number;
  offset: string;
  key: string | null;
  value: Buffer | null;
  headers: KafkaMessage["headers"];
  /** The record's timestamp (ms): the producer's clock when it was sent, unless the topic stamps append time. */
  timestamp: number;
}

const readMessage = (partition: number, message: KafkaMessage): ReadMessage => ({
  partition,
  offset: message.offset,
  key: message.key?.toString() ?? null,
  value: message.value,
  headers: message.headers,
  timestamp: Number(message.timestamp),
});

/**
 * Reads `topic` from the beginning with a throwaway group until `count` messages arrived or
 * `timeoutMs` passed; returns what arrived (the caller asserts on it). read_committed by default.
 */
export async function readMessages(
  kafka: Kafka,
  topic: string,
  count: number,
  timeoutMs = 20_000,
): Promise<ReadMessage[]> {
  const consumer = kafka.consumer({
    groupId: `test-reader-${randomUUID()}`,
    readUncommitted: false,
    maxWaitTimeInMs: 200,
  });
  const messages: ReadMessage[] = [];
  await consumer.connect();
  try {
    await consumer.subscribe({ topic, fromBeginning: true });
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, timeoutMs);
      void consumer.run({
        eachMessage: async ({ partition, message }) => {
          messages.push(readMessage(partition, message));
          if (messages.length >= count) {
            clearTimeout(timer);
            resolve();
          }
        },
      });
    });
  } finally {
    await consumer.disconnect();
  }
  return messages;
}

/**
 * Every record of `topic` up to its end offsets now (read_committed), in each partition's order: call it
 * once the writes it should see were acknowledged. Unlike `readMessages`, it never returns a partial read
 * on a slow cluster: it fails, naming the partitions behind, when the end is not reached in `timeoutMs`.
 */
export async function readToEnd(kafka: Kafka, admin: Admin, topic: string, timeoutMs = 60_000): Promise<ReadMessage[]> {
  const messages: ReadMessage[] = [];
  const reader = new TopicReader(
    kafka,
    admin,
    topic,
    (partition, message) => {
      messages.push(readMessage(partition, message));
    },
    "test-read-to-end",
    { crash: "fail" },
  );
  await reader.start();
  try {
    await reader.caughtUp(timeoutMs);
  } finally {
    await reader.stop();
  }
  return messages;
}

/** Sum of end offsets of a topic: how many records it has ever held. */
export async function topicEndOffset(admin: Admin, topic: string): Promise<number> {
  const offsets = await admin.fetchTopicOffsets(topic);
  return offsets.reduce((sum, p) => sum + Number(p.high), 0);
}

export interface ProduceOptions<T> {
  /** The record key of an item (the ledger keys by correlationId). */
  key(item: T): string;
  /** The record value of an item (a Serde's encode). */
  encode(item: T): Promise<Buffer>;
  /** The record's CreateTime (epoch ms) of an item; the producer's clock unless told. */
  timestamp?(item: T): number;
  /** Items per send; 500 unless told. */
  chunk?: number;
  /** Records sent as they are after the items (bad bytes, foreign records). */
  raw?: readonly { key: string; value: Buffer | null }[];
}

/** Produces `items` to `topic` in order, in chunks, with an idempotent producer and acks=all. */
export async function produceAll<T>(
  kafka: Kafka,
  topic: string,
  items: readonly T[],
  options: ProduceOptions<T>,
): Promise<void> {
  const chunk = options.chunk ?? 500;
  const producer = kafka.producer({ idempotent: true });
  await producer.connect();
  try {
    for (let i = 0; i < items.length; i += chunk) {
      const messages = await Promise.all(
        items.slice(i, i + chunk).map(async (item) => ({
          key: options.key(item),
          value: await options.encode(item),
          ...(options.timestamp === undefined ? {} : { timestamp: String(options.timestamp(item)) }),
        })),
      );
      await producer.send({ topic, acks: -1, messages });
    }
    if (options.raw !== undefined && options.raw.length > 0)
      await producer.send({ topic, acks: -1, messages: [...options.raw] });
  } finally {
    await producer.disconnect();
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Waits until consumer group `groupId` has committed offsets to the end of every partition of `topic`. */
export async function waitForGroupAtEnd(
  admin: Admin,
  groupId: string,
  topic: string,
  timeoutMs = 120_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const ends = await endOffsets(admin, topic, Math.max(deadline, Date.now() + 5_000));
    // A coordinator that is loading or moving (after a broker restart) answers with a retriable error: ask again.
    const committed = await admin.fetchOffsets({ groupId, topics: [topic] }).catch((error: unknown) => {
      if ((error as { retriable?: unknown }).retriable === true && Date.now() < deadline) return undefined;
      throw error;
    });
    if (committed === undefined) {
      await sleep(250);
      continue;
    }
    const offsets = new Map((committed[0]?.partitions ?? []).map((p) => [p.partition, Number(p.offset)]));
    if (ends.every((e) => Number(e.high) === 0 || (offsets.get(e.partition) ?? -1) >= Number(e.high))) return;
    if (Date.now() > deadline)
      throw new Error(
        `group ${groupId} did not reach the end of ${topic} within ${timeoutMs} ms: ends ${JSON.stringify(ends.map((e) => [e.partition, e.high]))}, committed ${JSON.stringify([...offsets])}`,
      );
    await sleep(250);
  }
}
