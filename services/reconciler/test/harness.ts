/**
 * Test harness: private topics per test, a reconciler in-process or as a child process, producing
 * observations and reading committed decisions back.
 */
import type { ChildProcess } from "node:child_process";
import { randomUUID } from "node:crypto";
import { type ChildService, readyOnMessage, spawnService } from "@a2a-ledger/env/testing";
import {
  type Admin,
  createKafka,
  type KafkaMessage,
  endpointsFromEnv,
  ensureTopics,
  type Kafka,
  suffixedTopicNames,
  topicSpecs,
  type TopicNames,
  TopicReader,
} from "@a2a-ledger/kafka";
import { produceAll, waitForGroupAtEnd as waitForTopicEnd } from "@a2a-ledger/kafka/testing";
import type { Decision, Observation, TrustPolicy } from "@a2a-ledger/schemas";
import { Serde } from "@a2a-ledger/schemas/serde";
import { loadReconcilerConfig, type ReconcilerConfig } from "../src/config.ts";
import { Reconciler } from "../src/reconciler.ts";
import { createLogger } from "@a2a-ledger/logging";
import { avroType } from "@a2a-ledger/schemas";

// kafkajs logs retried transaction races at error level; tests read outcomes, not logs.
process.env.A2A_LEDGER_KAFKA_LOG_LEVEL ??= "nothing";
export const endpoints = endpointsFromEnv();
export const kafka: Kafka = createKafka({ brokers: endpoints.brokers, clientId: "reconciler-test" });
export const serde = new Serde(endpoints.registryUrl);

export interface Fixture {
  suffix: string;
  topics: TopicNames;
  groupId: string;
  env: NodeJS.ProcessEnv;
  config: ReconcilerConfig;
}

/** A private copy of every ledger topic and a private consumer group. */
export async function fixture(admin: Admin, label: string, extraEnv: NodeJS.ProcessEnv = {}): Promise<Fixture> {
  const suffix = `${label}-${randomUUID().slice(0, 8)}`;
  const topics = suffixedTopicNames(suffix);
  await ensureTopics(admin, topicSpecs(topics));
  const env = {
    ...process.env,
    A2A_LEDGER_TOPIC_SUFFIX: suffix,
    A2A_LEDGER_RECONCILER_GROUP: `reconciler-${suffix}`,
    A2A_LEDGER_RECONCILER_SESSION_TIMEOUT_MS: "6000",
    ...extraEnv,
  };
  return { suffix, topics, groupId: `reconciler-${suffix}`, env, config: loadReconcilerConfig(env) };
}

export async function deleteTopics(admin: Admin, f: Fixture): Promise<void> {
  await admin.deleteTopics({ topics: Object.values(f.topics) }).catch(() => undefined);
}

export const quietLog = createLogger("reconciler", "error");

export async function startInProcess(f: Fixture, env: NodeJS.ProcessEnv = {}): Promise<Reconciler> {
  const reconciler = new Reconciler(loadReconcilerConfig({ ...f.env, ...env }), quietLog);
  await reconciler.start();
  return reconciler;
}

/** The reconciler as its own process (`src/main.ts`), with its output. Resolves once it logged that it started. */
export function startChildService(f: Fixture, instanceId: string): Promise<ChildService> {
  return spawnService(
    `reconciler ${instanceId}`,
    process.execPath,
    ["--import", "tsx", new URL("../src/main.ts", import.meta.url).pathname],
    {
      env: { ...f.env, A2A_LEDGER_INSTANCE_ID: instanceId },
      startTimeoutMs: 60_000,
      ready: readyOnMessage("reconciler started"),
    },
  );
}

/** The reconciler as its own process, for kill -9. */
export async function startChild(f: Fixture, instanceId: string): Promise<ChildProcess> {
  return (await startChildService(f, instanceId)).child;
}

/** The JSON log lines of a service's output whose `msg` is `msg`. */
export function logLines(output: string, msg: string): Record<string, unknown>[] {
  return output.split("\n").flatMap((line) => {
    try {
      const entry = JSON.parse(line) as Record<string, unknown>;
      return entry.msg === msg ? [entry] : [];
    } catch {
      return [];
    }
  });
}

export { designSection1Story, parseLines } from "./example-log.ts";

export async function produce(topic: string, observations: readonly Observation[]): Promise<void> {
  await produceAll(kafka, topic, observations, { key: (o) => o.correlationId, encode: (o) => serde.encode(o) });
}

/** A record as a test reads it back. */
export interface ReadRecord {
  partition: number;
  offset: number;
  key: string | null;
  value: Buffer | null;
  headers: KafkaMessage["headers"];
  /** The epoch of the producer that wrote it (a transactional id's epoch moves each time a producer initialises it). */
  producerEpoch: number | null;
}

/**
 * Every record a topic holds for read_committed readers, up to the end offsets it has when called,
 * read the way the reconciler reads its own topics. Fails, rather than returning part of the topic,
 * when the end is not reached within `timeoutMs`: a slow machine makes the read slower, never shorter.
 */
export async function readAll(topic: string, timeoutMs = 60_000): Promise<ReadRecord[]> {
  const admin = kafka.admin();
  const records: ReadRecord[] = [];
  const reader = new TopicReader(
    kafka,
    admin,
    topic,
    (partition, m) =>
      void records.push({
        partition,
        offset: Number(m.offset),
        key: m.key?.toString() ?? null,
        value: m.value,
        headers: m.headers,
        producerEpoch: (m as { batchContext?: { producerEpoch?: number } }).batchContext?.producerEpoch ?? null,
      }),
    "test-reader",
  );
  await admin.connect();
  try {
    await reader.start();
    await reader.caughtUp(timeoutMs);
    return records;
  } finally {
    await reader.stop();
    await admin.disconnect();
  }
}

/** Every committed decision (or command) of a topic, decoded, in each partition's order. */
export async function readDecisions(topic: string, timeoutMs = 60_000): Promise<Decision[]> {
  const records = await readAll(topic, timeoutMs);
  const decoded = await Promise.all(records.map((m) => serde.decode(m.value as Buffer)));
  return decoded.map((d) => d.record as Decision);
}

/** A decision as JSON with its fields in Avro schema order, so the replay's and Kafka's compare byte for byte. */
export function inSchemaOrder(d: Decision): string {
  const { type, ...fields } = d;
  return JSON.stringify({ type, ...(avroType("decisions", type).clone(fields) as object) });
}

/** Decisions per correlation, in order: what Kafka's per-key ordering makes comparable. */
export function byCorrelation(decisions: readonly Decision[]): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const d of decisions) (out[d.correlationId] ??= []).push(inSchemaOrder(d));
  return Object.fromEntries(Object.entries(out).sort(([a], [b]) => a.localeCompare(b)));
}

/** Waits until the group committed offsets to the end of the input topic. */
export function waitForGroupAtEnd(admin: Admin, f: Fixture, timeoutMs = 120_000): Promise<void> {
  return waitForTopicEnd(admin, f.groupId, f.topics.observations, timeoutMs);
}

/**
 * The suite's Kafka session: an admin connected and every schema registered before the tests; the
 * reconcilers started and the fixtures created are stopped and deleted after them.
 */
export function kafkaSuite(hooks: {
  beforeAll: (fn: () => Promise<void>) => void;
  afterAll: (fn: () => Promise<void>) => void;
}) {
  const suite = { admin: kafka.admin(), fixtures: [] as Fixture[], running: [] as Reconciler[] };
  hooks.beforeAll(async () => {
    await suite.admin.connect();
    await serde.registerAll();
  });
  hooks.afterAll(async () => {
    for (const r of suite.running) await r.stop();
    for (const f of suite.fixtures) await deleteTopics(suite.admin, f);
    await suite.admin.disconnect();
  });
  return suite;
}

/**
 * The trust policy a reconciler of these tests judges by: on a fixture's empty policy topic it seeds
 * version 1 from A2A_LEDGER_TRUSTED_VENDORS (unset: no vendor), valid from the epoch; a replay that
 * should agree with it judges by the same recorded history.
 */
export const seededPolicy = (trustedVendors: string[] = []) => ({
  versions: [{ version: 1, validFrom: 0, trustedVendors }],
});

/** Records a version of the trust policy on a fixture's policy topic (keyed by its version, as `policy set` writes it). */
export async function recordPolicy(topic: string, p: TrustPolicy): Promise<void> {
  const producer = kafka.producer({ idempotent: true, maxInFlightRequests: 1 });
  await producer.connect();
  await producer.send({
    topic,
    acks: -1,
    messages: [{ key: String(p.version), value: await serde.encode({ type: "TrustPolicy", ...p }) }],
  });
  await producer.disconnect();
}
