/**
 * Runs the A2A TCK (a2aproject/a2a-tck, branch 1.0-dev) against one mesh worker twice — directly, and
 * through a recording proxy with its gRPC relay — and compares the verdicts test by test.
 *
 *     node --import tsx scripts/tck-compare.ts <tck-dir> [--worker w1|w2|w3] [--python <tck python>]
 *         [--ingest-url <url>] [--out <dir>] [--transport grpc,jsonrpc,http_json] [-- <pytest args>]
 *
 * <tck-dir> is a checkout of the TCK outside this repository with its dependencies installed (by default
 * in <tck-dir>/.venv: `python3 -m venv .venv && .venv/bin/pip install -e .`). The worker runs with its
 * gRPC binding on, so the card names all three bindings and the TCK tests each. The proxy records into
 * the ingest API at --ingest-url, or, without it, into an ingest service started here on a private topic
 * of the Kafka cluster that KAFKA_BROKERS / SCHEMA_REGISTRY_URL name.
 *
 * Each run is the pytest command that the TCK's run_tck.py builds (tests/compatibility, --sut-host,
 * --transport, --tb=short), with its JUnit report written to --out (default: a temporary directory).
 * Prints the verdict counts of both runs, a table of every test whose verdict differs, and the proxy's
 * recording counters; exits 1 when a verdict differs, 2 on a usage or setup problem.
 */
import { spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { metricSum } from "@a2a-ledger/env/testing";
import { configDefaults as ingestDefaults, createIngestApp } from "@a2a-ledger/ingest";
import { createKafka, endpointsFromEnv } from "@a2a-ledger/kafka";
import { createTestTopic } from "@a2a-ledger/kafka/testing";
import { spawnJsAgent, spawnListening, spawnPyAgent, type AgentProcess } from "@a2a-ledger/mesh-agents";

type Verdict = "passed" | "failed" | "error" | "skipped" | "xfailed";

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    worker: { type: "string", default: "w1" },
    python: { type: "string" },
    "ingest-url": { type: "string" },
    out: { type: "string" },
    transport: { type: "string" },
  },
});

function usage(problem: string): never {
  process.stderr.write(
    `${problem}\nusage: node --import tsx scripts/tck-compare.ts <tck-dir> [--worker w1|w2|w3] [--python <python>] [--ingest-url <url>] [--out <dir>] [--transport <list>] [-- <pytest args>]\n`,
  );
  process.exit(2);
}

const [tckArg, ...pytestArgs] = positionals;
if (tckArg === undefined) usage("the TCK directory is required");
const tck = resolve(tckArg);
if (!existsSync(join(tck, "tests", "compatibility")))
  usage(`${tck} is not a checkout of the A2A TCK (no tests/compatibility)`);
const python = values.python ?? join(tck, ".venv", "bin", "python");
if (!existsSync(python))
  usage(`no Python at ${python}: install the TCK's dependencies into ${join(tck, ".venv")} or pass --python`);
const worker = values.worker;
if (worker !== "w1" && worker !== "w2" && worker !== "w3") usage("--worker must be w1, w2 or w3");
const out = resolve(values.out ?? mkdtempSync(join(tmpdir(), "tck-compare-")));
mkdirSync(out, { recursive: true });
const proxyMain = fileURLToPath(new URL("../services/proxy/src/main.ts", import.meta.url));

/** The verdict of every test case of a pytest JUnit report, by `classname::name`. */
function verdicts(junitXml: string): Map<string, Verdict> {
  const result = new Map<string, Verdict>();
  const cases = junitXml.matchAll(/<testcase\b([^>]*?)(\/>|>([\s\S]*?)<\/testcase>)/g);
  const attr = (attrs: string, name: string) => new RegExp(`\\b${name}="([^"]*)"`).exec(attrs)?.[1] ?? "";
  for (const c of cases) {
    const attrs = c[1] ?? "";
    const body = c[3] ?? "";
    const id = `${attr(attrs, "classname")}::${attr(attrs, "name")}`;
    let verdict: Verdict = "passed";
    if (/<failure\b/.test(body)) verdict = "failed";
    else if (/<error\b/.test(body)) verdict = "error";
    else if (/<skipped\b[^>]*type="pytest\.xfail"/.test(body)) verdict = "xfailed";
    else if (/<skipped\b/.test(body)) verdict = "skipped";
    result.set(id, verdict);
  }
  return result;
}

function runTck(label: string, sutHost: string): Promise<Map<string, Verdict>> {
  const junit = join(out, `${label}.xml`);
  const args = [
    "-m",
    "pytest",
    "tests/compatibility/",
    `--sut-host=${sutHost}`,
    "--tb=short",
    "-q",
    `--junitxml=${junit}`,
    `--compatibility-report=${join(out, `${label}-compatibility`)}`,
  ];
  if (values.transport !== undefined) args.push(`--transport=${values.transport}`);
  args.push(...pytestArgs);
  process.stdout.write(`\n== TCK ${label}: ${sutHost}\n`);
  return new Promise((done, fail) => {
    const child = spawn(python, args, { cwd: tck, stdio: ["ignore", "pipe", "pipe"] });
    const log: Buffer[] = [];
    child.stdout.on("data", (c: Buffer) => log.push(c));
    child.stderr.on("data", (c: Buffer) => log.push(c));
    child.on("error", fail);
    child.on("close", (code) => {
      const text = Buffer.concat(log).toString();
      process.stdout.write(`${text.trim().split("\n").slice(-1)[0] ?? ""} (pytest exit ${code})\n`);
      if (!existsSync(junit)) return fail(new Error(`the TCK wrote no report (exit ${code}):\n${text}`));
      done(verdicts(readFileSync(junit, "utf8")));
    });
  });
}

async function startIngest(): Promise<{ url: string; stop(): Promise<void> }> {
  const endpoints = endpointsFromEnv();
  const kafka = createKafka({ brokers: endpoints.brokers, clientId: `tck-compare-${randomUUID().slice(0, 8)}` });
  const admin = kafka.admin();
  await admin.connect();
  const topic = await createTestTopic(admin, "tck-compare", 3);
  const app = createIngestApp(
    {
      ...ingestDefaults,
      brokers: endpoints.brokers,
      registryUrl: endpoints.registryUrl,
      topic,
      tokens: [],
      logLevel: "silent",
      port: 0,
    },
    { logger: false },
  );
  const url = await app.server.listen({ host: "127.0.0.1", port: 0 });
  process.stdout.write(`ingest ${url} on topic ${topic}\n`);
  return {
    url,
    async stop() {
      await app.server.close();
      await admin.deleteTopics({ topics: [topic] }).catch(() => undefined);
      await admin.disconnect();
    },
  };
}

function count(v: Map<string, Verdict>): Record<Verdict, number> {
  const c: Record<Verdict, number> = { passed: 0, failed: 0, error: 0, skipped: 0, xfailed: 0 };
  for (const verdict of v.values()) c[verdict]++;
  return c;
}

const stops: (() => Promise<void>)[] = [];
let exitCode = 0;
try {
  const agent: AgentProcess =
    worker === "w3"
      ? await spawnPyAgent({ db: join(out, "w3.sqlite"), grpcPort: 0 })
      : await spawnJsAgent(worker, { grpcPort: 0 });
  stops.push(() => agent.stop());
  const ingest =
    values["ingest-url"] === undefined
      ? await startIngest()
      : { url: values["ingest-url"], stop: async () => undefined };
  stops.push(() => ingest.stop());
  const workerId = worker.toUpperCase();
  const proxy = await spawnListening("proxy", process.execPath, ["--import", "tsx", proxyMain], {
    env: {
      A2A_LEDGER_PROXY_WORKER_ID: workerId,
      A2A_LEDGER_PROXY_UPSTREAM_URL: agent.url,
      A2A_LEDGER_PROXY_PORT: "0",
      A2A_LEDGER_PROXY_GRPC_PORT: "0",
      A2A_LEDGER_PROXY_REWRITE_CARD_URLS: "true",
      A2A_LEDGER_PROXY_INGEST_URL: ingest.url,
      A2A_LEDGER_PROXY_SPOOL_DIR: join(out, "spool"),
      A2A_LEDGER_PROXY_LOG_LEVEL: "info",
    },
  });
  stops.unshift(() => proxy.stop());
  process.stdout.write(
    `${workerId} ${agent.url} (gRPC ${agent.grpcTarget}); proxy ${proxy.url} (gRPC ${proxy.grpcTarget})\n`,
  );

  const direct = await runTck("direct", agent.url);
  const proxied = await runTck("proxied", proxy.url);

  const ids = [...new Set([...direct.keys(), ...proxied.keys()])].sort();
  const differences = ids.filter((id) => direct.get(id) !== proxied.get(id));
  const counts = { direct: count(direct), proxied: count(proxied) };
  process.stdout.write(`\n== verdicts (${ids.length} tests)\n`);
  process.stdout.write(`${"verdict".padEnd(10)}${"direct".padStart(8)}${"proxied".padStart(9)}\n`);
  for (const v of Object.keys(counts.direct) as Verdict[])
    process.stdout.write(
      `${v.padEnd(10)}${String(counts.direct[v]).padStart(8)}${String(counts.proxied[v]).padStart(9)}\n`,
    );

  process.stdout.write(`\n== differences: ${differences.length}\n`);
  if (differences.length > 0) {
    const width = Math.max(...differences.map((d) => d.length), 4);
    process.stdout.write(`${"test".padEnd(width)}  ${"direct".padEnd(8)}  proxied\n`);
    for (const id of differences)
      process.stdout.write(`${id.padEnd(width)}  ${(direct.get(id) ?? "-").padEnd(8)}  ${proxied.get(id) ?? "-"}\n`);
    exitCode = 1;
  }

  const metrics = await (await fetch(`${proxy.url}/metrics`)).text();
  const m = (name: string, labels: Record<string, string> = {}) => metricSum(metrics, name, labels);
  process.stdout.write(
    `\n== proxy: ${m("a2a_proxy_observations_total")} observations recorded, ${m("a2a_proxy_observations_sent_total")} acknowledged by ingest, ` +
      `${m("a2a_proxy_observations_dropped_total", { reason: "rejected" })} rejected; gRPC calls relayed: ${m("a2a_proxy_requests_total", { kind: "grpc" })}\n`,
  );
  process.stdout.write(`reports in ${out}\n`);
} catch (err) {
  process.stderr.write(`tck-compare: ${err instanceof Error ? err.message : String(err)}\n`);
  exitCode = 2;
} finally {
  for (const stop of stops) await stop().catch(() => undefined);
}
process.exit(exitCode);
