/**
 * `npm run bench -w @a2a-ledger/projector` (against `npm run infra:up`).
 *
 * 1. Throughput: OBSERVATIONS generated observations (default 1,000,000; `generateLog` of the core)
 *    run through the core's decider, and the observations, decisions, commands and capability
 *    snapshots written straight to a throwaway suffixed topic set. Then, in the same run: a consumer
 *    that only decodes every record of the five topics (the baseline), the projector into a fresh
 *    SQLite file, and the projector into a fresh PostgreSQL database (a throwaway server, or
 *    A2A_LEDGER_PROJECTOR_DATABASE_URL), each timed from its start until it has every record.
 * 2. Latency: with everything loaded, QUERIES requests each (default 1,000) over HTTP to the
 *    projector's API on each store: the lineage of a random task, the first page of the task list,
 *    the list by status, by worker, by server task id, and a second page by cursor; p50/p99/max.
 *
 * STORES=sqlite,postgres picks the stores; PROFILE=1 also prints where each store's projection time went
 * (bench/timed-store.ts: statements by kind and table, work inside transactions, commits, the rest).
 * Topics and databases are removed at the end.
 */
import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createKafka, endpointsFromEnv, ensureTopics, suffixedTopicNames, topicSpecs } from "@a2a-ledger/kafka";
import { Serde } from "@a2a-ledger/schemas/serde";
import { loadConfig } from "../src/config.ts";
import { InputDecoder, topicRoles } from "../src/inputs.ts";
import { LiveStream } from "../src/live-stream.ts";
import { createLogger } from "../src/logger.ts";
import { createMetrics } from "../src/metrics.ts";
import { Projector } from "../src/projector.ts";
import { buildServer } from "../src/server.ts";
import { migrate } from "../src/store/generations.ts";
import { openStore } from "../src/store/open-store.ts";
import { freshDatabase, startPostgres } from "../test/postgres.ts";
import { apiLatency, type Percentiles } from "./api-latency.ts";
import { decidedLog } from "./decided-log.ts";
import { type StoreTimes, timedStore } from "./timed-store.ts";

process.env.A2A_LEDGER_KAFKA_LOG_LEVEL ??= "nothing";
const observationCount = Number(process.env.OBSERVATIONS ?? 1_000_000);
const queryCount = Number(process.env.QUERIES ?? 1_000);
const stores = (process.env.STORES ?? "sqlite,postgres").split(",").map((s) => s.trim());
const profile = process.env.PROFILE === "1";
const endpoints = endpointsFromEnv();
const kafka = createKafka({ brokers: endpoints.brokers, clientId: "projector-bench" });
const serde = new Serde(endpoints.registryUrl);
const suffix = `bench-projector-${randomUUID().slice(0, 8)}`;
const topics = suffixedTopicNames(suffix);
const log = createLogger("warn");
const now = () => performance.now();
const fmt = (n: number) => Math.round(n).toLocaleString("en-US");

/** Generates, decides and produces; returns the number of records written per topic. */
async function load(): Promise<Record<string, number>> {
  const started = now();
  const producer = kafka.producer({ idempotent: true, maxInFlightRequests: 1 });
  await producer.connect();
  const counts: Record<string, number> = Object.fromEntries(topicRoles.map((r) => [topics[r], 0]));
  let pending: Record<string, { key: string; value: Buffer }[]> = {};
  let size = 0;
  const flush = async () => {
    const topicMessages = Object.entries(pending).map(([topic, messages]) => ({ topic, messages }));
    if (topicMessages.length > 0) await producer.sendBatch({ topicMessages, acks: -1 });
    pending = {};
    size = 0;
  };
  const push = async (topic: string, key: string, value: Buffer) => {
    (pending[topic] ??= []).push({ key, value });
    counts[topic] = (counts[topic] ?? 0) + 1;
    if (++size >= 5_000) await flush();
  };
  for await (const r of decidedLog(observationCount, serde)) await push(topics[r.role], r.key, r.value);
  await flush();
  await producer.disconnect();
  console.log(
    `loaded ${fmt(observationCount)} observations and ${fmt(Object.values(counts).reduce((a, b) => a + b, 0) - observationCount)} decisions, commands and snapshots in ${((now() - started) / 1000).toFixed(1)} s`,
  );
  return counts;
}

/** The baseline: a consumer group that decodes every record of the five topics and does nothing else. */
async function decodeOnly(total: number): Promise<number> {
  const decoder = new InputDecoder(new Serde(endpoints.registryUrl), topics);
  const consumer = kafka.consumer({
    groupId: `bench-decode-${randomUUID()}`,
    readUncommitted: false,
    maxWaitTimeInMs: 100,
  });
  await consumer.connect();
  for (const role of topicRoles) await consumer.subscribe({ topic: topics[role], fromBeginning: true });
  let seen = 0;
  const started = now();
  const done = new Promise<void>((resolve) => {
    void consumer.run({
      partitionsConsumedConcurrently: 2,
      eachBatch: async ({ batch, resolveOffset }) => {
        for (const m of batch.messages) {
          await decoder.decode(
            {
              topic: batch.topic,
              partition: batch.partition,
              offset: Number(m.offset),
              timestamp: Number(m.timestamp),
            },
            { key: m.key, value: m.value, headers: m.headers },
          );
          resolveOffset(m.offset);
          if (++seen === total) resolve();
        }
      },
    });
  });
  await done;
  const seconds = (now() - started) / 1000;
  await consumer.disconnect();
  return seconds;
}

/** Where the projector's wall time went (PROFILE=1): statements, work inside transactions, commits, the rest. */
function printProfile(kind: string, wallMs: number, total: number, times: StoreTimes): void {
  const statementsMs = [...times.statements.values()].reduce((sum, s) => sum + s.ms, 0);
  const rows: [string, number, string][] = [
    ...[...times.statements]
      .sort((a, b) => b[1].ms - a[1].ms)
      .slice(0, 12)
      .map(([name, s]): [string, number, string] => [`statement: ${name}`, s.ms, fmt(s.calls)]),
    ["statements, all", statementsMs, fmt([...times.statements.values()].reduce((n, s) => n + s.calls, 0))],
    ["inside transactions, no statement (projecting, row codecs)", times.insideTransactionMs, ""],
    ["commit", times.commitMs, fmt(times.transactions)],
    [
      "outside transactions (fetch, decode, batching)",
      wallMs - statementsMs - times.insideTransactionMs - times.commitMs,
      "",
    ],
  ];
  console.log(
    `\n| ${kind}: where ${fmt(wallMs)} ms went | ms | share | µs per record | calls |\n|---|---:|---:|---:|---:|`,
  );
  for (const [name, ms, calls] of rows)
    console.log(
      `| ${name} | ${fmt(ms)} | ${((100 * ms) / wallMs).toFixed(1)} % | ${((1000 * ms) / total).toFixed(1)} | ${calls} |`,
    );
}

async function project(kind: string, env: NodeJS.ProcessEnv, total: number) {
  const config = loadConfig({
    ...process.env,
    ...env,
    A2A_LEDGER_TOPIC_SUFFIX: suffix,
    A2A_LEDGER_PROJECTOR_GROUP: `bench-projector-${kind}-${randomUUID().slice(0, 8)}`,
    A2A_LEDGER_PROJECTOR_PORT: "0",
  });
  const timed = profile ? timedStore(openStore(config.store)) : undefined;
  const store = timed?.store ?? openStore(config.store);
  await migrate(store);
  const metrics = createMetrics();
  const projector = new Projector(config, store, log, metrics);
  const started = now();
  await projector.start();
  await projector.caughtUp(3 * 60 * 60 * 1000);
  const seconds = (now() - started) / 1000;
  const projected = (await metrics.records.get()).values.reduce((n, v) => n + v.value, 0);
  if (projected !== total) console.log(`  (${kind}: ${fmt(projected)} records projected of ${fmt(total)})`);
  if (timed !== undefined) printProfile(kind, seconds * 1000, total, timed.times);

  const stream = new LiveStream(store);
  const server = buildServer({ config, store, stream, metrics, kafka: projector, logger: false });
  const url = await server.listen({ host: "127.0.0.1", port: 0 });
  const latency = await apiLatency(url, Math.floor(observationCount / 11), queryCount);
  await server.close();
  stream.stop();
  await projector.stop();
  await store.close();
  return { seconds, latency };
}

async function main(): Promise<void> {
  const admin = kafka.admin();
  await admin.connect();
  await serde.registerAll();
  await ensureTopics(admin, topicSpecs(topics));
  const dir = mkdtempSync(join(tmpdir(), "projector-bench-"));
  const postgres = stores.includes("postgres") ? await startPostgres() : undefined;
  try {
    const counts = await load();
    const total = Object.values(counts).reduce((a, b) => a + b, 0);
    const baseline = await decodeOnly(total);
    console.log(`decode only: ${fmt(total)} records in ${baseline.toFixed(1)} s = ${fmt(total / baseline)} records/s`);
    const results: { kind: string; seconds: number; latency: Record<string, Percentiles> }[] = [];
    for (const kind of stores) {
      const env =
        kind === "sqlite"
          ? { A2A_LEDGER_PROJECTOR_SQLITE_PATH: join(dir, "bench.sqlite") }
          : { A2A_LEDGER_PROJECTOR_DATABASE_URL: await freshDatabase((postgres as { url: string }).url) };
      const r = await project(kind, env, total);
      results.push({ kind, ...r });
      console.log(
        `${kind}: ${fmt(total)} records in ${r.seconds.toFixed(1)} s = ${fmt(total / r.seconds)} records/s, ${(total / r.seconds / (total / baseline)).toFixed(2)} of decode only`,
      );
    }
    console.log(
      `\n| measure (${fmt(observationCount)} observations, ${fmt(total)} records) | records/s | vs decode only |\n|---|---:|---:|`,
    );
    console.log(`| decode only (baseline) | ${fmt(total / baseline)} | 1.00 |`);
    for (const r of results)
      console.log(`| projector into ${r.kind} | ${fmt(total / r.seconds)} | ${(baseline / r.seconds).toFixed(2)} |`);
    console.log(
      `\n| query (${fmt(queryCount)} requests each) | ${results.map((r) => `${r.kind} p50 / p99 / max ms`).join(" | ")} |\n|---|${results.map(() => "---:").join("|")}|`,
    );
    for (const name of Object.keys(results[0]?.latency ?? {})) {
      console.log(
        `| ${name} | ${results
          .map((r) => {
            const l = r.latency[name] as Percentiles;
            return `${l.p50.toFixed(1)} / ${l.p99.toFixed(1)} / ${l.max.toFixed(1)}`;
          })
          .join(" | ")} |`,
      );
    }
  } finally {
    await admin.deleteTopics({ topics: Object.values(topics) }).catch(() => undefined);
    await admin.disconnect();
    await postgres?.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
process.exit(0);
