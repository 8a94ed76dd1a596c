/**
 * `LedgerRoute` of the Python client on the real pipeline: the client's card fetches and a probe of each
 * worker (recorded as the dispatcher records one) go through the real ingest service to a private topic set,
 * the real reconciler folds them into capability snapshots, and the real projector answers `route` and the
 * verified card (clients/python/tests/live_route.py asks, picks, and dispatches to the chosen worker).
 */
import { spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { mkdtempSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { cardHash } from "@a2a-ledger/core";
import { createIngestApp, loadConfig as loadIngestConfig } from "@a2a-ledger/ingest";
import { createLogger, logTail } from "@a2a-ledger/logging";
import { createKafka, endpointsFromEnv, ensureTopics, suffixedTopicNames, topicSpecs } from "@a2a-ledger/kafka";
import { spawnPyAgent, startJsAgent, type AgentProcess, type RunningJsAgent } from "@a2a-ledger/mesh-agents";
import {
  buildServer,
  createLogger as projectorLogger,
  createMetrics,
  LiveStream,
  loadConfig as loadProjectorConfig,
  migrate,
  openStore,
  Projector,
} from "@a2a-ledger/projector";
import { loadReconcilerConfig, Reconciler } from "@a2a-ledger/reconciler";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

process.env.A2A_LEDGER_KAFKA_LOG_LEVEL ??= "nothing";
/** The Python client (clients/python): its venv and its `tests` package of live scripts. */
const root = fileURLToPath(new URL("../../../../clients/python/", import.meta.url));
const suffix = `client-py-route-${randomUUID().slice(0, 8)}`;
const topics = suffixedTopicNames(suffix);
const dir = mkdtempSync(join(tmpdir(), "client-py-route-"));
const env: NodeJS.ProcessEnv = {
  ...process.env,
  A2A_LEDGER_TOPIC_SUFFIX: suffix,
  A2A_LEDGER_RECONCILER_GROUP: `reconciler-${suffix}`,
  A2A_LEDGER_RECONCILER_SESSION_TIMEOUT_MS: "6000",
  A2A_LEDGER_PROJECTOR_GROUP: `projector-${suffix}`,
  A2A_LEDGER_PROJECTOR_SESSION_TIMEOUT_MS: "6000",
  A2A_LEDGER_PROJECTOR_SQLITE_PATH: join(dir, "projector.sqlite"),
  A2A_LEDGER_PROJECTOR_LOG_LEVEL: "warn",
};
const kafka = createKafka({ brokers: endpointsFromEnv().brokers, clientId: "client-py-route-test" });
const admin = kafka.admin();
type Case = Record<string, unknown> & { case: string };
let cases: Record<string, Case>;
/** What afterAll stops, last started first, each with its name. */
let stop: [string, () => Promise<void>][] = [];
let w1: RunningJsAgent;
let w3: AgentProcess;

async function post(url: string, observations: Record<string, unknown>[]): Promise<void> {
  const response = await fetch(`${url}/v1/observations`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(observations),
  });
  if (response.status !== 202) throw new Error(`ingest answered ${response.status}: ${await response.text()}`);
}

const cardOf = async (url: string) =>
  cardHash(
    (await (await fetch(`${url}/.well-known/agent-card.json`, { headers: { "A2A-Version": "1.0" } })).json()) as Record<
      string,
      unknown
    >,
  );

/** A probe as the dispatcher records one: what the worker showed for skill `answer` on the card it serves. */
function probe(
  workerId: string,
  hash: string,
  reobservable: string[],
  modes: string[],
  durable: boolean,
): Record<string, unknown> {
  return {
    type: "ProbeCompleted",
    eventId: `probe-${workerId}-${suffix}`,
    correlationId: `probe:${workerId}`,
    occurredAt: Date.now(),
    observer: "dispatcher",
    workerId,
    cardHash: hash,
    skillId: "answer",
    statesObserved: ["TASK_STATE_SUBMITTED", "TASK_STATE_WORKING", "TASK_STATE_INPUT_REQUIRED", "TASK_STATE_COMPLETED"],
    reobservable,
    emittedModes: modes,
    durable,
    parkedCanaries: [],
  };
}

async function until<T>(what: string, probeFn: () => Promise<T | undefined>, timeoutMs = 90_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const got = await probeFn().catch(() => undefined);
    if (got !== undefined) return got;
    await new Promise((r) => setTimeout(r, 300));
  }
  throw new Error(`timed out waiting for ${what}`);
}

/**
 * The reconciler's log, kept in memory at debug: when the pipeline stalls, the failure prints it (its
 * commits per partition, an aborted transaction, a stalled stage of a partition's work).
 */
const reconcilerLog = logTail();

beforeAll(async () => {
  try {
    await setUp();
  } catch (error) {
    console.error(`the reconciler's log, its last lines:\n${reconcilerLog.text()}`);
    throw error;
  }
}, 240_000);

async function setUp(): Promise<void> {
  await admin.connect();
  await ensureTopics(admin, topicSpecs(topics));
  const { server: ingest } = createIngestApp(
    loadIngestConfig({
      ...env,
      A2A_LEDGER_INGEST_TOPIC: topics.observations,
      A2A_LEDGER_INGEST_PORT: "0",
      A2A_LEDGER_INGEST_LOG_LEVEL: "silent",
    }),
    { logger: false },
  );
  const ingestUrl = await ingest.listen({ host: "127.0.0.1", port: 0 });
  stop.push(["ingest", () => ingest.close()]);
  const reconciler = new Reconciler(
    loadReconcilerConfig(env),
    createLogger("reconciler", "debug", reconcilerLog.destination),
  );
  await reconciler.start();
  stop.push(["the reconciler", () => reconciler.stop()]);
  const config = loadProjectorConfig({ ...env, A2A_LEDGER_PROJECTOR_PORT: "0" });
  const store = openStore(config.store);
  await migrate(store);
  const metrics = createMetrics();
  const projector = new Projector(config, store, projectorLogger("warn"), metrics);
  const stream = new LiveStream(store, 200);
  await stream.start();
  const server = buildServer({ config, store, stream, metrics, kafka: projector, logger: false });
  await projector.start();
  await server.listen({ host: "127.0.0.1", port: 0 });
  const projectorUrl = `http://127.0.0.1:${(server.server.address() as AddressInfo).port}`;
  stop.push([
    "the projector",
    async () => {
      await server.close();
      stream.stop();
      await projector.stop();
      await store.close();
    },
  ]);
  w1 = await startJsAgent({ kind: "w1" });
  w3 = await spawnPyAgent({ db: join(dir, "w3.sqlite") });
  const hashes = { W1: await cardOf(w1.url), W3: await cardOf(w3.url) };
  const out = await new Promise<string>((resolve, reject) => {
    const child = spawn(`${root}.venv/bin/python`, ["-m", "tests.live_route"], {
      cwd: root,
      env: {
        ...process.env,
        INGEST_URL: ingestUrl,
        PROJECTOR_URL: projectorUrl,
        W1_URL: w1.url,
        W3_URL: w3.url,
        PYTHONUNBUFFERED: "1",
      },
      stdio: ["pipe", "pipe", "pipe"],
    });
    let text = "";
    let err = "";
    child.stdout.on("data", (d: Buffer) => {
      text += d.toString();
      if (d.toString().includes('"await": "probes"')) {
        void (async () => {
          // A probe judges the card in force: as the dispatcher does (it probes on ProbeRequested), post the
          // probes only once the cards the client recorded are folded (both workers known to route),
          // or a probe folded before its card verifies nothing.
          const known = async () => {
            const body = (await (await fetch(`${projectorUrl}/v1/route?skill=answer`)).json()) as {
              workers: { workerId: string }[];
              ineligible: { workerId: string }[];
            };
            return body.workers.length + body.ineligible.length;
          };
          await until("the cards the client recorded", async () => ((await known()) === 2 ? true : undefined));
          await post(ingestUrl, [
            probe(
              "W3",
              hashes.W3,
              ["TASK_STATE_SUBMITTED", "TASK_STATE_WORKING", "TASK_STATE_INPUT_REQUIRED", "TASK_STATE_COMPLETED"],
              ["text/plain"],
              true,
            ),
            probe(
              "W1",
              hashes.W1,
              ["TASK_STATE_SUBMITTED", "TASK_STATE_WORKING", "TASK_STATE_COMPLETED"],
              ["application/json"],
              false,
            ),
          ]);
          // The reconciler folds the probes into snapshots; the projector has them once route names W3 eligible.
          await until("the projector's snapshots", async () => {
            const body = (await (await fetch(`${projectorUrl}/v1/route?skill=answer&state=input-required`)).json()) as {
              workers: { workerId: string }[];
              ineligible: { workerId: string }[];
            };
            return body.workers.length + body.ineligible.length === 2 && body.workers.some((w) => w.workerId === "W3")
              ? true
              : undefined;
          });
          child.stdin.write("probed\n");
        })().catch((e: unknown) => {
          err += String(e);
          child.kill("SIGKILL");
        });
      }
    });
    child.stderr.on("data", (d: Buffer) => (err += d.toString()));
    const timer = setTimeout(() => child.kill("SIGKILL"), 150_000);
    child.on("error", reject);
    child.on("exit", (code) => {
      clearTimeout(timer);
      if (code === 0) resolve(text);
      else reject(new Error(`live_route exited ${code}: ${err.slice(-3000)}\n${text.slice(-2000)}`));
    });
  });
  cases = Object.fromEntries(
    out
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as Case)
      .filter((c) => typeof c.case === "string")
      .map((c) => [c.case, c]),
  );
}

/**
 * A teardown step, bounded: one that does not finish in time is named on stderr and left behind, so the
 * steps after it still run and the hook ends inside its timeout (all 3 tests had passed when a teardown
 * once ran into it, and nothing said which step hung).
 */
async function bounded(what: string, step: () => Promise<unknown>, ms = 20_000): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<void>((resolve) => {
    timer = setTimeout(() => {
      console.error(`teardown: ${what} did not finish within ${ms} ms; left behind`);
      resolve();
    }, ms);
  });
  await Promise.race([step().catch(() => undefined), late]);
  clearTimeout(timer);
}

afterAll(async () => {
  await bounded("W1", async () => w1?.close());
  await bounded("W3", async () => w3?.stop());
  for (const [what, s] of stop.reverse()) await bounded(what, s);
  stop = [];
  await bounded("deleting the topics", () => admin.deleteTopics({ topics: Object.values(topics) }));
  await bounded("the admin client", () => admin.disconnect());
}, 180_000);

describe("asking the ledger before dispatching, from Python", () => {
  it("route names the worker that verified the interrupted state first, with the reasons the other fails", () => {
    expect(cases["route"]).toMatchObject({
      resume: true,
      workers: [["W3", 1, expect.arrayContaining(["TASK_STATE_INPUT_REQUIRED"]), ["text/plain"]]],
    });
    const ineligible = cases["route"]!["ineligible"] as [string, string][];
    expect(ineligible.map(([w]) => w)).toEqual(["W1"]);
    expect(ineligible[0]![1]).toContain("TASK_STATE_INPUT_REQUIRED");
  });

  it("reads the chosen worker's verified card, the card the client relied on, and dispatches to it", () => {
    expect(cases["verified-card"]).toMatchObject({ workerId: "W3", outputModes: [["text/plain"]] });
    expect(cases["verified-card"]!["cardHash"]).toBe(cases["verified-card"]!["clientCardHash"]);
    expect(cases["verified-card"]!["etag"]).toMatch(/^".+"$/);
    expect(cases["verified-card"]!["cacheControl"]).toMatch(/max-age=\d+/);
    expect(cases["dispatched"]).toMatchObject({ workerId: "W3", state: "TASK_STATE_COMPLETED" });
  });

  it("answers none eligible, a bad filter, an unknown worker and a projector that is down with stable codes", () => {
    expect(cases["none-eligible"]).toMatchObject({ error: "A2A_CLIENT_NO_ELIGIBLE_WORKER" });
    const reasons = (cases["none-eligible"]!["detail"] as { ineligible: { worker_id: string; reason: string }[] })
      .ineligible;
    expect(reasons.map((w) => [w.worker_id, w.reason])).toEqual([
      ["W1", "the card in force does not offer skill translate"],
      ["W3", "the card in force does not offer skill translate"],
    ]);
    expect(cases["bad-filter"]).toMatchObject({
      error: "A2A_CLIENT_ROUTE_REFUSED",
      detail: { code: "PROJECTOR_BAD_FILTER" },
    });
    expect(cases["unknown-worker"]).toMatchObject({
      error: "A2A_CLIENT_ROUTE_REFUSED",
      detail: { code: expect.stringMatching(/^PROJECTOR_/) },
    });
    expect(cases["projector-down"]).toMatchObject({ error: "A2A_CLIENT_ROUTE_UNAVAILABLE" });
    expect(cases["summary"]).toMatchObject({ pending: 0 });
  });
});
