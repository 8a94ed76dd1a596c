/**
 * Ingest throughput and latency through the HTTP API for batches of 1 (with 16 and with 64 clients),
 * 100 and 1,000 observations, against Kafka's own org.apache.kafka.tools.ProducerPerformance writing
 * records of the same size to the same broker, in the same run, reported as a ratio; and per scenario
 * the server process's CPU per observation and how busy it was (what bounds it: its CPU, or the wait
 * for Kafka's acknowledgements).
 *
 *   npm run bench -w @a2a-ledger/ingest
 *
 * BATCHES (default "1,100,1000") picks the scenarios by batch size. SERVER=dist runs the server as
 * `npm start` does (`node dist/main.js`, built first by turbo, cached when current) instead of from its
 * sources under tsx (the default, as the figures of BENCHMARKS.md before 2026-12-07 were taken).
 *
 * Uses the stack found through KAFKA_BROKERS / SCHEMA_REGISTRY_URL (`npm run infra:up`). The server
 * runs as a child process on 127.0.0.1; a dedicated bench topic is created and deleted. Every loop is
 * bounded in requests and in time.
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { randomUUID } from "node:crypto";
import { existsSync, renameSync, rmSync } from "node:fs";
import { Agent, request } from "node:http";
import { homedir } from "node:os";
import { join } from "node:path";
import { parseObservation } from "@a2a-ledger/core";
import { percentile, processCpuSeconds } from "@a2a-ledger/env/testing";
import {
  createKafka,
  createTopicsAndWait,
  endpointsFromEnv,
  replicationFor,
  sendAcknowledged,
} from "@a2a-ledger/kafka";
import { Serde } from "@a2a-ledger/schemas/serde";
import { observation } from "../test/observations.ts";

const kafkaVersion = "4.1.2";
const cacheDir = process.env.A2A_LEDGER_CACHE_DIR?.trim() || join(homedir(), ".cache", "a2a-ledger");
const serviceDir = new URL("..", import.meta.url).pathname;
const port = Number(process.env.BENCH_PORT ?? 18190);
const partitions = 6;

interface Scenario {
  batch: number;
  concurrency: number;
  maxRequests: number;
  maxSeconds: number;
}

const scenarios: Scenario[] = [
  { batch: 1, concurrency: 16, maxRequests: 40_000, maxSeconds: 15 },
  // The same with four times the clients: what bounds batches of 1 (the server's CPU, or each request's wait for Kafka).
  { batch: 1, concurrency: 64, maxRequests: 40_000, maxSeconds: 15 },
  { batch: 100, concurrency: 8, maxRequests: 4_000, maxSeconds: 15 },
  { batch: 1_000, concurrency: 4, maxRequests: 600, maxSeconds: 20 },
];
const javaRecords = 300_000;
const batches = new Set(
  (process.env.BATCHES ?? "1,100,1000")
    .split(",")
    .map((b) => Number(b.trim()))
    .filter((b) => b > 0),
);
const server = process.env.SERVER === "dist" ? "dist" : "source";
if (process.env.SERVER !== undefined && process.env.SERVER !== "dist" && process.env.SERVER !== "source")
  throw new Error(`SERVER=${process.env.SERVER}: expected dist or source`);

function log(message: string): void {
  process.stderr.write(`${message}\n`);
}

function kafkaToolsLibs(): string {
  const libs = join(cacheDir, `kafka-tools-${kafkaVersion}`);
  if (existsSync(join(libs, `kafka-tools-${kafkaVersion}.jar`))) return libs;
  log(`fetching org.apache.kafka:kafka-tools:${kafkaVersion} into ${libs}`);
  const staging = `${libs}.partial`;
  rmSync(staging, { recursive: true, force: true });
  const pom = join(serviceDir, "bench", "kafka-tools-pom.xml");
  const result = spawnSync(
    "mvn",
    [
      "-q",
      "-B",
      "-f",
      pom,
      `-Dkafka.version=${kafkaVersion}`,
      "dependency:copy-dependencies",
      "-DincludeScope=runtime",
      `-DoutputDirectory=${staging}`,
    ],
    { encoding: "utf8", timeout: 15 * 60_000 },
  );
  if (result.status !== 0) throw new Error(`mvn failed:\n${result.stdout}${result.stderr}`);
  renameSync(staging, libs);
  return libs;
}

function kafkaLibs(): string {
  const libs = join(cacheDir, `kafka-${kafkaVersion}`, "libs");
  if (!existsSync(join(libs, `kafka-clients-${kafkaVersion}.jar`)))
    throw new Error(`${libs} is missing: run \`npm run infra:up\` once, which fetches Kafka`);
  return libs;
}

interface IngestResult {
  batch: number;
  concurrency: number;
  requests: number;
  events: number;
  seconds: number;
  perSecond: number;
  p50: number;
  p99: number;
  failures: number;
  /** The server process's CPU (user + system) per acknowledged observation, µs, and its share of the wall time. */
  serverCpuPerObservation: number;
  serverBusy: number;
}

function post(agent: Agent, body: Buffer): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: "127.0.0.1",
        port,
        path: "/v1/observations",
        method: "POST",
        agent,
        headers: { "content-type": "application/json", "content-length": body.length },
      },
      (res) => {
        res.resume();
        res.on("end", () => resolve(res.statusCode ?? 0));
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

async function runIngest(scenario: Scenario, bodies: Buffer[], serverPid?: number): Promise<IngestResult> {
  const agent = new Agent({ keepAlive: true, maxSockets: scenario.concurrency });
  const cpuBefore = processCpuSeconds(serverPid) ?? Number.NaN;
  const latencies: number[] = [];
  let requests = 0;
  let failures = 0;
  const started = performance.now();
  const deadline = started + scenario.maxSeconds * 1000;
  await Promise.all(
    Array.from({ length: scenario.concurrency }, async (_, worker) => {
      for (let i = worker; requests < scenario.maxRequests && performance.now() < deadline; i += scenario.concurrency) {
        requests += 1;
        const t0 = performance.now();
        const status = await post(agent, bodies[i % bodies.length]!);
        if (status === 202) latencies.push(performance.now() - t0);
        else failures += 1;
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  const serverCpu = (processCpuSeconds(serverPid) ?? Number.NaN) - cpuBefore;
  agent.destroy();
  latencies.sort((a, b) => a - b);
  const events = latencies.length * scenario.batch;
  return {
    batch: scenario.batch,
    concurrency: scenario.concurrency,
    requests,
    events,
    seconds,
    perSecond: events / seconds,
    p50: percentile(latencies, 0.5),
    p99: percentile(latencies, 0.99),
    failures,
    serverCpuPerObservation: (serverCpu * 1e6) / Math.max(1, events),
    serverBusy: serverCpu / seconds,
  };
}

interface JavaResult {
  records: number;
  perSecond: number;
  mbPerSecond: number;
  avgMs: number;
  p50: number;
  p99: number;
  line: string;
}

function runJava(brokers: string, topic: string, recordSize: number): JavaResult {
  const classpath = `${kafkaLibs()}/*:${kafkaToolsLibs()}/*`;
  const args = [
    "-Xms256m",
    "-Xmx512m",
    "-cp",
    classpath,
    "org.apache.kafka.tools.ProducerPerformance",
    "--topic",
    topic,
    "--num-records",
    String(javaRecords),
    "--record-size",
    String(recordSize),
    "--throughput",
    "-1",
    "--producer-props",
    `bootstrap.servers=${brokers}`,
    "acks=all",
    "enable.idempotence=true",
  ];
  const result = spawnSync("java", args, { encoding: "utf8", timeout: 5 * 60_000 });
  const line =
    result.stdout
      .trim()
      .split("\n")
      .filter((l) => l.includes("records sent"))
      .at(-1) ?? "";
  const m =
    /(\d+) records sent, ([\d.]+) records\/sec \(([\d.]+) MB\/sec\), ([\d.]+) ms avg latency, [\d.]+ ms max latency, (\d+) ms 50th, \d+ ms 95th, (\d+) ms 99th/.exec(
      line,
    );
  if (result.status !== 0 || m === null)
    throw new Error(`ProducerPerformance failed:\n${result.stdout}\n${result.stderr}`);
  return {
    records: Number(m[1]),
    perSecond: Number(m[2]),
    mbPerSecond: Number(m[3]),
    avgMs: Number(m[4]),
    p50: Number(m[5]),
    p99: Number(m[6]),
    line,
  };
}

interface StageCosts {
  jsonParse: number;
  parseObservation: number;
  encode: number;
  encodeValidated: number;
  kafkajsCpu: number;
  kafkajsPerSecond: number;
}

/** CPU per observation of each stage of the ingest path, in µs, measured in this process. */
async function stageCosts(
  kafka: ReturnType<typeof createKafka>,
  topic: string,
  events: Record<string, unknown>[],
  serde: Serde,
): Promise<StageCosts> {
  const batch = events.slice(0, 1_000);
  const body = JSON.stringify(batch);
  const rounds = 20;
  const cpu = (f: () => void): number => {
    f();
    const c0 = process.cpuUsage();
    for (let r = 0; r < rounds; r++) f();
    const used = process.cpuUsage(c0);
    return (used.user + used.system) / (rounds * batch.length);
  };
  const jsonParse = cpu(() => JSON.parse(body));
  const parseCost = cpu(() => batch.forEach((e) => parseObservation(e)));
  const observations = batch.map((e) => {
    const r = parseObservation(e);
    if (!r.ok) throw new Error("bench event invalid");
    return r.observation;
  });
  for (const o of observations) await serde.encode(o);
  let c0 = process.cpuUsage();
  for (let r = 0; r < rounds; r++) for (const o of observations) await serde.encode(o);
  let used = process.cpuUsage(c0);
  const encode = (used.user + used.system) / (rounds * batch.length);
  for (const o of observations) await serde.encodeValidated(o);
  c0 = process.cpuUsage();
  for (let r = 0; r < rounds; r++) for (const o of observations) await serde.encodeValidated(o);
  used = process.cpuUsage(c0);
  const encodeValidated = (used.user + used.system) / (rounds * batch.length);
  const records = await Promise.all(
    observations.map(async (o) => ({ key: o.correlationId, value: await serde.encodeValidated(o) })),
  );
  const producer = kafka.producer({ idempotent: true });
  await producer.connect();
  try {
    // As the sink sends a chunk: partitioned by the key's murmur2, one request per broker.
    for (let r = 0; r < 3; r++) await sendAcknowledged(producer, topic, records, partitions);
    c0 = process.cpuUsage();
    const t0 = performance.now();
    for (let r = 0; r < rounds; r++) await sendAcknowledged(producer, topic, records, partitions);
    used = process.cpuUsage(c0);
    const seconds = (performance.now() - t0) / 1000;
    return {
      jsonParse,
      parseObservation: parseCost,
      encode,
      encodeValidated,
      kafkajsCpu: (used.user + used.system) / (rounds * records.length),
      kafkajsPerSecond: (rounds * records.length) / seconds,
    };
  } finally {
    await producer.disconnect();
  }
}

async function waitReady(child: ChildProcess): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`ingest server exited with ${child.exitCode}`);
    const ok = await fetch(`http://127.0.0.1:${port}/readyz`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) return;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error("ingest server not ready after 60 s");
}

async function main(): Promise<void> {
  const { brokers, registryUrl } = endpointsFromEnv();
  kafkaToolsLibs();
  const kafka = createKafka({ brokers, clientId: "ingest-bench" });
  const admin = kafka.admin();
  await admin.connect();
  const ingestTopic = `bench.ingest.${randomUUID().slice(0, 8)}`;
  const javaTopic = `bench.producer-performance.${randomUUID().slice(0, 8)}`;
  // Replicated as the ledger's topics are on this cluster (factor min(3, brokers), two in sync at three).
  const replication = replicationFor((await admin.describeCluster()).brokers.length);
  const configEntries = Object.entries(replication.configs).map(([name, value]) => ({ name, value }));
  await createTopicsAndWait(
    admin,
    [ingestTopic, javaTopic].map((topic) => ({
      topic,
      numPartitions: partitions,
      replicationFactor: replication.factor,
      configEntries,
    })),
  );

  // Bodies: the six observation types in turn, 64 correlations; reused across requests (consumers de-duplicate by eventId).
  const run = `bench-${Date.now()}`;
  const events = Array.from({ length: 4_000 }, (_, i) => observation(run, i, `${run}-c${i % 64}`));
  const serde = new Serde(registryUrl);
  let encodedBytes = 0;
  for (const e of events.slice(0, 600)) {
    const parsed = parseObservation(e);
    if (!parsed.ok) throw new Error("bench event invalid");
    encodedBytes += (await serde.encode(parsed.observation)).length;
  }
  const recordSize = Math.round(encodedBytes / 600);
  const jsonBytes = Math.round(events.slice(0, 600).reduce((n, e) => n + JSON.stringify(e).length, 0) / 600);

  if (server === "dist") {
    log("building the server and what it imports (turbo, cached when current)");
    const built = spawnSync(
      "npx",
      ["turbo", "run", "build", "--filter=@a2a-ledger/ingest...", "--output-logs=errors-only"],
      {
        cwd: serviceDir,
        stdio: ["ignore", "inherit", "inherit"],
      },
    );
    if (built.status !== 0) throw new Error("npm run build failed: the server cannot run as built");
  }
  const child = spawn(process.execPath, server === "dist" ? ["dist/main.js"] : ["--import", "tsx", "src/main.ts"], {
    cwd: serviceDir,
    env: {
      ...process.env,
      // The built server resolves the workspace packages to their dist/ too, not to their sources.
      ...(server === "dist" ? { NODE_OPTIONS: "" } : {}),
      A2A_LEDGER_INGEST_PORT: String(port),
      A2A_LEDGER_INGEST_HOST: "127.0.0.1",
      A2A_LEDGER_INGEST_TOPIC: ingestTopic,
      A2A_LEDGER_INGEST_LOG_LEVEL: "warn",
      A2A_LEDGER_INGEST_MAX_EVENTS: "1000",
      A2A_LEDGER_INGEST_MAX_QUEUED_RECORDS: "200000",
      // The scenarios send up to 85,000 requests within a minute from one address: the per-caller limit
      // (100,000 a minute) is not what this measures, and a run that reached it would answer 429s.
      A2A_LEDGER_INGEST_RATE_LIMIT: "0",
      KAFKA_BROKERS: brokers,
      SCHEMA_REGISTRY_URL: registryUrl,
    },
    stdio: ["ignore", "inherit", "inherit"],
  });
  const results: IngestResult[] = [];
  let java: JavaResult | undefined;
  let costs: StageCosts | undefined;
  try {
    await waitReady(child);
    const bodiesFor = (batch: number) =>
      Array.from({ length: Math.max(1, Math.min(64, Math.floor(events.length / batch))) }, (_, k) =>
        Buffer.from(JSON.stringify(events.slice(k * batch, (k + 1) * batch))),
      );
    log("warming up");
    await runIngest({ batch: 100, concurrency: 4, maxRequests: 300, maxSeconds: 5 }, bodiesFor(100));
    for (const scenario of scenarios.filter((s) => batches.has(s.batch))) {
      log(`ingest: batches of ${scenario.batch}, ${scenario.concurrency} concurrent clients`);
      results.push(await runIngest(scenario, bodiesFor(scenario.batch), child.pid));
    }
    log(`ProducerPerformance: ${javaRecords} records of ${recordSize} bytes, acks=all, idempotent`);
    java = runJava(brokers, javaTopic, recordSize);
    log("stage costs (in-process, server stopped)");
    child.kill("SIGTERM");
    costs = await stageCosts(kafka, javaTopic, events, serde);
  } finally {
    if (child.exitCode === null) {
      child.kill("SIGTERM");
      await new Promise((resolve) => child.once("exit", resolve));
    }
    await admin.deleteTopics({ topics: [ingestTopic, javaTopic] }).catch(() => undefined);
    await admin.disconnect();
  }

  const fmt = (n: number, digits = 0) =>
    n.toLocaleString("en-US", { maximumFractionDigits: digits, minimumFractionDigits: digits });
  const lines = [
    `Records: mixed observation types, ${jsonBytes} bytes of JSON, ${recordSize} bytes Avro (Confluent framing) on average; topic with ${partitions} partitions; acks=all, idempotent producer. Server: ${server === "dist" ? "as built (node dist/main.js)" : "from its sources under tsx"}.`,
    "",
    "| path | batch | concurrent clients | requests | observations/s | p50 ms | p99 ms | server CPU µs/obs | server busy | vs Java producer |",
    "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ...results.map(
      (r) =>
        `| HTTP ingest | ${fmt(r.batch)} | ${r.concurrency} | ${fmt(r.requests)} | ${fmt(r.perSecond)} | ${fmt(r.p50, 1)} | ${fmt(r.p99, 1)} | ${fmt(r.serverCpuPerObservation, 1)} | ${fmt(100 * r.serverBusy)}% | ${java ? `${fmt((100 * r.perSecond) / java.perSecond, 1)}%` : "-"} |`,
    ),
    java
      ? `| ProducerPerformance | - | 1 | - | ${fmt(java.perSecond)} | ${fmt(java.p50, 1)} | ${fmt(java.p99, 1)} | - | - | 100% |`
      : "",
    "",
    "HTTP latency is per request (the whole batch, until Kafka acknowledged it); ProducerPerformance latency is per record.",
    "Server CPU is the ingest process's user + system time over the scenario (/proc), per acknowledged observation; busy is that time over the wall time (one core = 100%).",
    results.some((r) => r.failures > 0)
      ? `Non-202 answers: ${results.map((r) => `batch ${r.batch}: ${r.failures}`).join(", ")}`
      : "Every request was answered 202.",
    java ? `ProducerPerformance: ${java.line}` : "",
    "",
    costs
      ? [
          "Where a batch of 1,000 spends its time (CPU µs per observation, one thread):",
          "",
          "| stage | µs/observation |",
          "|---|---:|",
          `| JSON.parse of the body | ${fmt(costs.jsonParse, 1)} |`,
          `| parseObservation (normalize + Avro validation, @a2a-ledger/core) | ${fmt(costs.parseObservation, 1)} |`,
          `| Serde.encodeValidated (Confluent wire format, the service's path) | ${fmt(costs.encodeValidated, 1)} |`,
          `| (Serde.encode through the registry client, for comparison) | ${fmt(costs.encode, 1)} |`,
          `| the sink's send (sendAcknowledged: murmur2 partitions, one kafkajs request per broker), idempotent, acks=all | ${fmt(costs.kafkajsCpu, 1)} |`,
          "",
          `The sink's send alone, these encoded records in batches of 1,000 from one thread: ${fmt(costs.kafkajsPerSecond)} records/s${java ? ` (${fmt((100 * costs.kafkajsPerSecond) / java.perSecond, 1)}% of ProducerPerformance)` : ""}.`,
        ].join("\n")
      : "",
  ];
  process.stdout.write(`${lines.join("\n")}\n`);
}

await main();
