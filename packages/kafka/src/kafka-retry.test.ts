/**
 * Which Kafka errors are worth another try, and the bounded retry, with kafkajs's own error classes as
 * kafkajs raises them (a broker's error code through kafkajs's table, its connection and retry errors).
 */
import { createRequire } from "node:module";
import {
  KafkaJSConnectionError,
  KafkaJSNonRetriableError,
  KafkaJSNumberOfRetriesExceeded,
  KafkaJSProtocolError,
  KafkaJSSASLAuthenticationError,
} from "kafkajs";
import { describe, expect, it } from "vitest";
import "./final-refusals.ts";
import { isRetriableKafkaError, type KafkaRetry, KafkaRetriesExhaustedError, retryKafka } from "./kafka-retry.ts";

const require = createRequire(import.meta.url);
const { createErrorFromCode } = require("kafkajs/src/protocol/error.js") as {
  createErrorFromCode(code: number): KafkaJSProtocolError;
};

/** A broker's answer with this error code, as kafkajs turns it into an error. */
const brokerSays = (code: number) => createErrorFromCode(code);
const notLeader = () => brokerSays(6);
const topicDenied = () => brokerSays(29);
const groupDenied = () => brokerSays(30);
const retriesExceeded = (cause: Error) =>
  new KafkaJSNumberOfRetriesExceeded(cause, { retryCount: 5, retryTime: 1_000 });

describe("a retriable Kafka error", () => {
  it("is one kafkajs marks retriable: a leader that moved or is not elected yet, a broker that refuses connections, also once kafkajs's own retries are spent", () => {
    expect(notLeader()).toMatchObject({ type: "NOT_LEADER_FOR_PARTITION", retriable: true });
    expect(isRetriableKafkaError(notLeader())).toBe(true);
    expect(isRetriableKafkaError(brokerSays(5))).toBe(true); // LEADER_NOT_AVAILABLE
    expect(
      isRetriableKafkaError(
        new KafkaJSConnectionError("Connection error: connect ECONNREFUSED 127.0.0.1:19092", {
          broker: "127.0.0.1:19092",
          code: "ECONNREFUSED",
        }),
      ),
    ).toBe(true);
    const exceeded = retriesExceeded(notLeader());
    expect(exceeded.retriable).toBe(false);
    expect(isRetriableKafkaError(exceeded)).toBe(true);
    expect(isRetriableKafkaError(new Error("wrapped", { cause: notLeader() }))).toBe(true);
  });

  it("is never a refusal (ACL, credentials, certificate), nor an error kafkajs deems final, nor any other error", () => {
    expect(topicDenied()).toMatchObject({ type: "TOPIC_AUTHORIZATION_FAILED" });
    expect(isRetriableKafkaError(topicDenied())).toBe(false);
    expect(isRetriableKafkaError(retriesExceeded(groupDenied()))).toBe(false);
    // An ACL refusal next to a retriable error in one aggregate is still a refusal.
    expect(isRetriableKafkaError(Object.assign(new Error("several"), { errors: [notLeader(), groupDenied()] }))).toBe(
      false,
    );
    expect(
      isRetriableKafkaError(
        new (KafkaJSSASLAuthenticationError as unknown as new (message: string) => Error)(
          "SASL SCRAM SHA512 authentication failed: invalid credentials",
        ),
      ),
    ).toBe(false);
    expect(
      isRetriableKafkaError(
        new KafkaJSConnectionError("Connection error: self-signed certificate in certificate chain", {
          broker: "b:1",
          code: "SELF_SIGNED_CERT_IN_CHAIN",
        }),
      ),
    ).toBe(false);
    expect(isRetriableKafkaError(new KafkaJSNonRetriableError("Topic creation errors"))).toBe(false);
    for (const other of [new Error("boom"), new TypeError("x is undefined"), null, "text", 42])
      expect(isRetriableKafkaError(other)).toBe(false);
  });
});

describe("retryKafka", () => {
  it("tries again after a retriable error with a pause that grows, saying each retry, until the operation succeeds", async () => {
    const retries: KafkaRetry[] = [];
    let calls = 0;
    const result = await retryKafka(
      async (attempt) => {
        expect(attempt).toBe(calls);
        calls += 1;
        if (calls <= 3) throw retriesExceeded(notLeader());
        return "offsets";
      },
      { initialDelayMs: 10, budgetMs: 5_000, onRetry: (r) => retries.push(r) },
    );
    expect(result).toBe("offsets");
    expect(calls).toBe(4);
    expect(retries.map((r) => [r.attempt, r.delayMs])).toEqual([
      [1, 10],
      [2, 20],
      [3, 40],
    ]);
    expect(retries[0]?.error).toBeInstanceOf(KafkaJSNumberOfRetriesExceeded);
    expect(retries[0]?.budgetMs).toBe(5_000);
  });

  it("fails at once, with the error as it is, when the error is not retriable (an ACL refusal)", async () => {
    let calls = 0;
    const denied = topicDenied();
    const retries: KafkaRetry[] = [];
    await expect(
      retryKafka(
        async () => {
          calls += 1;
          throw denied;
        },
        { initialDelayMs: 10, onRetry: (r) => retries.push(r) },
      ),
    ).rejects.toBe(denied);
    expect(calls).toBe(1);
    expect(retries).toEqual([]);
  });

  it("gives up within its budget with the last error and how often it retried; a budget of 0 tries once", async () => {
    let calls = 0;
    const started = Date.now();
    const failure = await retryKafka(
      async () => {
        calls += 1;
        throw notLeader();
      },
      { initialDelayMs: 20, maxDelayMs: 40, budgetMs: 300 },
    ).catch((e: unknown) => e);
    // Bounded by the budget (a busy machine may stretch the last sleep, never by seconds).
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(failure).toBeInstanceOf(KafkaRetriesExhaustedError);
    const exhausted = failure as KafkaRetriesExhaustedError;
    expect(exhausted.retries).toBe(calls - 1);
    // Delays of 20, 40, 40 … ms: several retries fit 300 ms (fewer when the machine stalls the loop).
    expect(calls).toBeGreaterThanOrEqual(2);
    expect(exhausted.cause).toBeInstanceOf(KafkaJSProtocolError);
    expect(exhausted.message).toMatch(
      new RegExp(
        `^This server is not the leader for that topic-partition \\(retried ${calls - 1} times over \\d+\\.\\d s\\)$`,
      ),
    );

    calls = 0;
    const once = notLeader();
    await expect(
      retryKafka(
        async () => {
          calls += 1;
          throw once;
        },
        { budgetMs: 0 },
      ),
    ).rejects.toBe(once);
    expect(calls).toBe(1);
  });
});
