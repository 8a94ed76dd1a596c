/**
 * `npm run bench:size -w @a2a-ledger/projector` (needs the schema registry: `npm run infra:up`).
 *
 * What the projector keeps per correlation. OBSERVATIONS observations of the core's generated log
 * (default 170,000: about 23,000 correlations of five to eleven observations, 10 % lost and
 * re-dispatched, 5 % failed), decided by the core's decider, encoded and decoded with the ledger's
 * Serde as the projector reads them, and written by the projector's own batch writer (`writeBatch`,
 * 1,000 records per transaction, one topic at a time in log order) into a fresh SQLite file and a
 * fresh PostgreSQL database (a throwaway server, or A2A_LEDGER_PROJECTOR_DATABASE_URL). Kafka is not
 * in the loop: what is measured is the views' rows. Then the size:
 *   SQLite: page_count × page_size after a WAL checkpoint (TRUNCATE), and per table from dbstat;
 *   PostgreSQL: pg_total_relation_size (tables, indexes, TOAST) of the generation's tables, as written
 *   and after VACUUM FULL (the upserts of task rows leave dead tuples until autovacuum reuses them).
 * Last, `prune` of the older half of the correlations: its duration, and the size after.
 *
 * STORES=sqlite,postgres picks the stores.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import pg from "pg";
import { endpointsFromEnv, suffixedTopicNames } from "@a2a-ledger/kafka";
import { Serde } from "@a2a-ledger/schemas/serde";
import { InputDecoder, type ProjectorInput } from "../src/inputs.ts";
import { prune } from "../src/prune.ts";
import { activeGeneration, migrate } from "../src/store/generations.ts";
import { PostgresStore } from "../src/store/postgres-store.ts";
import { tableNames } from "../src/store/schema.ts";
import { SqliteStore } from "../src/store/sqlite-store.ts";
import type { Store } from "../src/store/store.ts";
import { writeBatch } from "../src/views/writer.ts";
import { freshDatabase, startPostgres } from "../test/postgres.ts";
import { decidedLog } from "./decided-log.ts";

const observationCount = Number(process.env.OBSERVATIONS ?? 170_000);
const stores = (process.env.STORES ?? "sqlite,postgres").split(",").map((s) => s.trim());
const batchSize = 1_000;
const serde = new Serde(endpointsFromEnv().registryUrl);
const topics = suffixedTopicNames("bench-size");
const fmt = (n: number) => Math.round(n).toLocaleString("en-US");
const mib = (n: number) => `${(n / 1024 / 1024).toFixed(1)} MiB`;

/** The decoded inputs per topic, in offset order, and the number of records. */
async function inputs(): Promise<{
  byTopic: Map<string, ProjectorInput[]>;
  total: number;
  bytes: Record<string, number>;
}> {
  const decoder = new InputDecoder(serde, topics);
  const byTopic = new Map<string, ProjectorInput[]>();
  const bytes: Record<string, number> = {};
  let total = 0;
  const timestamp = Date.UTC(2025, 5, 1);
  for await (const r of decidedLog(observationCount, serde)) {
    const topic = topics[r.role];
    const list = byTopic.get(topic) ?? (byTopic.set(topic, []).get(topic) as ProjectorInput[]);
    list.push(
      await decoder.decode(
        { topic, partition: 0, offset: list.length, timestamp: timestamp + total },
        { key: Buffer.from(r.key), value: r.value },
      ),
    );
    bytes[r.role] = (bytes[r.role] ?? 0) + r.value.length + Buffer.byteLength(r.key);
    total++;
  }
  return { byTopic, total, bytes };
}

/** Writes every topic's inputs in batches, the topics interleaved batch by batch as a consumer reads them. */
async function project(store: Store, byTopic: Map<string, ProjectorInput[]>): Promise<number> {
  const gen = (await migrate(store)) as number;
  const started = performance.now();
  const longest = Math.max(...[...byTopic.values()].map((l) => l.length));
  for (let from = 0; from < longest; from += batchSize) {
    for (const [topic, list] of byTopic) {
      const batch = list.slice(from, from + batchSize);
      if (batch.length === 0) continue;
      const outcome = await writeBatch(store, gen, topic, 0, batch, { lowWatermark: 0 });
      if (outcome.kind !== "written") throw new Error(`${topic} at ${from}: ${outcome.kind}`);
    }
  }
  return (performance.now() - started) / 1000;
}

interface Counts {
  correlations: number;
  events: number;
}

async function counts(store: Store): Promise<Counts> {
  const t = tableNames((await store.read(activeGeneration)) as number);
  const [c] = await store.read((r) =>
    r.all(`SELECT (SELECT COUNT(*) FROM ${t.task}) AS correlations, (SELECT COUNT(*) FROM ${t.event}) AS events`),
  );
  return { correlations: Number(c?.correlations), events: Number(c?.events) };
}

function sqliteSize(file: string): { total: number; free: number; tables: Record<string, number> } {
  const db = new Database(file);
  try {
    db.pragma("wal_checkpoint(TRUNCATE)");
    const pages = Number(db.pragma("page_count", { simple: true }));
    const pageSize = Number(db.pragma("page_size", { simple: true }));
    const free = Number(db.pragma("freelist_count", { simple: true }));
    const tables: Record<string, number> = {};
    try {
      // Indexes counted with their table, as pg_total_relation_size counts them.
      const rows = db
        .prepare(
          "SELECT COALESCE(s.tbl_name, d.name) AS name, SUM(d.pgsize) AS bytes FROM dbstat AS d LEFT JOIN sqlite_schema AS s ON s.name = d.name GROUP BY 1",
        )
        .all() as { name: string; bytes: number }[];
      for (const r of rows) {
        const table = r.name.replace(/^v\d+_/, "");
        tables[table] = (tables[table] ?? 0) + r.bytes;
      }
    } catch {
      // dbstat not compiled in: the total only.
    }
    return { total: pages * pageSize, free: free * pageSize, tables };
  } finally {
    db.close();
  }
}

async function postgresSize(store: Store): Promise<{ total: number; free: number; tables: Record<string, number> }> {
  const gen = (await store.read(activeGeneration)) as number;
  const tables: Record<string, number> = {};
  let total = 0;
  for (const [name, table] of Object.entries(tableNames(gen))) {
    const [row] = await store.read((r) => r.all(`SELECT pg_total_relation_size('${table}') AS bytes`));
    const bytes = Number(row?.bytes ?? 0);
    tables[name] = bytes;
    total += bytes;
  }
  return { total, free: 0, tables };
}

/** The cut that splits the correlations in two halves by last event. */
async function medianLastAt(store: Store): Promise<number> {
  const t = tableNames((await store.read(activeGeneration)) as number);
  const { correlations } = await counts(store);
  const [row] = await store.read((r) =>
    r.all(`SELECT last_at FROM ${t.task} ORDER BY last_at LIMIT 1 OFFSET ?`, [Math.floor(correlations / 2)]),
  );
  return Number(row?.last_at);
}

function perTable(tables: Record<string, number>, correlations: number): string {
  return Object.entries(tables)
    .filter(([, b]) => b > 0)
    .sort((a, b) => b[1] - a[1])
    .map(([name, b]) => `${name} ${fmt(b / correlations)}`)
    .join(", ");
}

async function main(): Promise<void> {
  await serde.registerAll();
  const dir = mkdtempSync(join(tmpdir(), "projector-size-"));
  const postgres =
    stores.includes("postgres") && process.env.A2A_LEDGER_PROJECTOR_DATABASE_URL === undefined
      ? await startPostgres()
      : undefined;
  const rows: string[] = [];
  try {
    const loadStarted = performance.now();
    const { byTopic, total, bytes } = await inputs();
    console.log(
      `${fmt(observationCount)} observations, ${fmt(total)} records (${Object.entries(bytes)
        .map(([r, b]) => `${r} ${mib(b)}`)
        .join(
          ", ",
        )} as Avro on the topics, key and value) generated and decoded in ${((performance.now() - loadStarted) / 1000).toFixed(1)} s`,
    );
    for (const kind of stores) {
      const file = join(dir, "size.sqlite");
      const url =
        kind === "postgres"
          ? postgres !== undefined
            ? await freshDatabase(postgres.url)
            : (process.env.A2A_LEDGER_PROJECTOR_DATABASE_URL as string)
          : "";
      const store: Store = kind === "sqlite" ? new SqliteStore(file) : new PostgresStore(url);
      try {
        const seconds = await project(store, byTopic);
        const c = await counts(store);
        const size = kind === "sqlite" ? sqliteSize(file) : await postgresSize(store);
        console.log(
          `${kind}: ${fmt(total)} records written in ${seconds.toFixed(1)} s; ${fmt(c.correlations)} correlations, ${fmt(c.events)} events; ${mib(size.total)} = ${fmt(size.total / c.correlations)} bytes/correlation`,
        );
        console.log(`  per table and its indexes, bytes/correlation: ${perTable(size.tables, c.correlations)}`);
        // Compacted: SQLite VACUUM, PostgreSQL VACUUM FULL (neither runs inside a transaction).
        if (kind === "sqlite") {
          const db = new Database(file);
          db.exec("VACUUM");
          db.close();
        } else {
          const client = new pg.Client({ connectionString: url });
          await client.connect();
          await client.query("VACUUM FULL");
          await client.end();
        }
        const compacted = kind === "sqlite" ? sqliteSize(file) : await postgresSize(store);
        console.log(
          `  compacted: ${mib(compacted.total)} = ${fmt(compacted.total / c.correlations)} bytes/correlation; per table: ${perTable(compacted.tables, c.correlations)}`,
        );
        const cut = await medianLastAt(store);
        const pruned = await prune(store, cut);
        const after = kind === "sqlite" ? sqliteSize(file) : await postgresSize(store);
        const left = await counts(store);
        console.log(
          `  prune before the median last event: ${fmt(pruned.correlations)} correlations, ${fmt(pruned.rows)} rows in ${pruned.chunks} transactions, ${(pruned.durationMs / 1000).toFixed(1)} s = ${fmt(pruned.correlations / (pruned.durationMs / 1000))} correlations/s; after: ${mib(after.total)} (${kind === "sqlite" ? `${mib(after.free)} free pages, reused by later writes` : "dead tuples until autovacuum"}), ${fmt(left.correlations)} correlations left`,
        );
        rows.push(
          `| ${kind} | ${fmt(c.correlations)} | ${fmt(c.events)} | ${mib(size.total)} | **${fmt(size.total / c.correlations)}** | ${fmt(compacted.total / c.correlations)} | ${(pruned.durationMs / 1000).toFixed(1)} s for ${fmt(pruned.correlations)} |`,
        );
      } finally {
        await store.close();
      }
    }
    console.log(
      "\n| store | correlations | events | views on disk | bytes/correlation | compacted | prune of the older half |\n|---|---:|---:|---:|---:|---:|---:|",
    );
    for (const r of rows) console.log(r);
  } finally {
    await postgres?.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
process.exit(0);
