/**
 * `npm run bench:replication`: ingest and the reconciler on three replicated brokers against one broker,
 * measured in the same run. Starts a private one-node and a private three-node cluster (and one registry,
 * on the one-node cluster: the schemas do not depend on where records go), then runs the ingest and
 * reconciler benchmarks against each in turn (ROUNDS rounds, the order alternating), and prints each
 * figure on both clusters with the ratio three / one.
 *
 *   ROUNDS (default 1), OBSERVATIONS (reconciler bench, default 20000), KEEP_CLUSTERS=1 (leave them running)
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  applyProjectSetup,
  loadConfig,
  repoRoot,
  startKafka,
  startRegistry,
  stopKafka,
  stopRegistry,
  type StackConfig,
} from "../src/index.ts";

const rounds = Number(process.env.ROUNDS ?? 1);
const observations = process.env.OBSERVATIONS ?? "20000";

function cluster(nodes: number, port: number): StackConfig {
  return loadConfig({
    ...process.env,
    KAFKA_BROKERS: "",
    SCHEMA_REGISTRY_URL: "",
    A2A_LEDGER_KAFKA_NODES: String(nodes),
    A2A_LEDGER_KAFKA_PORT: String(port),
    A2A_LEDGER_KAFKA_CONTROLLER_PORT: String(port + 1),
    A2A_LEDGER_REGISTRY_PORT: "18581",
    A2A_LEDGER_DATA_DIR: mkdtempSync(join(tmpdir(), `bench-${nodes}-node-`)),
  });
}

/** Runs a workspace's bench against `brokers`; its stdout. */
function bench(workspace: string, brokers: string, registryUrl: string, env: NodeJS.ProcessEnv = {}): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn("npm", ["run", "--silent", "bench", "-w", workspace], {
      cwd: repoRoot,
      env: {
        ...process.env,
        ...env,
        KAFKA_BROKERS: brokers,
        SCHEMA_REGISTRY_URL: registryUrl,
        A2A_LEDGER_KAFKA_LOG_LEVEL: "nothing",
      },
      stdio: ["ignore", "pipe", "inherit"],
    });
    let out = "";
    child.stdout.on("data", (c: Buffer) => {
      out += c.toString();
      process.stderr.write(c);
    });
    child.on("exit", (code) => (code === 0 ? resolve(out) : reject(new Error(`${workspace} bench exited ${code}`))));
  });
}

const number = (text: string | undefined) => (text === undefined ? Number.NaN : Number(text.replace(/,/g, "")));

/** The figures this comparison reads from the two benchmarks' output. */
function figures(ingest: string, reconciler: string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const m of ingest.matchAll(
    /^\| HTTP ingest \| ([\d,]+) \| \d+ \| [\d,]+ \| ([\d,]+) \| ([\d,.]+) \| ([\d,.]+) \|/gm,
  )) {
    out[`ingest, batches of ${m[1]}: observations/s`] = number(m[2]);
    out[`ingest, batches of ${m[1]}: p99 ms`] = number(m[4]);
  }
  out["Java ProducerPerformance (acks=all): records/s"] = number(
    /^\| ProducerPerformance \| - \| 1 \| - \| ([\d,]+) \|/m.exec(ingest)?.[1],
  );
  out["reconciler (exactly once): observations/s"] = number(/^ {2}reconciler\s+([\d,]+)/m.exec(reconciler)?.[1]);
  out["EOS passthrough: observations/s"] = number(/^ {2}eos\s+([\d,]+)/m.exec(reconciler)?.[1]);
  out["reconciler / EOS passthrough"] = number(
    /^ratio reconciler \/ EOS passthrough:\s+([\d.]+)/m.exec(reconciler)?.[1],
  );
  out["loss → re-dispatch readable: p99 ms"] = number(/latency ms: p50 [\d,.]+, p99 ([\d,.]+)/.exec(reconciler)?.[1]);
  return out;
}

const one = cluster(1, 19592);
const three = cluster(3, 19692);
const started = Date.now();
const oneBrokers = await startKafka(one);
const threeBrokers = await startKafka(three);
const registryUrl = await startRegistry(one, {
  name: "bench-registry",
  port: 18581,
  brokers: oneBrokers,
  journalTopic: "kafkasql-journal",
});
await applyProjectSetup(oneBrokers, registryUrl);
await applyProjectSetup(threeBrokers, registryUrl);
process.stderr.write(
  `clusters up in ${((Date.now() - started) / 1000).toFixed(0)} s: one node ${oneBrokers}; three nodes ${threeBrokers}\n`,
);

const results: Record<"one" | "three", Record<string, number>[]> = { one: [], three: [] };
try {
  for (let round = 0; round < rounds; round++) {
    const order: ["one" | "three", string][] =
      round % 2 === 0
        ? [
            ["one", oneBrokers],
            ["three", threeBrokers],
          ]
        : [
            ["three", threeBrokers],
            ["one", oneBrokers],
          ];
    for (const [label, brokers] of order) {
      process.stderr.write(`\n== round ${round + 1}: ${label === "one" ? "one broker" : "three brokers"} ==\n`);
      const ingest = await bench("@a2a-ledger/ingest", brokers, registryUrl);
      const reconciler = await bench("@a2a-ledger/reconciler", brokers, registryUrl, {
        OBSERVATIONS: observations,
        ROUNDS: "1",
      });
      results[label].push(figures(ingest, reconciler));
    }
  }
} finally {
  if (process.env.KEEP_CLUSTERS !== "1") {
    await stopRegistry(one, "bench-registry");
    for (const c of [one, three]) {
      await stopKafka(c);
      rmSync(c.dataDir, { recursive: true, force: true });
    }
  }
}

const mean = (rows: Record<string, number>[], key: string) =>
  rows.reduce((n, r) => n + (r[key] ?? Number.NaN), 0) / rows.length;
const fmt = (n: number) =>
  Number.isNaN(n) ? "–" : n.toLocaleString("en-US", { maximumFractionDigits: n < 10 ? 2 : 0 });
const lines = [
  `Ingest and the reconciler on three replicated brokers (factor 3, min.insync.replicas 2) against one broker, same machine, same run, mean of ${rounds} round(s):`,
  "",
  "| figure | one broker | three brokers | three / one |",
  "|---|---:|---:|---:|",
];
for (const key of Object.keys(results.one[0] ?? {})) {
  const a = mean(results.one, key);
  const b = mean(results.three, key);
  lines.push(`| ${key} | ${fmt(a)} | ${fmt(b)} | ${fmt(b / a)} |`);
}
process.stdout.write(`${lines.join("\n")}\n`);
