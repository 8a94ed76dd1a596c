/**
 * The real ledger for the recording tests: the ingest service (in this process) writing to a throwaway
 * topic on the running Kafka broker, and a reader that decodes what landed there.
 */
import { randomUUID } from "node:crypto";
import type { AddressInfo } from "node:net";
import { configDefaults, createIngestApp, type IngestApp } from "@a2a-ledger/ingest";
import { createKafka, endpointsFromEnv, type Admin, type Kafka } from "@a2a-ledger/kafka";
import { createTestTopic, readMessages } from "@a2a-ledger/kafka/testing";
import type { Observation } from "@a2a-ledger/schemas";
import { Serde } from "@a2a-ledger/schemas/serde";

export interface Ledger {
  url: string;
  topic: string;
  /** Every record on the topic, decoded, once `count` arrived (or the time ran out). */
  records(count: number, timeoutMs?: number): Promise<{ key: string; observation: Observation }[]>;
  stop(): Promise<void>;
}

export interface LedgerTopic {
  kafka: Kafka;
  admin: Admin;
  topic: string;
  /** Starts ingest on the topic; `port` 0 picks a free one. */
  start(port?: number): Promise<Ledger>;
  remove(): Promise<void>;
}

export async function ledgerTopic(label: string): Promise<LedgerTopic> {
  const endpoints = endpointsFromEnv();
  const kafka = createKafka({ brokers: endpoints.brokers, clientId: `proxy-test-${randomUUID().slice(0, 8)}` });
  const admin = kafka.admin();
  await admin.connect();
  const topic = await createTestTopic(admin, `proxy.${label}`, 3);
  const serde = new Serde(endpoints.registryUrl);
  return {
    kafka,
    admin,
    topic,
    async start(port = 0) {
      const app: IngestApp = createIngestApp(
        {
          ...configDefaults,
          brokers: endpoints.brokers,
          registryUrl: endpoints.registryUrl,
          topic,
          tokens: [],
          logLevel: "silent",
          port,
        },
        { logger: false },
      );
      await app.server.listen({ host: "127.0.0.1", port });
      const address = app.server.server.address() as AddressInfo;
      return {
        url: `http://127.0.0.1:${address.port}`,
        topic,
        async records(count, timeoutMs = 30_000) {
          const messages = await readMessages(kafka, topic, count, timeoutMs);
          const out = [];
          for (const m of messages)
            out.push({
              key: m.key ?? "",
              observation: (await serde.decode(m.value ?? Buffer.alloc(0))).record as Observation,
            });
          return out;
        },
        stop: () => app.server.close(),
      };
    },
    async remove() {
      await admin.deleteTopics({ topics: [topic] }).catch(() => undefined);
      await admin.disconnect();
    },
  };
}
