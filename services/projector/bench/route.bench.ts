/**
 * `npm run bench:route -w @a2a-ledger/projector`: latency of `GET /v1/route` and
 * `GET /v1/workers/:id/verified-card` with WORKERS workers (default 1,000), against baselines measured
 * in the same run on the same server: `GET /healthz` (no database) and the first page of
 * `GET /v1/workers` (one indexed read).
 *
 * The mesh: every worker has a card (skills summarize and translate, lifecycle with input-required) and a
 * probe of summarize; half of them verify input-required, a third emit only application/json, and every
 * tenth lost a real task while input-required (under default/3 that revokes its interrupted states, and
 * its verified card names the task). The observations go through default/3's decider and into a fresh
 * SQLite view store (the projector's own writer); requests go over loopback HTTP one at a time,
 * QUERIES (default 1,000) of each kind, after 50 warm-up requests each. No Kafka is needed.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { cardHash, defaultRuleSetV3 } from "@a2a-ledger/core";
import { agentCard, events } from "@a2a-ledger/core/testing/builders";
import { percentile } from "@a2a-ledger/env/testing";
import type { Observation, TaskState } from "@a2a-ledger/schemas";
import { LiveStream } from "../src/live-stream.ts";
import { createMetrics } from "../src/metrics.ts";
import { buildServer } from "../src/server.ts";
import { activeGeneration, migrate } from "../src/store/generations.ts";
import { openStore } from "../src/store/open-store.ts";
import { writeBatch } from "../src/views/writer.ts";
import { inputsFor } from "../test/story.ts";

const workerCount = Number(process.env.WORKERS ?? 1_000);
const queryCount = Number(process.env.QUERIES ?? 1_000);

const S: TaskState = "TASK_STATE_SUBMITTED";
const W: TaskState = "TASK_STATE_WORKING";
const IR: TaskState = "TASK_STATE_INPUT_REQUIRED";
const C: TaskState = "TASK_STATE_COMPLETED";

function mesh(): Observation[] {
  const e = events("bench-");
  const out: Observation[] = [];
  let at = Date.UTC(2026, 0, 1);
  for (let i = 0; i < workerCount; i++) {
    const w = `w-${String(i).padStart(4, "0")}`;
    const card = agentCard({
      org: `Org-${i % 7}`,
      version: "1.0",
      states: ["submitted", "working", "input-required", "completed", "failed"],
      taskStore: i % 2 === 0 ? "durable" : "ephemeral",
      skills: [
        { id: "summarize", outputModes: ["text/plain", "text/markdown", "application/json"] },
        { id: "translate", outputModes: ["text/plain"] },
      ],
    });
    out.push(e.card(w, card, { at: at++, maxAge: 300 }));
    out.push(
      e.probe(w, cardHash(card), {
        at: at++,
        states: i % 2 === 0 ? [S, W, IR, C] : [S, W, C],
        modes: i % 3 === 0 ? ["application/json"] : ["text/plain", "text/markdown"],
      }),
    );
  }
  for (let i = 0; i < workerCount; i += 10) {
    const w = `w-${String(i).padStart(4, "0")}`;
    const corr = `lost-${i}`;
    out.push(
      e.dispatch(corr, w, { at: at++ }),
      e.state(corr, w, `t-${i}`, "input-required", { at: at++ }),
      e.notFound(corr, w, `t-${i}`, { at: at++ }),
    );
  }
  return out;
}

async function timed(
  base: string,
  name: string,
  path: (i: number) => string,
): Promise<{ name: string; p50: number; p99: number; max: number }> {
  const once = async (i: number) => {
    const response = await fetch(`${base}${path(i)}`);
    if (response.status !== 200)
      throw new Error(`${name}: ${path(i)} answered ${response.status}: ${(await response.text()).slice(0, 300)}`);
    await response.arrayBuffer();
  };
  for (let i = 0; i < 50; i++) await once(i);
  const ms: number[] = [];
  for (let i = 0; i < queryCount; i++) {
    const start = process.hrtime.bigint();
    await once(i);
    ms.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  ms.sort((a, b) => a - b);
  return { name, p50: percentile(ms, 0.5), p99: percentile(ms, 0.99), max: ms[ms.length - 1] ?? Number.NaN };
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "projector-route-bench-"));
  const store = openStore({ kind: "sqlite", path: join(dir, "projector.sqlite") });
  try {
    await migrate(store);
    const gen = (await store.read(activeGeneration)) as number;
    const log = mesh();
    const loadStart = Date.now();
    for (const { topic, partition, inputs } of inputsFor(log, { ruleSet: defaultRuleSetV3 })) {
      for (let i = 0; i < inputs.length; i += 1_000)
        await writeBatch(store, gen, topic, partition, inputs.slice(i, i + 1_000), { lowWatermark: 0 });
    }
    console.log(`loaded ${log.length} observations (${workerCount} workers) in ${Date.now() - loadStart} ms`);
    const stream = new LiveStream(store);
    const kafka = { endOffsets: async () => [], kafkaReachable: async () => true, consuming: () => true };
    const server = buildServer({
      config: { policy: { trustedVendors: ["Org-0"] }, cursorSecret: "a-bench-secret-of-16+", maxStreams: 1 },
      store,
      stream,
      metrics: createMetrics(),
      kafka,
      logger: false,
    });
    const base = await server.listen({ host: "127.0.0.1", port: 0 });
    try {
      const worker = (i: number) => `w-${String((i * 7919) % workerCount).padStart(4, "0")}`;
      const rows = [
        await timed(base, "GET /healthz (baseline)", () => "/healthz"),
        await timed(base, "GET /v1/workers?limit=50 (baseline)", () => "/v1/workers?limit=50"),
        await timed(
          base,
          "GET /v1/route resume input-required, accept text/*",
          () => "/v1/route?skill=summarize&state=input-required&accept=text/*",
        ),
        await timed(base, "GET /v1/route new task, any mode", () => "/v1/route?skill=summarize"),
        await timed(base, "GET /v1/route new task, limit=1000", () => "/v1/route?skill=summarize&limit=1000"),
        await timed(
          base,
          "GET /v1/workers/:id/verified-card (random worker)",
          (i) => `/v1/workers/${worker(i)}/verified-card`,
        ),
        await timed(
          base,
          "GET /v1/workers/:id/verified-card (a worker that lost a task)",
          (i) => `/v1/workers/w-${String((i * 10) % workerCount).padStart(4, "0")}/verified-card`,
        ),
      ];
      const [health, list] = rows as [(typeof rows)[number], (typeof rows)[number]];
      console.log(
        `\n${workerCount} workers, ${queryCount} requests each, one at a time over loopback HTTP (SQLite views)\n`,
      );
      console.log("| request | p50 ms | p99 ms | max ms | p99 vs /healthz | p99 vs worker list |");
      console.log("|---|---:|---:|---:|---:|---:|");
      for (const r of rows)
        console.log(
          `| ${r.name} | ${r.p50.toFixed(2)} | **${r.p99.toFixed(2)}** | ${r.max.toFixed(1)} | ${(r.p99 / health.p99).toFixed(1)}× | ${(r.p99 / list.p99).toFixed(2)}× |`,
        );
    } finally {
      await server.close();
      stream.stop();
    }
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
