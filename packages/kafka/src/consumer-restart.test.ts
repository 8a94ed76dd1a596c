/**
 * ConsumerRestart against the shared Kafka stack. The crash it exists for is reproduced: a handler
 * outlives the group session (as under a broker stalled past it), so the coordinator forgets the member
 * and the handler's offset commit is answered UNKNOWN_MEMBER_ID. kafkajs does not retry that error and
 * leaves the consumer stopped. ConsumerRestart runs a new one, which is handed the record again.
 */
import { randomUUID } from "node:crypto";
import type { Admin, Consumer } from "kafkajs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createKafka } from "./client.ts";
import { ConsumerRestart, restartDelayMs } from "./consumer-restart.ts";
import { endpointsFromEnv } from "./endpoints.ts";
import { createTestTopic } from "./testing.ts";

const kafka = createKafka({ clientId: "consumer-restart-test", brokers: endpointsFromEnv().brokers });
let admin: Admin;
let topic: string;

beforeAll(async () => {
  admin = kafka.admin();
  await admin.connect();
  topic = await createTestTopic(admin, "consumer-restart", 1);
});
afterAll(async () => {
  await admin.deleteTopics({ topics: [topic] }).catch(() => undefined);
  await admin.disconnect();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("a consumer kafkajs gave up on", () => {
  it("is run again after an offset commit answered UNKNOWN_MEMBER_ID, and is handed the uncommitted record again", async () => {
    const groupId = `consumer-restart-${randomUUID().slice(0, 8)}`;
    const producer = kafka.producer();
    await producer.connect();
    await producer.send({ topic, messages: [{ key: "k", value: "the record" }] });
    await producer.disconnect();

    const crashes: { restart: boolean; error: string }[] = [];
    const handled: string[] = [];
    const committed: string[] = [];
    let consumer: Consumer | undefined;
    const run = async () => {
      const c = createKafka({ clientId: "consumer-restart-test", brokers: endpointsFromEnv().brokers, retries: 1 }).consumer({ groupId, sessionTimeout: 6_000, heartbeatInterval: 1_000, maxWaitTimeInMs: 100 });
      consumer = c;
      c.on(c.events.GROUP_JOIN, () => restart.settled());
      c.on(c.events.CRASH, ({ payload }) => {
        crashes.push({ restart: payload.restart, error: payload.error.message });
        restart.onCrash(payload);
      });
      await c.connect();
      await c.subscribe({ topic, fromBeginning: true });
      await c.run({
        autoCommit: false,
        eachMessage: async ({ partition, message }) => {
          handled.push(message.offset);
          // The first time, the handler outlives the session (no heartbeat): the coordinator removes the member.
          if (handled.length === 1) await sleep(9_000);
          await c.commitOffsets([{ topic, partition, offset: (BigInt(message.offset) + 1n).toString() }]);
          committed.push(message.offset);
        },
      });
    };
    const restarts: number[] = [];
    const restart = new ConsumerRestart({
      crashed: () => consumer,
      run,
      giveUp: () => false,
      name: "the test consumer",
      log: { warn: () => undefined, error: () => undefined },
      restarts: { inc: () => restarts.push(restarts.length + 1) },
      delayMs: () => 200,
    });
    try {
      await run();
      const deadline = Date.now() + 60_000;
      while (committed.length === 0 && Date.now() < deadline) await sleep(200);
    } finally {
      restart.cancel();
      await consumer?.disconnect().catch(() => undefined);
    }
    // kafkajs gave up (restart: false) on the member the coordinator no longer knew; it was run again.
    expect(crashes[0]).toMatchObject({ restart: false, error: expect.stringMatching(/not aware of this member/) });
    expect(restarts).toEqual([1]);
    expect(handled).toEqual(["0", "0"]);
    expect(committed).toEqual(["0"]);
    const offsets = await admin.fetchOffsets({ groupId, topics: [topic] });
    expect(offsets[0]?.partitions[0]?.offset).toBe("1");
  }, 90_000);

  it("is not run again when the error is one no restart cures, and waits longer after each failed try", async () => {
    let reruns = 0;
    const quiet = { name: "a consumer", log: { warn: () => undefined, error: () => undefined }, restarts: { inc: () => undefined }, crashed: () => undefined };
    const refused = new ConsumerRestart({ ...quiet, run: async () => void reruns++, giveUp: () => true, delayMs: () => 1 });
    expect(refused.onCrash({ error: new Error("access denied"), restart: false })).toBe(false);
    // kafkajs restarts it itself: nothing to do.
    const failing = new ConsumerRestart({ ...quiet, run: async () => { reruns++; throw new Error("still down"); }, giveUp: () => false, delayMs: () => 5 });
    expect(failing.onCrash({ error: new Error("x"), restart: true })).toBe(false);
    expect(failing.onCrash({ error: new Error("x"), restart: false })).toBe(true);
    await sleep(100);
    failing.cancel();
    const afterCancel = reruns;
    await sleep(50);
    expect(reruns).toBeGreaterThan(2);
    expect(reruns).toBe(afterCancel);
    expect([1, 2, 3, 6, 10].map(restartDelayMs)).toEqual([1_000, 2_000, 4_000, 30_000, 30_000]);
  });
});
