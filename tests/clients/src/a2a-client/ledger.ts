/**
 * The real ledger for the TypeScript client's live tests: the ingest service (in this process, as its own tests start it)
 * writing to a throwaway topic on the running Kafka cluster, and a reader that decodes what landed there.
 */
import { randomUUID } from "node:crypto";
import type { AddressInfo } from "node:net";
import { configDefaults, createIngestApp } from "@a2a-ledger/ingest";
import { createKafka, endpointsFromEnv, type Admin, type Kafka } from "@a2a-ledger/kafka";
import { createTestTopic, type ReadMessage, readMessages, readToEnd } from "@a2a-ledger/kafka/testing";
import type { Observation } from "@a2a-ledger/schemas";
import { Serde } from "@a2a-ledger/schemas/serde";

export interface Ingest {
  url: string;
  stop(): Promise<void>;
}

export interface LedgerTopic {
  topic: string;
  /** Starts ingest on the topic; `port` 0 picks a free one. */
  startIngest(port?: number): Promise<Ingest>;
  /** Every record on the topic, decoded, once `count` arrived (or the time ran out). */
  observations(count: number, timeoutMs?: number): Promise<Observation[]>;
  /** Every record on the topic up to its end now, decoded: once what it should hold was acknowledged. */
  everything(): Promise<Observation[]>;
  remove(): Promise<void>;
}

export async function ledgerTopic(label: string): Promise<LedgerTopic> {
  const endpoints = endpointsFromEnv();
  const kafka: Kafka = createKafka({
    brokers: endpoints.brokers,
    clientId: `a2a-client-test-${randomUUID().slice(0, 8)}`,
  });
  const admin: Admin = kafka.admin();
  await admin.connect();
  const topic = await createTestTopic(admin, `a2a-client.${label}`, 3);
  const serde = new Serde(endpoints.registryUrl);
  const decode = async (messages: ReadMessage[]): Promise<Observation[]> => {
    const out: Observation[] = [];
    for (const m of messages) out.push((await serde.decode(m.value ?? Buffer.alloc(0))).record as Observation);
    return out;
  };
  return {
    topic,
    async startIngest(port = 0) {
      const app = createIngestApp(
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
      return { url: `http://127.0.0.1:${address.port}`, stop: () => app.server.close() };
    },
    async observations(count, timeoutMs = 30_000) {
      return decode(await readMessages(kafka, topic, count, timeoutMs));
    },
    async everything() {
      return decode(await readToEnd(kafka, admin, topic));
    },
    async remove() {
      await admin.deleteTopics({ topics: [topic] }).catch(() => undefined);
      await admin.disconnect();
    },
  };
}
