/**
 * ConsumerRestart against the shared Kafka stack, with the crash it exists for: an offset commit
 * answered UNKNOWN_MEMBER_ID (a broker stalled past the group session, and its new coordinator had
 * forgotten the member: the fault suite's scenario 3). kafkajs's commit retrier wraps that error, which is
 * not retriable, in a KafkaJSNonRetriableError; thrown from the handler, it makes kafkajs stop the
 * consumer for good. Whether a real stall evicts the member depends on the cluster (kafkajs heartbeats from
 * the fetch loops of the brokers that are not blocked), so the handler throws that very error, built as
 * kafkajs builds it. ConsumerRestart runs a new consumer, which is handed the record again.
 */
import { randomUUID } from "node:crypto";
import type { Admin, Consumer } from "kafkajs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createKafka } from "./client.ts";
// After ./client.ts, which must load before kafkajs does (read-committed.ts).
import kafkajs from "kafkajs";
import { ConsumerRestart, restartDelayMs } from "./consumer-restart.ts";
import { endpointsFromEnv } from "@a2a-ledger/client-config";
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

/** What kafkajs's commitOffsets rejects with when the coordinator answers UNKNOWN_MEMBER_ID (kafkajs 2.2.4: protocol/error.js, retry/index.js). */
function unknownMemberCommit(): Error {
  const answer = new kafkajs.KafkaJSProtocolError({
    type: "UNKNOWN_MEMBER_ID",
    code: 25,
    retriable: false,
    message: "The coordinator is not aware of this member",
  } as unknown as Error);
  // kafkajs's own constructor takes the cause as a second argument; its typings omit it.
  const NonRetriable = kafkajs.KafkaJSNonRetriableError as unknown as new (
    e: Error,
    options: { cause: Error },
  ) => Error;
  return new NonRetriable(answer, { cause: answer });
}

describe("a consumer kafkajs gave up on", () => {
  it("is run again after the error of an offset commit answered UNKNOWN_MEMBER_ID, and is handed the uncommitted record again", async () => {
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
      const c = createKafka({ clientId: "consumer-restart-test", brokers: endpointsFromEnv().brokers }).consumer({
        groupId,
        maxWaitTimeInMs: 100,
      });
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
          // The first time, the commit is answered as after the stall.
          if (handled.length === 1) throw unknownMemberCommit();
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
    // kafkajs gave up (restart: false); the consumer was run again.
    expect(crashes[0]).toMatchObject({ restart: false, error: expect.stringMatching(/not aware of this member/) });
    expect(restarts).toEqual([1]);
    expect(handled).toEqual(["0", "0"]);
    expect(committed).toEqual(["0"]);
    const offsets = await admin.fetchOffsets({ groupId, topics: [topic] });
    expect(offsets[0]?.partitions[0]?.offset).toBe("1");
  }, 90_000);

  it("is not run again when the error is one no restart cures, and waits longer after each failed try", async () => {
    let reruns = 0;
    const quiet = {
      name: "a consumer",
      log: { warn: () => undefined, error: () => undefined },
      restarts: { inc: () => undefined },
      crashed: () => undefined,
    };
    const refused = new ConsumerRestart({
      ...quiet,
      run: async () => void reruns++,
      giveUp: () => true,
      delayMs: () => 1,
    });
    expect(refused.onCrash({ error: new Error("access denied"), restart: false })).toBe(false);
    // kafkajs restarts it itself: nothing to do.
    const failing = new ConsumerRestart({
      ...quiet,
      run: async () => {
        reruns++;
        throw new Error("still down");
      },
      giveUp: () => false,
      delayMs: () => 5,
    });
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
