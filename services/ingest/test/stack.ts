/**
 * Test access to the real stack (found through endpointsFromEnv): throwaway topics, end offsets,
 * a bounded reader, and servers wired to a topic.
 */
import { randomUUID } from "node:crypto";
import { createKafka, endpointsFromEnv, type Admin, type Kafka } from "@a2a-ledger/kafka";
import { createTestTopic, readMessages, topicEndOffset } from "@a2a-ledger/kafka/testing";
import type { Serde } from "@a2a-ledger/schemas/serde";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll } from "vitest";
import { createIngestApp, type IngestAppOptions } from "../src/app.ts";
import { configDefaults, type IngestConfig } from "../src/config.ts";

export const endpoints = endpointsFromEnv();

export function kafkaAt(brokers: string = endpoints.brokers): Kafka {
  return createKafka({ brokers, clientId: `ingest-test-${randomUUID().slice(0, 8)}` });
}

export async function withAdmin<T>(kafka: Kafka, use: (admin: Admin) => Promise<T>): Promise<T> {
  const admin = kafka.admin();
  await admin.connect();
  try {
    return await use(admin);
  } finally {
    await admin.disconnect();
  }
}

export async function createTopic(admin: Admin, prefix: string, partitions = 6): Promise<string> {
  return createTestTopic(admin, `ingest.${prefix}`, partitions);
}

/** How many records the topic has ever held (sum of end offsets). */
export const endOffsetSum = topicEndOffset;

export interface TopicRecord {
  partition: number;
  offset: number;
  key: string;
  value: Buffer;
}

/** Every record of the topic, read from the beginning until `count` arrived or `timeoutMs` passed, in partition and offset order. */
export async function readTopic(
  kafka: Kafka,
  topic: string,
  count: number,
  timeoutMs = 30_000,
): Promise<TopicRecord[]> {
  const messages = count === 0 ? [] : await readMessages(kafka, topic, count, timeoutMs);
  return messages
    .map((m) => ({
      partition: m.partition,
      offset: Number(m.offset),
      key: m.key ?? "",
      value: m.value ?? Buffer.alloc(0),
    }))
    .sort((a, b) => a.partition - b.partition || a.offset - b.offset);
}

export function testConfig(overrides: Partial<IngestConfig> = {}): IngestConfig {
  return {
    ...configDefaults,
    brokers: endpoints.brokers,
    registryUrl: endpoints.registryUrl,
    topic: "unset",
    tokens: [],
    logLevel: "silent",
    ...overrides,
  };
}

export interface TestServer {
  server: FastifyInstance;
  serde: Serde;
  close(): Promise<void>;
}

/** A throwaway topic on the real broker and an ingest server writing to it, for the tests of one file. */
export interface ServedTopic {
  kafka: Kafka;
  admin: Admin;
  topic: string;
  app: TestServer;
}

/** Sets up a ServedTopic before the file's tests and removes it after them; its fields are filled in beforeAll. */
export function servedTopic(label: string, overrides: Partial<IngestConfig> = {}): ServedTopic {
  const served = {} as ServedTopic;
  beforeAll(async () => {
    served.kafka = kafkaAt();
    served.admin = served.kafka.admin();
    await served.admin.connect();
    served.topic = await createTopic(served.admin, label, 6);
    served.app = testServer({ ...overrides, topic: served.topic });
  });
  afterAll(async () => {
    await served.app?.close();
    await served.admin?.deleteTopics({ topics: [served.topic] }).catch(() => undefined);
    await served.admin?.disconnect();
  });
  return served;
}

/** POSTs `events` as one JSON batch to a served topic's ingest, authorized by `token`. */
export function postAs(served: ServedTopic, token: string, events: readonly unknown[]) {
  return served.app.server.inject({
    method: "POST",
    url: "/v1/observations",
    headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
    payload: JSON.stringify(events),
  });
}

export function testServer(
  overrides: Partial<IngestConfig> = {},
  options: Pick<IngestAppOptions, "linger"> = {},
): TestServer {
  const { server, serde } = createIngestApp(testConfig(overrides), { logger: false, ...options });
  return { server, serde, close: () => server.close() };
}
