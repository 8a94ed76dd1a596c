/**
 * For tests of workers that record through ingest (this package's and the Python guard's): the real ingest
 * service (in this process) writing to a throwaway topic on the running broker, and a reader that decodes
 * what landed there. Needs `@a2a-ledger/ingest` and `@a2a-ledger/kafka` (dev dependencies of the caller).
 */
import { randomUUID } from "node:crypto";
import type { AddressInfo } from "node:net";
import { configDefaults, createIngestApp } from "@a2a-ledger/ingest";
import { createKafka, endpointsFromEnv } from "@a2a-ledger/kafka";
import { createTestTopic, readMessages } from "@a2a-ledger/kafka/testing";
import type { Observation } from "@a2a-ledger/schemas";
import { Serde } from "@a2a-ledger/schemas/serde";

export interface TestLedger {
  url: string;
  /** The observations on the topic, decoded, once `count` arrived. */
  observations(count: number): Promise<Observation[]>;
  close(): Promise<void>;
}

export async function startLedger(label: string): Promise<TestLedger> {
  const endpoints = endpointsFromEnv();
  const kafka = createKafka({ brokers: endpoints.brokers, clientId: `guard-test-${randomUUID().slice(0, 8)}` });
  const admin = kafka.admin();
  await admin.connect();
  const topic = await createTestTopic(admin, `guard.${label}`, 1);
  const serde = new Serde(endpoints.registryUrl);
  // EmissionRefused is a subject of its own: registered here when the stack was set up before it existed.
  await serde.registerAll();
  const app = createIngestApp({ ...configDefaults, brokers: endpoints.brokers, registryUrl: endpoints.registryUrl, topic, tokens: [], logLevel: "silent", port: 0 }, { logger: false });
  await app.server.listen({ host: "127.0.0.1", port: 0 });
  return {
    url: `http://127.0.0.1:${(app.server.server.address() as AddressInfo).port}`,
    async observations(count) {
      const out: Observation[] = [];
      for (const m of await readMessages(kafka, topic, count, 30_000)) out.push((await serde.decode(m.value ?? Buffer.alloc(0))).record as Observation);
      return out;
    },
    async close() {
      await app.server.close();
      await admin.deleteTopics({ topics: [topic] }).catch(() => undefined);
      await admin.disconnect();
    },
  };
}
