/**
 * The real pipeline for integration tests: a private suffixed topic set, the ingest API and the
 * reconciler in-process, observations posted through ingest or produced directly, and the projector
 * in-process or as its own process (for SIGKILL).
 */
import { type ChildProcess, spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { randomUUID } from "node:crypto";
import { readyOnMessage, spawnService } from "@a2a-ledger/env/testing";
import { createIngestApp, loadConfig as loadIngestConfig } from "@a2a-ledger/ingest";
import {
  type Admin,
  createKafka,
  endpointsFromEnv,
  ensureTopics,
  type Kafka,
  suffixedTopicNames,
  topicSpecs,
  type TopicNames,
} from "@a2a-ledger/kafka";
import { produceAll, waitForGroupAtEnd } from "@a2a-ledger/kafka/testing";
import { loadReconcilerConfig, Reconciler } from "@a2a-ledger/reconciler";
import { parseObservationJson } from "@a2a-ledger/core";
import { generateLog } from "@a2a-ledger/core/testing";
import type { Observation } from "@a2a-ledger/schemas";
import { Serde } from "@a2a-ledger/schemas/serde";
import { loadConfig, type ProjectorConfig } from "../src/config.ts";
import { LiveStream } from "../src/live-stream.ts";
import { createLogger } from "../src/logger.ts";
import { createMetrics } from "../src/metrics.ts";
import { Projector } from "../src/projector.ts";
import { buildServer } from "../src/server.ts";
import { migrate } from "../src/store/generations.ts";
import { openStore } from "../src/store/open-store.ts";
import type { Store } from "../src/store/store.ts";
import { storyFile } from "./story.ts";

process.env.A2A_LEDGER_KAFKA_LOG_LEVEL ??= "nothing";
export const endpoints = endpointsFromEnv();
export const kafka: Kafka = createKafka({ brokers: endpoints.brokers, clientId: "projector-test" });
export const serde = new Serde(endpoints.registryUrl);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export interface Fixture {
  suffix: string;
  topics: TopicNames;
  env: NodeJS.ProcessEnv;
}

export async function fixture(admin: Admin, label: string, extraEnv: NodeJS.ProcessEnv = {}): Promise<Fixture> {
  const suffix = `${label}-${randomUUID().slice(0, 8)}`;
  const topics = suffixedTopicNames(suffix);
  await ensureTopics(admin, topicSpecs(topics));
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    A2A_LEDGER_TOPIC_SUFFIX: suffix,
    A2A_LEDGER_RECONCILER_GROUP: `reconciler-${suffix}`,
    A2A_LEDGER_RECONCILER_SESSION_TIMEOUT_MS: "6000",
    A2A_LEDGER_PROJECTOR_GROUP: `projector-${suffix}`,
    A2A_LEDGER_PROJECTOR_SESSION_TIMEOUT_MS: "6000",
    A2A_LEDGER_PROJECTOR_LOG_LEVEL: "warn",
    // The views are tested over logs that span months of event time: the reconciler keeps every
    // correlation here (retention is tested in the core and the reconciler).
    A2A_LEDGER_RECONCILER_RETENTION: "3650d",
    A2A_LEDGER_RECONCILER_STALE_AFTER: "3650d",
    ...extraEnv,
  };
  return { suffix, topics, env };
}

export async function deleteTopics(admin: Admin, f: Fixture): Promise<void> {
  await admin.deleteTopics({ topics: Object.values(f.topics) }).catch(() => undefined);
}

const quiet = createLogger("silent", "reconciler");

export async function startReconciler(f: Fixture): Promise<Reconciler> {
  const reconciler = new Reconciler(loadReconcilerConfig(f.env), quiet);
  await reconciler.start();
  return reconciler;
}

export interface RunningIngest {
  url: string;
  post(observations: readonly Record<string, unknown>[]): Promise<void>;
  close(): Promise<void>;
}

/** The ingest API on a free loopback port, writing to the fixture's observations topic. */
export async function startIngest(f: Fixture): Promise<RunningIngest> {
  const config = loadIngestConfig({
    ...f.env,
    A2A_LEDGER_INGEST_TOPIC: f.topics.observations,
    A2A_LEDGER_INGEST_PORT: "0",
    A2A_LEDGER_INGEST_LOG_LEVEL: "silent",
  });
  const { server } = createIngestApp(config, { logger: false });
  const url = await server.listen({ host: "127.0.0.1", port: 0 });
  return {
    url,
    post: async (observations) => {
      const response = await fetch(`${url}/v1/observations`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(observations),
      });
      if (response.status !== 202) throw new Error(`ingest answered ${response.status}: ${await response.text()}`);
    },
    close: () => server.close(),
  };
}

/** Produces observations straight to the topic (faster than HTTP for large loads). */
export async function produce(topic: string, observations: readonly Observation[]): Promise<void> {
  await produceAll(kafka, topic, observations, {
    key: (o) => o.correlationId,
    encode: (o) => serde.encodeValidated(o),
    chunk: 1_000,
  });
}

export { waitForGroupAtEnd };

export interface InProcessProjector {
  config: ProjectorConfig;
  store: Store;
  projector: Projector;
  server: ReturnType<typeof buildServer>;
  stream: LiveStream;
  stop(): Promise<void>;
}

export async function startProjector(f: Fixture, env: NodeJS.ProcessEnv): Promise<InProcessProjector> {
  const config = loadConfig({ ...f.env, ...env });
  const store = openStore(config.store);
  await migrate(store);
  const log = createLogger("warn");
  const metrics = createMetrics();
  const projector = new Projector(config, store, log, metrics);
  const stream = new LiveStream(store, 200);
  await stream.start();
  const server = buildServer({ config, store, stream, metrics, kafka: projector, logger: false });
  await projector.start();
  let stopped = false;
  return {
    config,
    store,
    projector,
    server,
    stream,
    stop: async () => {
      if (stopped) return;
      stopped = true;
      await server.close();
      stream.stop();
      await projector.stop();
      await store.close();
    },
  };
}

const mainFile = new URL("../src/main.ts", import.meta.url).pathname;

/** The projector as its own process (`src/main.ts serve`); resolves with its URL once it logged that it is ready. */
export async function startProjectorProcess(env: NodeJS.ProcessEnv): Promise<{ child: ChildProcess; url: string }> {
  const { child, readyEntry } = await spawnService(
    "projector",
    process.execPath,
    ["--import", "tsx", mainFile, "serve"],
    {
      env: { ...env, A2A_LEDGER_PROJECTOR_LOG_LEVEL: "info", A2A_LEDGER_PROJECTOR_PORT: "0" },
      startTimeoutMs: 60_000,
      ready: readyOnMessage("projector ready"),
    },
  );
  return { child, url: String(readyEntry.url) };
}

/** Runs `src/main.ts <args>` to completion (killed after `timeoutMs`); its exit code and output. */
function runMain(
  args: readonly string[],
  env: NodeJS.ProcessEnv,
  timeoutMs: number,
): Promise<{ code: number | null; output: string }> {
  const child = spawn(process.execPath, ["--import", "tsx", mainFile, ...args], {
    env: { ...env, A2A_LEDGER_PROJECTOR_LOG_LEVEL: "info" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout?.on("data", (c: Buffer) => (output += c.toString()));
  child.stderr?.on("data", (c: Buffer) => (output += c.toString()));
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
    child.on("exit", (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}

/** Runs `src/main.ts rebuild` to completion; its exit code and output. */
export const runRebuildProcess = (env: NodeJS.ProcessEnv, timeoutMs = 240_000) => runMain(["rebuild"], env, timeoutMs);

/** Runs `src/main.ts prune --before <date>` to completion; its exit code and output. */
export const runPrune = (env: NodeJS.ProcessEnv, before: string) => runMain(["prune", "--before", before], env, 60_000);

/** Probes until it returns a value; a probe that throws counts as not yet, and the timeout names its last error. */
export async function waitFor<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    const value = await probe().catch((error: unknown) => {
      lastError = error;
      return undefined;
    });
    if (value !== undefined) return value;
    if (Date.now() > deadline) {
      const why =
        lastError === undefined
          ? ""
          : ` (the last attempt failed: ${lastError instanceof Error ? lastError.message : String(lastError)})`;
      throw new Error(`timed out waiting for ${what}${why}`);
    }
    await sleep(200);
  }
}

/** The first `count` observations of the core's generated log, parsed. */
export function generatedObservations(count: number): Observation[] {
  return generateLog(count).map((line) => {
    const parsed = parseObservationJson(line);
    if (!parsed.ok) throw new Error(JSON.stringify(parsed.issues));
    return parsed.observation;
  });
}

export interface StoryPipeline {
  admin: Admin;
  fixture: Fixture;
  ingest: RunningIngest;
  reconciler: Reconciler;
  projector: InProcessProjector;
  /** The story's task observations (ingest JSON), as posted. */
  tasks: Record<string, unknown>[];
  stop(): Promise<void>;
}

/**
 * The DESIGN §1 story posted through the real ingest API (probes first, then the task), decided by the
 * real reconciler, and projected by an in-process projector into a SQLite file in `dir`.
 */
export async function storyPipeline(label: string, dir: string): Promise<StoryPipeline> {
  const lines = readFileSync(storyFile, "utf8")
    .split("\n")
    .filter((l) => l.trim() !== "")
    .map((l) => JSON.parse(l) as Record<string, unknown>);
  const probes = lines.filter((o) => String(o.correlationId).startsWith("probe-"));
  const tasks = lines.filter((o) => !String(o.correlationId).startsWith("probe-"));
  const admin = kafka.admin();
  await admin.connect();
  await serde.registerAll();
  const f = await fixture(admin, label);
  const ingest = await startIngest(f);
  const reconciler = await startReconciler(f);
  const projector = await startProjector(f, { A2A_LEDGER_PROJECTOR_SQLITE_PATH: join(dir, "projector.sqlite") });
  const reconcilerGroup = `reconciler-${f.suffix}`;
  // Probes run before tasks are dispatched: the capabilities they verify are committed first. The story
  // is a few hundred observations: each wait is bounded well inside the callers' hook timeouts (180 s),
  // so a reconciler that stalls fails here with the offsets it reached, not as a hook timeout.
  await ingest.post(probes);
  await waitForGroupAtEnd(admin, reconcilerGroup, f.topics.observations, 60_000);
  await ingest.post(tasks);
  await waitForGroupAtEnd(admin, reconcilerGroup, f.topics.observations, 60_000);
  await projector.projector.caughtUp(40_000);
  return {
    admin,
    fixture: f,
    ingest,
    reconciler,
    projector,
    tasks,
    stop: async () => {
      await projector.stop();
      await reconciler.stop();
      await ingest.close();
      await deleteTopics(admin, f);
      await admin.disconnect();
    },
  };
}
