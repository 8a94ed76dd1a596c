/**
 * For tests of workers that record through ingest (this package's and the Python guard's): the real ingest
 * service, started as a process from the repository (a library depends on no service, not even for its
 * tests), writing to a throwaway topic on the running broker, and a reader that decodes what landed there.
 * Needs `@a2a-ledger/kafka` (a dev dependency of the caller) and the broker and registry of
 * KAFKA_BROKERS / SCHEMA_REGISTRY_URL.
 */
import { randomUUID } from "node:crypto";
import { fileURLToPath } from "node:url";
import { spawnService, stopChild } from "@a2a-ledger/env/testing";
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

/** The ingest service's entry point in this repository, run from source as the other tests run services. */
const ingestMain = fileURLToPath(new URL("../../../services/ingest/src/main.ts", import.meta.url));
const repoRoot = fileURLToPath(new URL("../../..", import.meta.url));

/** The environment of the ingest process: the caller's, less any ingest setting of it, plus ours. */
function ingestEnv(brokers: string, registryUrl: string, topic: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) if (!/^(A2A_LEDGER_)?INGEST_/.test(name)) env[name] = value;
  return {
    ...env,
    KAFKA_BROKERS: brokers,
    SCHEMA_REGISTRY_URL: registryUrl,
    A2A_LEDGER_INGEST_TOPIC: topic,
    A2A_LEDGER_INGEST_HOST: "127.0.0.1",
    A2A_LEDGER_INGEST_PORT: "0",
    A2A_LEDGER_INGEST_LOG_LEVEL: "info",
  };
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
  const ingest = await spawnService("ingest", process.execPath, ["--import", "tsx", ingestMain], {
    cwd: repoRoot,
    env: ingestEnv(endpoints.brokers, endpoints.registryUrl, topic),
    ready: (entry) => entry.msg === "ingest ready for observations",
    startTimeoutMs: 60_000,
  });
  // fastify logs where it listens before the service says it is ready.
  const url = /Server listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(ingest.output())?.[1];
  if (url === undefined) {
    await stopChild(ingest.child);
    throw new Error(`ingest did not say where it listens:\n${ingest.output()}`);
  }
  return {
    url,
    async observations(count) {
      const out: Observation[] = [];
      for (const m of await readMessages(kafka, topic, count, 30_000))
        out.push((await serde.decode(m.value ?? Buffer.alloc(0))).record as Observation);
      return out;
    },
    async close() {
      await stopChild(ingest.child, 10_000);
      await admin.deleteTopics({ topics: [topic] }).catch(() => undefined);
      await admin.disconnect();
    },
  };
}
