/**
 * The real stack for the dispatcher's tests, on a private topic set (A2A_LEDGER_TOPIC_SUFFIX): the ingest
 * service and the reconciler (in this process, real code on the running Kafka and registry), W1 and W3 as
 * processes, each behind a recording proxy process, a workers file naming the proxies, and a feed of
 * everything committed on the observations and decisions topics.
 */
import { randomUUID } from "node:crypto";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { configDefaults as ingestDefaults, createIngestApp, type IngestApp } from "@a2a-ledger/ingest";
import {
  createKafka,
  endpointsFromEnv,
  ensureTopics,
  suffixedTopicNames,
  topicSpecs,
  type TopicNames,
} from "@a2a-ledger/kafka";
import { createLogger } from "@a2a-ledger/logging";
import { spawnJsAgent, spawnListening, spawnPyAgent, type AgentProcess } from "@a2a-ledger/mesh-agents";
import { LedgerFeed } from "@a2a-ledger/ledger-feed";
import { loadReconcilerConfig, Reconciler } from "@a2a-ledger/reconciler";
import type { Decision } from "@a2a-ledger/schemas";
import { Serde } from "@a2a-ledger/schemas/serde";
import { loadConfig, type DispatcherConfig } from "../src/config.ts";

process.env.A2A_LEDGER_KAFKA_LOG_LEVEL ??= "nothing";
export const endpoints = endpointsFromEnv();
export const serde = new Serde(endpoints.registryUrl);
const proxyMain = fileURLToPath(new URL("../../proxy/src/main.ts", import.meta.url));
export const dispatcherMain = fileURLToPath(new URL("../src/main.ts", import.meta.url));

export type MeshWorkerName = "W1" | "W3";

export interface TestMesh {
  suffix: string;
  topics: TopicNames;
  dir: string;
  ingestUrl: string;
  /** Everything committed on the observations and decisions topics, from the beginning. */
  feed: LedgerFeed;
  agents: Map<MeshWorkerName, AgentProcess>;
  proxies: Map<MeshWorkerName, AgentProcess>;
  workersFile: string;
  /** Environment of a dispatcher on this mesh (for in-process config or a process). */
  env(extra?: NodeJS.ProcessEnv): NodeJS.ProcessEnv;
  config(extra?: NodeJS.ProcessEnv): DispatcherConfig;
  /** W1 stopped and started again on its port: a new process, an empty task store. */
  restartW1(): Promise<void>;
  /** Writes a command onto the commands topic, as the reconciler would. */
  command(decision: Decision): Promise<void>;
  /** Writes raw records onto the commands topic. */
  raw(records: { key: string | null; value: Buffer | null }[]): Promise<void>;
  stop(): Promise<void>;
}

export const workersFileOf = (
  proxies: Map<MeshWorkerName, AgentProcess>,
  agents: Map<MeshWorkerName, AgentProcess>,
) => ({
  workers: Object.fromEntries(
    [...proxies].map(([name, proxy]) => [
      name,
      {
        url: proxy.url,
        workerUrl: agents.get(name)?.url,
        skills: {
          answer: {
            redispatch: {
              message: "{correlationId}: answer again (attempt {attempt})",
              resume: {
                TASK_STATE_INPUT_REQUIRED:
                  "need-input {correlationId}: resumed from {fromServerTaskId}, attempt {attempt}",
              },
            },
            canaries: [{ message: "delay-ms=600 probe canary" }, { message: "need-input probe canary", park: true }],
          },
        },
      },
    ]),
  ),
});

export async function startMesh(label: string, names: MeshWorkerName[]): Promise<TestMesh> {
  const suffix = `${label}-${randomUUID().slice(0, 8)}`;
  const topics = suffixedTopicNames(suffix);
  const dir = mkdtempSync(join(tmpdir(), `dispatcher-${label}-`));
  const kafka = createKafka({ brokers: endpoints.brokers, clientId: `dispatcher-test-${suffix}` });
  const admin = kafka.admin();
  await admin.connect();
  await ensureTopics(admin, topicSpecs(topics));
  await serde.registerAll();
  const producer = kafka.producer({ idempotent: true });
  await producer.connect();

  const ingest: IngestApp = createIngestApp(
    {
      ...ingestDefaults,
      brokers: endpoints.brokers,
      registryUrl: endpoints.registryUrl,
      topic: topics.observations,
      tokens: [],
      logLevel: "silent",
      port: 0,
    },
    { logger: false },
  );
  const ingestUrl = await ingest.server.listen({ host: "127.0.0.1", port: 0 });
  const reconcilerEnv = {
    ...process.env,
    A2A_LEDGER_TOPIC_SUFFIX: suffix,
    A2A_LEDGER_RECONCILER_GROUP: `reconciler-${suffix}`,
    A2A_LEDGER_RECONCILER_SESSION_TIMEOUT_MS: "6000",
  };
  const reconciler = new Reconciler(loadReconcilerConfig(reconcilerEnv), createLogger("reconciler", "error"));
  await reconciler.start();
  const feed = new LedgerFeed({
    brokers: endpoints.brokers,
    registryUrl: endpoints.registryUrl,
    topics: [topics.observations, topics.decisions],
    from: "beginning",
  });
  await feed.start();

  const w1Config = join(dir, "w1.json");
  writeFileSync(w1Config, JSON.stringify({ outputMediaType: "application/json" }));
  const agents = new Map<MeshWorkerName, AgentProcess>();
  const proxies = new Map<MeshWorkerName, AgentProcess>();
  const startProxy = (name: MeshWorkerName, upstream: string) =>
    spawnListening(`proxy-${name}`, process.execPath, ["--import", "tsx", proxyMain], {
      env: {
        A2A_LEDGER_PROXY_WORKER_ID: name,
        A2A_LEDGER_PROXY_UPSTREAM_URL: upstream,
        A2A_LEDGER_PROXY_PORT: "0",
        A2A_LEDGER_PROXY_REWRITE_CARD_URLS: "true",
        A2A_LEDGER_PROXY_INGEST_URL: ingestUrl,
        A2A_LEDGER_PROXY_SPOOL_DIR: join(dir, `proxy-${name}`),
        A2A_LEDGER_PROXY_FLUSH_DELAY_MS: "20",
        A2A_LEDGER_PROXY_LOG_LEVEL: "info",
      },
    });
  for (const name of names) {
    const agent =
      name === "W1"
        ? await spawnJsAgent("w1", { configFile: w1Config })
        : await spawnPyAgent({ db: join(dir, "w3.sqlite") });
    agents.set(name, agent);
    proxies.set(name, await startProxy(name, agent.url));
  }
  const workersFile = join(dir, "workers.json");
  writeFileSync(workersFile, JSON.stringify(workersFileOf(proxies, agents), null, 2));

  const env = (extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv => ({
    ...process.env,
    A2A_LEDGER_TOPIC_SUFFIX: suffix,
    A2A_LEDGER_DATA_DIR: dir,
    A2A_LEDGER_DISPATCHER_WORKERS_FILE: workersFile,
    A2A_LEDGER_DISPATCHER_INGEST_URL: ingestUrl,
    A2A_LEDGER_DISPATCHER_PORT: "0",
    A2A_LEDGER_DISPATCHER_CANARY_POLL_MS: "400",
    A2A_LEDGER_DISPATCHER_SESSION_TIMEOUT_MS: "6000",
    ...extra,
  });
  return {
    suffix,
    topics,
    dir,
    ingestUrl,
    feed,
    agents,
    proxies,
    workersFile,
    env,
    config: (extra = {}) => loadConfig(env(extra)),
    async restartW1() {
      const w1 = agents.get("W1");
      if (w1 === undefined) throw new Error("no W1 in this mesh");
      await w1.stop();
      agents.set("W1", await spawnJsAgent("w1", { configFile: w1Config, port: w1.port }));
    },
    async command(decision) {
      await producer.send({
        topic: topics.commands,
        acks: -1,
        messages: [{ key: decision.correlationId, value: await serde.encode(decision) }],
      });
    },
    async raw(records) {
      await producer.send({ topic: topics.commands, acks: -1, messages: records });
    },
    async stop() {
      for (const p of proxies.values()) await p.stop();
      for (const a of agents.values()) await a.stop();
      await feed.stop();
      await reconciler.stop();
      await ingest.server.close();
      await producer.disconnect();
      await admin.deleteTopics({ topics: Object.values(topics) }).catch(() => undefined);
      await admin.disconnect();
    },
  };
}
