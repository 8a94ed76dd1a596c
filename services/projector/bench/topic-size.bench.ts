/**
 * `npm run bench:topics -w @a2a-ledger/projector` (against the native one-node stack of `npm run infra:up`).
 *
 * What the ledger's topics keep on a broker's disk per observation. OBSERVATIONS observations of the
 * core's generated log (default 50,000) are posted through the real ingest API (its Kafka sink, batches
 * of 1,000) into a throwaway suffixed topic set, the real reconciler decides them, and then the log
 * segment files (`*.log`) of each topic's partitions are summed in the broker's data directory
 * (KAFKA_LOG_DIR, default the native stack's `.a2a-ledger/kafka/data`; kafkajs has no DescribeLogDirs).
 * That is one replica: at replication factor 3 every byte is on three brokers. Indexes (`.index`,
 * `.timeindex`) are left out: preallocated sparse files while a segment is active, about 1 % of the
 * segment once rolled. Topics are removed at the end.
 */
import { existsSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { generateLog } from "@a2a-ledger/core/testing";
import {
  deleteTopics,
  fixture,
  kafka,
  serde,
  startIngest,
  startReconciler,
  waitForGroupAtEnd,
} from "../test/pipeline.ts";

const observationCount = Number(process.env.OBSERVATIONS ?? 50_000);
const logDir = process.env.KAFKA_LOG_DIR ?? new URL("../../../.a2a-ledger/kafka/data", import.meta.url).pathname;
const fmt = (n: number) => Math.round(n).toLocaleString("en-US");

/** Bytes of the `.log` segment files of every partition of `topic`. */
function segmentBytes(topic: string): { bytes: number; partitions: number } {
  let bytes = 0;
  let partitions = 0;
  for (const entry of readdirSync(logDir)) {
    if (!entry.startsWith(`${topic}-`) || !/^\d+$/.test(entry.slice(topic.length + 1))) continue;
    partitions++;
    for (const file of readdirSync(join(logDir, entry)))
      if (file.endsWith(".log")) bytes += statSync(join(logDir, entry, file)).size;
  }
  return { bytes, partitions };
}

async function main(): Promise<void> {
  if (!existsSync(logDir)) throw new Error(`no broker data directory at ${logDir}: set KAFKA_LOG_DIR`);
  const admin = kafka.admin();
  await admin.connect();
  await serde.registerAll();
  const f = await fixture(admin, "bench-topic-size");
  const ingest = await startIngest(f);
  const reconciler = await startReconciler(f);
  try {
    const lines = generateLog(observationCount).map((l) => JSON.parse(l) as Record<string, unknown>);
    const jsonBytes = lines.reduce((n, o) => n + Buffer.byteLength(JSON.stringify(o)), 0);
    const correlations = new Set(lines.map((o) => String(o.correlationId))).size;
    const started = performance.now();
    for (let i = 0; i < lines.length; i += 1_000) await ingest.post(lines.slice(i, i + 1_000));
    const posted = (performance.now() - started) / 1000;
    await waitForGroupAtEnd(admin, `reconciler-${f.suffix}`, f.topics.observations, 600_000);
    console.log(
      `${fmt(observationCount)} observations (${fmt(correlations)} correlations, ${fmt(jsonBytes / observationCount)} bytes each as ingest JSON) posted in ${posted.toFixed(1)} s and decided`,
    );
    console.log(
      `\n| topic (one replica, ${logDir}) | partitions | segment bytes | bytes per observation |\n|---|---:|---:|---:|`,
    );
    let total = 0;
    for (const [role, topic] of Object.entries(f.topics)) {
      const { bytes, partitions } = segmentBytes(topic);
      if (partitions === 0) continue;
      total += bytes;
      console.log(
        `| \`${topic.replace(`.${f.suffix}`, "")}\` (${role}) | ${partitions} | ${fmt(bytes)} | ${(bytes / observationCount).toFixed(1)} |`,
      );
    }
    console.log(
      `| all topics | | ${fmt(total)} | **${(total / observationCount).toFixed(1)}** (× 3 at factor 3: ${((3 * total) / observationCount).toFixed(1)}) |`,
    );
  } finally {
    await reconciler.stop();
    await ingest.close();
    await deleteTopics(admin, f);
    await admin.disconnect();
  }
}

await main();
process.exit(0);
