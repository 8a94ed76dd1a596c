/**
 * Proxy overhead against a direct connection, measured in the same run with autocannon:
 *
 *     npm run bench -w @a2a-ledger/proxy      (against the stack of `npm run infra:up`)
 *
 * W1 runs as its own process; two proxies run as their own processes in front of it: one recording into
 * the real ingest service (its own process, writing to a throwaway topic on Kafka), one recording into a
 * sink that acknowledges at once (this process), which isolates the proxy's own cost from the ledger's.
 * A bare Node passthrough (bench/passthrough.ts, no recording) shows what any Node hop costs. A third
 * proxy records into the sink with its spool on tmpfs (/dev/shm), where an fsync costs nothing: beside
 * the proxy → sink path (spool on the disk) it shows what the spool's fsync before each answer costs.
 * For each A2A call (GetTask of a task waiting for input; a blocking SendMessage that completes) it
 * measures, in turn, direct and through each proxy:
 *
 * - throughput: closed loop, CONNECTIONS connections (default 16) for DURATION seconds (default 8);
 * - latency: a fixed rate of RATE_SHARE (default 0.4) of the slowest path's throughput, 4 connections,
 *   so that no path is saturated.
 *
 * Printed per round and as medians over ROUNDS rounds (default 3; the order of the paths rotates per
 * round): req/s and its ratio to direct; p50 and p99 and what the proxy adds to them.
 */
import { randomUUID } from "node:crypto";
import { existsSync, mkdtempSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { createKafka, endpointsFromEnv } from "@a2a-ledger/kafka";
import { createTestTopic } from "@a2a-ledger/kafka/testing";
import { spawnJsAgent, spawnListening, type AgentProcess } from "@a2a-ledger/mesh-agents";
import autocannon from "autocannon";

const connections = Number(process.env.CONNECTIONS ?? 16);
const duration = Number(process.env.DURATION ?? 8);
const rateShare = Number(process.env.RATE_SHARE ?? 0.4);
const rounds = Number(process.env.ROUNDS ?? 3);

const proxyMain = fileURLToPath(new URL("../src/main.ts", import.meta.url));
const passthroughMain = fileURLToPath(new URL("./passthrough.ts", import.meta.url));
const ingestMain = fileURLToPath(new URL("../../ingest/src/main.ts", import.meta.url));
const headers = { "content-type": "application/json", "A2A-Version": "1.0" };

interface Measured {
  rps: number;
  p50: number;
  p99: number;
  errors: number;
}

async function load(
  url: string,
  body: string,
  options: { connections: number; overallRate?: number },
): Promise<Measured> {
  const result = await autocannon({
    url,
    method: "POST",
    headers,
    body,
    connections: options.connections,
    duration,
    ...(options.overallRate === undefined ? {} : { overallRate: options.overallRate }),
  });
  return {
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.errors + result.timeouts + result.non2xx,
  };
}

/** An ingest stand-in that acknowledges every batch at once: the proxy's cost without the ledger's. */
async function nullSink(): Promise<{ url: string; server: Server; received: () => number }> {
  let received = 0;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const events = (JSON.parse(Buffer.concat(chunks).toString()) as unknown[]).length;
      received += events;
      res.writeHead(202, { "content-type": "application/json" });
      res.end(JSON.stringify({ accepted: events }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server, received: () => received };
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

async function startIngest(topic: string): Promise<{ url: string; stop: () => Promise<void> }> {
  const port = await freePort();
  const { spawn } = await import("node:child_process");
  const child = spawn(process.execPath, ["--import", "tsx", ingestMain], {
    stdio: "ignore",
    env: {
      ...process.env,
      A2A_LEDGER_INGEST_PORT: String(port),
      A2A_LEDGER_INGEST_TOPIC: topic,
      A2A_LEDGER_INGEST_LOG_LEVEL: "warn",
    },
  });
  const url = `http://127.0.0.1:${port}`;
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
    await exited;
  };
  const deadline = Date.now() + 60_000;
  for (;;) {
    const ready = await fetch(`${url}/readyz`).then(
      (r) => r.ok,
      () => false,
    );
    if (ready) break;
    if (Date.now() > deadline) {
      await stop();
      throw new Error("ingest did not become ready");
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return { url, stop };
}

/** A proxy process; its spool in a fresh directory under `spoolRoot` (what an earlier run left must not reach this run's topic). */
function startProxy(
  upstream: string,
  ingestUrl: string,
  workerId: string,
  spoolRoot = tmpdir(),
): Promise<AgentProcess> {
  return spawnListening(`proxy ${workerId}`, process.execPath, ["--import", "tsx", proxyMain], {
    env: {
      A2A_LEDGER_PROXY_WORKER_ID: workerId,
      A2A_LEDGER_PROXY_UPSTREAM_URL: upstream,
      A2A_LEDGER_PROXY_PORT: "0",
      A2A_LEDGER_PROXY_INGEST_URL: ingestUrl,
      A2A_LEDGER_PROXY_LOG_LEVEL: "info",
      A2A_LEDGER_PROXY_SHUTDOWN_GRACE_MS: "2000",
      A2A_LEDGER_PROXY_SPOOL_DIR: mkdtempSync(join(spoolRoot, `bench-spool-${workerId}-`)),
    },
  });
}

/** A memory file system, where the spool's fsync costs nothing: the spool's own cost without the disk's. */
const memoryFs = existsSync("/dev/shm") ? "/dev/shm" : null;

const fmt = (n: number, digits = 1): string => n.toFixed(digits);

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

async function main(): Promise<void> {
  const endpoints = endpointsFromEnv();
  const kafka = createKafka({ brokers: endpoints.brokers, clientId: `proxy-bench-${randomUUID().slice(0, 8)}` });
  const admin = kafka.admin();
  await admin.connect();
  const topic = await createTestTopic(admin, "proxy-bench", 6);
  // Everything started is stopped again, also when a later start fails.
  const cleanups: (() => Promise<unknown> | unknown)[] = [];
  const started = <T>(value: T, cleanup: (v: T) => Promise<unknown> | unknown): T => {
    cleanups.unshift(() => cleanup(value));
    return value;
  };
  cleanups.push(async () => {
    await admin.deleteTopics({ topics: [topic] }).catch(() => undefined);
    await admin.disconnect();
  });
  try {
    const sink = started(await nullSink(), (x) => x.server.close());
    const w1 = started(await spawnJsAgent("w1"), (x) => x.stop());
    const ingest = started(await startIngest(topic), (x) => x.stop());
    const viaSink = started(await startProxy(w1.url, sink.url, "W1-bench-sink"), (x) => x.stop());
    const viaLedger = started(await startProxy(w1.url, ingest.url, "W1-bench-ledger"), (x) => x.stop());
    const viaSinkInMemory =
      memoryFs === null
        ? null
        : started(await startProxy(w1.url, sink.url, "W1-bench-sink-shm", memoryFs), (x) => x.stop());
    const passthrough = started(
      await spawnListening("passthrough", process.execPath, ["--import", "tsx", passthroughMain, String(w1.port)]),
      (x) => x.stop(),
    );
    const waiting = await fetch(`${w1.url}/a2a/jsonrpc`, {
      method: "POST",
      headers,
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "SendMessage",
        params: { message: { messageId: "bench-wait", role: "ROLE_USER", parts: [{ text: "need-input bench" }] } },
      }),
    });
    const taskId = ((await waiting.json()) as { result: { task: { id: string } } }).result.task.id;
    const calls = [
      {
        name: "GetTask (JSON-RPC)",
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "GetTask", params: { id: taskId } }),
      },
      {
        name: "SendMessage (JSON-RPC, completes)",
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: 1,
          method: "SendMessage",
          params: { message: { messageId: "bench-send", role: "ROLE_USER", parts: [{ text: "bench" }] } },
        }),
      },
    ];
    const targets = [
      { name: "direct", url: `${w1.url}/a2a/jsonrpc` },
      { name: "bare Node passthrough (no recording)", url: `${passthrough.url}/a2a/jsonrpc` },
      { name: "proxy → sink", url: `${viaSink.url}/a2a/jsonrpc` },
      ...(viaSinkInMemory === null
        ? []
        : [{ name: "proxy → sink, spool on tmpfs (no fsync cost)", url: `${viaSinkInMemory.url}/a2a/jsonrpc` }]),
      { name: "proxy → ingest → Kafka", url: `${viaLedger.url}/a2a/jsonrpc` },
    ];
    console.log(
      `node ${process.version}; autocannon 9.0.0; ${connections} connections × ${duration} s for throughput; for latency ${fmt(rateShare * 100, 0)} % of the slowest path's throughput, 4 connections; ${rounds} round(s), the order of the paths rotating per round`,
    );
    const summary = new Map<
      string,
      {
        throughput: number[];
        ratio: number[];
        p50: number[];
        p99: number[];
        addedP50: number[];
        addedP99: number[];
        errors: number;
      }
    >();
    for (let round = 0; round < rounds; round++) {
      for (const call of calls) {
        const order = targets.map((_, i) => (i + round) % targets.length);
        // Warm-up: JIT, connection pools, the ingest producer.
        for (const i of order)
          await autocannon({
            url: targets[i]!.url,
            method: "POST",
            headers,
            body: call.body,
            connections: 4,
            duration: 2,
          });
        const throughput: Measured[] = [];
        for (const i of order) throughput[i] = await load(targets[i]!.url, call.body, { connections });
        const rate = Math.max(1, Math.round(Math.min(...throughput.map((t) => t.rps)) * rateShare));
        const latency: Measured[] = [];
        for (const i of order)
          latency[i] = await load(targets[i]!.url, call.body, { connections: 4, overallRate: rate });
        console.log(`\nround ${round + 1}: ${call.name} (latency at ${rate} req/s)`);
        console.log("| path | req/s (closed loop) | vs direct | p50 ms | p99 ms | added p50 | added p99 | errors |");
        console.log("|---|---:|---:|---:|---:|---:|---:|---:|");
        targets.forEach((t, i) => {
          const tp = throughput[i]!;
          const lt = latency[i]!;
          const direct = latency[0]!;
          const key = `${call.name}\u0000${t.name}`;
          const s = summary.get(key) ?? {
            throughput: [],
            ratio: [],
            p50: [],
            p99: [],
            addedP50: [],
            addedP99: [],
            errors: 0,
          };
          s.throughput.push(tp.rps);
          s.ratio.push(tp.rps / throughput[0]!.rps);
          s.p50.push(lt.p50);
          s.p99.push(lt.p99);
          s.addedP50.push(lt.p50 - direct.p50);
          s.addedP99.push(lt.p99 - direct.p99);
          s.errors += tp.errors + lt.errors;
          summary.set(key, s);
          console.log(
            `| ${t.name} | ${fmt(tp.rps, 0)} | ${fmt(tp.rps / throughput[0]!.rps, 2)} | ${fmt(lt.p50)} | ${fmt(lt.p99)} | ${i === 0 ? "–" : fmt(lt.p50 - direct.p50)} | ${i === 0 ? "–" : fmt(lt.p99 - direct.p99)} | ${tp.errors + lt.errors} |`,
          );
        });
      }
    }
    console.log(`\nmedians over ${rounds} round(s)`);
    console.log("| call | path | req/s | vs direct | p50 ms | p99 ms | added p50 | added p99 | errors |");
    console.log("|---|---|---:|---:|---:|---:|---:|---:|---:|");
    for (const [key, s] of summary) {
      const [call, path] = key.split("\u0000");
      const direct = path === "direct";
      console.log(
        `| ${call} | ${path} | ${fmt(median(s.throughput), 0)} | ${fmt(median(s.ratio), 2)} | ${fmt(median(s.p50))} | ${fmt(median(s.p99))} | ${direct ? "–" : fmt(median(s.addedP50))} | ${direct ? "–" : fmt(median(s.addedP99))} | ${s.errors} |`,
      );
    }
    console.log(`\nobservations acknowledged by the sink: ${sink.received()}`);
  } finally {
    for (const cleanup of cleanups) await cleanup();
  }
}

await main();
