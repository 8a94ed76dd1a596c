/**
 * `npm run bench:scale -w @a2a-ledger/projector` (needs the schema registry: `npm run infra:up`).
 *
 * The API's latency as the store grows to millions of events. OBSERVATIONS observations of the core's
 * generated log (default 1,000,000), decided by the core's decider, encoded and decoded with the ledger's
 * Serde as the projector reads them, are written by the projector's own batch writer (`writeBatch`, one
 * transaction per topic for every 1,000 observations, the topics in log order) into a fresh store per
 * kind, streamed. Kafka is not in the loop (bench/projector.bench.ts measures the projector behind it):
 * what is measured is how the stored views answer at a size. Each time the events stored pass a mark
 * (MARKS, in millions of events; default 1,2,5,10), the API on each store answers QUERIES requests of
 * each kind (default 500; bench/api-latency.ts) and the p50 / p99 / max are printed.
 *
 * STORES=sqlite,postgres picks the stores (PostgreSQL: a throwaway server, or
 * A2A_LEDGER_PROJECTOR_DATABASE_URL). The generated log is held in memory (about 350 bytes an
 * observation): the script lets Node take 12 GiB, what ten million events need.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { endpointsFromEnv, suffixedTopicNames } from "@a2a-ledger/kafka";
import { Serde } from "@a2a-ledger/schemas/serde";
import { InputDecoder, type ProjectorInput, topicRoles } from "../src/inputs.ts";
import { LiveStream } from "../src/live-stream.ts";
import { createMetrics } from "../src/metrics.ts";
import { buildServer } from "../src/server.ts";
import { migrate } from "../src/store/generations.ts";
import { PostgresStore } from "../src/store/postgres-store.ts";
import { tableNames } from "../src/store/schema.ts";
import { SqliteStore } from "../src/store/sqlite-store.ts";
import type { Store } from "../src/store/store.ts";
import { writeBatch } from "../src/views/writer.ts";
import { freshDatabase, startPostgres } from "../test/postgres.ts";
import { apiLatency, type Percentiles } from "./api-latency.ts";
import { decidedLog } from "./decided-log.ts";

const observationCount = Number(process.env.OBSERVATIONS ?? 1_000_000);
const queryCount = Number(process.env.QUERIES ?? 500);
const marks = (process.env.MARKS ?? "1,2,5,10").split(",").map((m) => Math.round(Number(m) * 1_000_000));
const stores = (process.env.STORES ?? "sqlite").split(",").map((s) => s.trim());
const batchSize = 1_000;
const serde = new Serde(endpointsFromEnv().registryUrl);
const topics = suffixedTopicNames("bench-scale");
const fmt = (n: number) => Math.round(n).toLocaleString("en-US");

interface Target {
  kind: string;
  store: Store;
  generation: number;
}

async function eventsStored(target: Target): Promise<number> {
  const t = tableNames(target.generation);
  const [row] = await target.store.read((r) => r.all(`SELECT COUNT(*) AS n FROM ${t.event}`));
  return Number(row?.n);
}

/** The API of a store, without Kafka: a projector that is up to date (nothing follows the topics). */
async function latencyOf(target: Target, tasks: number): Promise<Record<string, Percentiles>> {
  const stream = new LiveStream(target.store);
  const server = buildServer({
    config: { policy: { trustedVendors: [] }, cursorSecret: "bench-scale-cursor-secret", maxStreams: 1 },
    store: target.store,
    stream,
    metrics: createMetrics(),
    kafka: { endOffsets: async () => [], kafkaReachable: async () => true, consuming: () => true },
    logger: false,
  });
  const url = await server.listen({ host: "127.0.0.1", port: 0 });
  try {
    return await apiLatency(url, tasks, queryCount);
  } finally {
    await server.close();
    stream.stop();
  }
}

async function main(): Promise<void> {
  await serde.registerAll();
  const dir = mkdtempSync(join(tmpdir(), "projector-scale-"));
  const postgres =
    stores.includes("postgres") && process.env.A2A_LEDGER_PROJECTOR_DATABASE_URL === undefined
      ? await startPostgres()
      : undefined;
  const targets: Target[] = [];
  try {
    for (const kind of stores) {
      const store: Store =
        kind === "sqlite"
          ? new SqliteStore(join(dir, "scale.sqlite"))
          : new PostgresStore(
              postgres !== undefined
                ? await freshDatabase(postgres.url)
                : (process.env.A2A_LEDGER_PROJECTOR_DATABASE_URL as string),
            );
      targets.push({ kind, store, generation: (await migrate(store)) as number });
    }
    const decoder = new InputDecoder(serde, topics);
    const offsets = new Map<string, number>();
    const pending = new Map<string, ProjectorInput[]>(topicRoles.map((r) => [topics[r], []]));
    const writeSeconds = new Map<string, number>(stores.map((k) => [k, 0]));
    const started = performance.now();
    const timestamp = Date.UTC(2025, 5, 1);
    let observations = 0;
    let records = 0;
    let nextMark = 0;
    const flush = async () => {
      for (const [topic, batch] of pending) {
        if (batch.length === 0) continue;
        for (const target of targets) {
          const t = performance.now();
          const outcome = await writeBatch(target.store, target.generation, topic, 0, batch, { lowWatermark: 0 });
          writeSeconds.set(target.kind, (writeSeconds.get(target.kind) ?? 0) + (performance.now() - t) / 1000);
          if (outcome.kind !== "written") throw new Error(`${target.kind}, ${topic}: ${outcome.kind}`);
        }
        pending.set(topic, []);
      }
    };
    console.log(
      `| store | events stored | tasks | written in s (writer only) | ${[
        "lineage of a random task",
        "task list by worker",
        "task list, second page by cursor",
      ]
        .map((q) => `${q} p50 / p99 / max ms`)
        .join(" | ")} |\n|---|---:|---:|---:|---:|---:|---:|`,
    );
    const measure = async () => {
      for (const target of targets) {
        const events = await eventsStored(target);
        // Tasks written so far (task-1 … task-<n>); the newest tenth may still lack its dispatch, so lineage draws from the rest.
        const tasks = Math.floor((observations / 11) * 0.9);
        const latency = await latencyOf(target, tasks);
        const all = Object.entries(latency)
          .map(([q, l]) => `${q} ${l.p50.toFixed(1)} / ${l.p99.toFixed(1)} / ${l.max.toFixed(1)}`)
          .join("; ");
        const cell = (q: string) => {
          const l = latency[q] as Percentiles;
          return `${l.p50.toFixed(1)} / ${l.p99.toFixed(1)} / ${l.max.toFixed(1)}`;
        };
        const row = `| ${target.kind} | ${fmt(events)} | ${fmt(tasks)} | ${(writeSeconds.get(target.kind) ?? 0).toFixed(0)} | ${cell("lineage of a random task")} | ${cell("task list by worker")} | ${cell("task list, second page by cursor")} |`;
        console.log(`${row}\n  (every request: ${all})`);
      }
    };
    for await (const r of decidedLog(observationCount, serde)) {
      const topic = topics[r.role];
      const offset = offsets.get(topic) ?? 0;
      offsets.set(topic, offset + 1);
      (pending.get(topic) as ProjectorInput[]).push(
        await decoder.decode(
          { topic, partition: 0, offset, timestamp: timestamp + records },
          { key: Buffer.from(r.key), value: r.value },
        ),
      );
      records++;
      if (r.role !== "observations" || ++observations % batchSize !== 0) continue;
      await flush();
      // Events are observations and decisions; the count is checked against the store at each mark.
      if (nextMark < marks.length && records >= (marks[nextMark] as number)) {
        await measure();
        while (nextMark < marks.length && records >= (marks[nextMark] as number)) nextMark++;
      }
    }
    await flush();
    if (nextMark < marks.length) await measure();
    console.log(
      `\n${fmt(observationCount)} observations, ${fmt(records)} records, in ${((performance.now() - started) / 1000).toFixed(0)} s (generation, encoding, decoding and writing)`,
    );
  } finally {
    for (const target of targets) await target.store.close();
    await postgres?.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
process.exit(0);
