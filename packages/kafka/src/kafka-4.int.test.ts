/**
 * kafkajs 2.2.4 against Kafka 4.1: the APIs the project relies on, end to end.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createKafka, type Admin } from "./client.ts";
import { endpointsFromEnv } from "@a2a-ledger/client-config";
import { createTestTopic, readMessages } from "./testing.ts";

const kafka = createKafka({ brokers: endpointsFromEnv().brokers, clientId: "kafka4-smoke" });
let admin: Admin;
const created: string[] = [];

beforeAll(async () => {
  admin = kafka.admin();
  await admin.connect();
});
afterAll(async () => {
  if (created.length) await admin.deleteTopics({ topics: created });
  await admin.disconnect();
});

describe("kafkajs with Kafka 4.1", () => {
  it("puts a key on the partition Java's murmur2 partitioner would choose", async () => {
    const topic = await createTestTopic(admin, "partitioner", 6);
    created.push(topic);
    const producer = kafka.producer({ idempotent: true });
    await producer.connect();
    // Partitions computed by org.apache.kafka.clients.producer.internals.BuiltInPartitioner
    // (murmur2(key) & 0x7fffffff) % 6 for these keys.
    const expected: Record<string, number> = {
      "corr-1": javaPartition("corr-1", 6),
      alpha: javaPartition("alpha", 6),
      "a2a-ledger": javaPartition("a2a-ledger", 6),
    };
    const results = await producer.send({
      topic,
      acks: -1,
      messages: Object.keys(expected).map((key) => ({ key, value: key })),
    });
    await producer.disconnect();
    const read = await readMessages(kafka, topic, 3);
    for (const message of read) expect(message.partition, message.key ?? "").toBe(expected[message.key ?? ""]);
    expect(results.length).toBeGreaterThan(0);
  });

  it("commits a consume-transform-produce transaction with offsets, and hides an aborted one from read_committed readers", async () => {
    const input = await createTestTopic(admin, "tx-in");
    const output = await createTestTopic(admin, "tx-out");
    created.push(input, output);
    const plain = kafka.producer();
    await plain.connect();
    await plain.send({
      topic: input,
      messages: [
        { key: "k", value: "one" },
        { key: "k", value: "two" },
      ],
    });
    await plain.disconnect();

    const groupId = `tx-group-${input}`;
    const producer = kafka.producer({ transactionalId: `tx-${input}`, idempotent: true, maxInFlightRequests: 1 });
    await producer.connect();
    const aborted = await producer.transaction();
    await aborted.send({ topic: output, messages: [{ key: "k", value: "ABORTED" }] });
    await aborted.abort();

    const consumer = kafka.consumer({ groupId });
    await consumer.connect();
    await consumer.subscribe({ topic: input, fromBeginning: true });
    let done!: () => void;
    const finished = new Promise<void>((r) => (done = r));
    let seen = 0;
    await consumer.run({
      autoCommit: false,
      eachMessage: async ({ topic, partition, message }) => {
        const tx = await producer.transaction();
        await tx.send({ topic: output, messages: [{ key: "k", value: String(message.value).toUpperCase() }] });
        await tx.sendOffsets({
          consumerGroupId: groupId,
          topics: [{ topic, partitions: [{ partition, offset: String(Number(message.offset) + 1) }] }],
        });
        await tx.commit();
        if (++seen === 2) done();
      },
    });
    await Promise.race([
      finished,
      new Promise((_, reject) => setTimeout(() => reject(new Error("transactional loop timed out")), 30_000)),
    ]);
    await consumer.disconnect();
    await producer.disconnect();

    const out = await readMessages(kafka, output, 2, 10_000);
    expect(out.map((m) => String(m.value))).toEqual(["ONE", "TWO"]);
    const committed = await admin.fetchOffsets({ groupId, topics: [input] });
    expect(committed[0]?.partitions[0]?.offset).toBe("2");
  });
});

/** Kafka's Utils.murmur2, as the Java client partitions keyed records. */
function javaPartition(key: string, partitions: number): number {
  const data = Buffer.from(key, "utf8");
  const m = 0x5bd1e995;
  let h = (0x9747b28c ^ data.length) | 0;
  let i = 0;
  for (; i + 4 <= data.length; i += 4) {
    let k = data.readInt32LE(i);
    k = Math.imul(k, m);
    k ^= k >>> 24;
    k = Math.imul(k, m);
    h = Math.imul(h, m) ^ k;
  }
  const rest = data.length - i;
  if (rest === 3) h ^= (data[i + 2] as number) << 16;
  if (rest >= 2) h ^= (data[i + 1] as number) << 8;
  if (rest >= 1) {
    h ^= data[i] as number;
    h = Math.imul(h, m);
  }
  h ^= h >>> 13;
  h = Math.imul(h, m);
  h ^= h >>> 15;
  return (h & 0x7fffffff) % partitions;
}
