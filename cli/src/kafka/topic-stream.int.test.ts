import { createRequire } from "node:module";
import { createTestTopic } from "@a2a-ledger/kafka/testing";
import { type Admin, type Consumer, createKafka, type Kafka, logLevel } from "@a2a-ledger/kafka";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { endpoints, kafka } from "../../test/ledger-stack.ts";
import { kafkaRetries, setKafkaRetries } from "./kafka-retries.ts";
import { streamTopic, type TopicRecord, TopicUnavailableError } from "./topic-stream.ts";

const require = createRequire(import.meta.url);
/** A broker's error code as kafkajs raises it (6: NOT_LEADER_FOR_PARTITION, 29: TOPIC_AUTHORIZATION_FAILED). */
const { createErrorFromCode } = require("kafkajs/src/protocol/error.js") as {
  createErrorFromCode(code: number): Error;
};

let admin: Admin;
const topics: string[] = [];

beforeAll(async () => {
  admin = kafka.admin();
  await admin.connect();
});
afterAll(async () => {
  if (topics.length > 0) await admin.deleteTopics({ topics }).catch(() => undefined);
  await admin.disconnect();
});

async function readAll(
  topic: string,
  options: { highWater?: number; sliceSize?: number } = {},
  client: Kafka = kafka,
): Promise<TopicRecord[]> {
  const out: TopicRecord[] = [];
  for await (const slice of streamTopic(client, topic, { groupPrefix: "topic-stream-test", ...options })) {
    expect(slice.length).toBeLessThanOrEqual(options.sliceSize ?? 10_000);
    out.push(...slice);
  }
  return out;
}

describe("streamTopic", () => {
  it("merges the partitions by record timestamp, each in its own order, however small its buffers", async () => {
    const topic = await createTestTopic(admin, "merge", 3);
    topics.push(topic);
    const producer = kafka.producer({ idempotent: true });
    await producer.connect();
    // Partition p gets timestamps 1000 + 3i + p: the merge interleaves them p0, p1, p2, p0, …
    for (let p = 0; p < 3; p++) {
      await producer.send({
        topic,
        acks: -1,
        messages: Array.from({ length: 400 }, (_, i) => ({
          partition: p,
          key: `k${p}`,
          value: `${p}:${i}`,
          timestamp: String(1_000 + 3 * i + p),
        })),
      });
    }
    // A transaction that is aborted leaves records no read_committed reader may see.
    const tx = kafka.producer({ transactionalId: `${topic}-tx`, idempotent: true, maxInFlightRequests: 1 });
    await tx.connect();
    const aborted = await tx.transaction();
    await aborted.send({ topic, messages: [{ partition: 1, key: "k1", value: "aborted", timestamp: "1" }] });
    await aborted.abort();
    await tx.disconnect();
    await producer.disconnect();

    const records = await readAll(topic, { highWater: 10, sliceSize: 7 });
    expect(records).toHaveLength(1_200);
    expect(records.map((r) => r.value?.toString())).toEqual(
      Array.from({ length: 1_200 }, (_, n) => `${n % 3}:${Math.floor(n / 3)}`),
    );
  }, 120_000);

  it("reads nothing from an empty topic and ends", async () => {
    const topic = await createTestTopic(admin, "empty", 2);
    topics.push(topic);
    expect(await readAll(topic)).toEqual([]);
  }, 60_000);
});

/**
 * The real broker, with faults a broker restart causes: kafkajs's client wrapped so that the look-up of
 * end offsets is answered as by a broker that is no longer the leader, and the first reader's fetches fail
 * the same way after its first batch, until kafkajs gives that consumer up.
 */
function faultyKafka(faults: { offsetLookups: number; readerCode?: number; lookupCode?: number }): {
  kafka: Kafka;
  consumers: () => number;
} {
  // Few retries of its own, so that kafkajs gives up quickly and the CLI's retry is what is tested.
  const inner = createKafka({
    brokers: endpoints.brokers,
    clientId: "cli-test-faults",
    logLevel: logLevel.NOTHING,
    retries: 1,
  });
  let lookups = 0;
  let consumers = 0;
  const forward = <T extends object>(target: T, override: (name: string | symbol) => unknown) =>
    new Proxy(target, {
      get(t, name) {
        const replaced = override(name);
        if (replaced !== undefined) return replaced;
        const value = Reflect.get(t, name) as unknown;
        return typeof value === "function" ? (value as (...args: unknown[]) => unknown).bind(t) : value;
      },
    });
  const admin = (): Admin => {
    const real = inner.admin();
    return forward(real, (name) =>
      name === "fetchTopicOffsets"
        ? async (topic: string) => {
            if (++lookups <= faults.offsetLookups) throw createErrorFromCode(faults.lookupCode ?? 6);
            return real.fetchTopicOffsets(topic);
          }
        : undefined,
    );
  };
  const consumer = (config: Parameters<Kafka["consumer"]>[0]): Consumer => {
    const real = inner.consumer(config);
    if (++consumers > 1 || faults.readerCode === undefined) return real;
    const code = faults.readerCode;
    let batches = 0;
    return forward(real, (name) =>
      name === "run"
        ? (run: NonNullable<Parameters<Consumer["run"]>[0]>) =>
            real.run({
              ...run,
              eachBatch: async (payload) => {
                if (++batches > 1) throw createErrorFromCode(code);
                await run.eachBatch?.(payload);
              },
            })
        : undefined,
    );
  };
  return {
    kafka: forward(inner, (name) => (name === "admin" ? admin : name === "consumer" ? consumer : undefined)),
    consumers: () => consumers,
  };
}

describe("streamTopic after a broker restart", () => {
  const saved = kafkaRetries();
  afterEach(() => setKafkaRetries(saved));

  async function filledTopic(label: string): Promise<string> {
    const topic = await createTestTopic(admin, label, 2);
    topics.push(topic);
    const producer = kafka.producer({ idempotent: true });
    await producer.connect();
    for (let p = 0; p < 2; p++) {
      await producer.send({
        topic,
        acks: -1,
        messages: Array.from({ length: 300 }, (_, i) => ({
          partition: p,
          key: `k${p}`,
          value: `${p}:${i}`,
          timestamp: String(1_000 + 2 * i + p),
        })),
      });
    }
    await producer.disconnect();
    return topic;
  }

  it("retries a retriable error within the bound, saying each retry on stderr, and hands every record over once, in order", async () => {
    const topic = await filledTopic("retry");
    const lines: string[] = [];
    setKafkaRetries({ budgetMs: 60_000, report: (line) => lines.push(line) });
    const faulty = faultyKafka({ offsetLookups: 2, readerCode: 6 });
    const records = await readAll(topic, { highWater: 50, sliceSize: 20 }, faulty.kafka);
    expect(records.map((r) => r.value?.toString())).toEqual(
      Array.from({ length: 600 }, (_, n) => `${n % 2}:${Math.floor(n / 2)}`),
    );
    expect(faulty.consumers(), "the read went on with a second reader").toBe(2);
    const retries = lines.filter((l) => l.startsWith(`reading ${topic} failed: `));
    expect(retries.length, lines.join("")).toBe(3);
    expect(retries[0]).toMatch(
      /This server is not the leader for that topic-partition \(NOT_LEADER_FOR_PARTITION\); retry 1 in 0\.25 s/,
    );
    expect(retries[1]).toContain("; retry 2 in 0.50 s");
    expect(retries[2]).toMatch(/; retry 1 in 0\.25 s/);
  }, 120_000);

  it("fails at once on a refusal, and with the existing error saying how often it retried once the bound is spent", async () => {
    const topic = await filledTopic("refused");
    const lines: string[] = [];
    setKafkaRetries({ budgetMs: 60_000, report: (line) => lines.push(line) });
    const started = Date.now();
    const denied = await readAll(topic, {}, faultyKafka({ offsetLookups: 1, lookupCode: 29 }).kafka).catch(
      (e: unknown) => e,
    );
    expect(denied).toBeInstanceOf(TopicUnavailableError);
    expect((denied as Error).message).toContain(`cannot read ${topic}: `);
    expect(lines).toEqual([]);
    expect(Date.now() - started).toBeLessThan(10_000);

    setKafkaRetries({ budgetMs: 1_500, report: (line) => lines.push(line) });
    const spent = await readAll(topic, {}, faultyKafka({ offsetLookups: 1_000 }).kafka).catch((e: unknown) => e);
    expect(spent).toBeInstanceOf(TopicUnavailableError);
    const said = new RegExp(
      `^cannot read ${topic.replaceAll(".", "\\.")}: This server is not the leader for that topic-partition \\(retried (\\d+) times over \\d+\\.\\d s\\)$`,
    ).exec((spent as Error).message);
    expect(said, (spent as Error).message).not.toBeNull();
    // Backoffs of 0.25 s and 0.5 s fit a 1.5 s budget when each attempt is quick; a slow broker leaves room for fewer.
    const retried = Number(said?.[1]);
    expect(retried).toBeGreaterThanOrEqual(1);
    expect(retried).toBeLessThanOrEqual(2);
    expect(lines).toHaveLength(retried);
  }, 60_000);
});
