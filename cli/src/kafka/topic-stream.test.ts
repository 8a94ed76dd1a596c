import { createTestTopic } from "@a2a-ledger/kafka/testing";
import type { Admin } from "@a2a-ledger/kafka";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { kafka } from "../../test/ledger-stack.ts";
import { streamTopic, type TopicRecord } from "./topic-stream.ts";

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

async function readAll(topic: string, options: { highWater?: number; sliceSize?: number } = {}): Promise<TopicRecord[]> {
  const out: TopicRecord[] = [];
  for await (const slice of streamTopic(kafka, topic, { groupPrefix: "topic-stream-test", ...options })) {
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
      await producer.send({ topic, acks: -1, messages: Array.from({ length: 400 }, (_, i) => ({ partition: p, key: `k${p}`, value: `${p}:${i}`, timestamp: String(1_000 + 3 * i + p) })) });
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
    expect(records.map((r) => r.value?.toString())).toEqual(Array.from({ length: 1_200 }, (_, n) => `${n % 3}:${Math.floor(n / 3)}`));
  }, 120_000);

  it("reads nothing from an empty topic and ends", async () => {
    const topic = await createTestTopic(admin, "empty", 2);
    topics.push(topic);
    expect(await readAll(topic)).toEqual([]);
  }, 60_000);
});
