/**
 * What `a2a-ledger up` runs, as process specifications: the ledger's services (ingest, reconciler,
 * projector, dispatcher), and for the demo the three workers, one recording proxy per worker and the
 * orchestrator — each its own process, started from its compiled entry point in this checkout
 * (`node <workspace>/dist/main.js`, made by `npm run build`; no TypeScript loader), and the CLI imports none
 * of their code. Also the files the demo hands them: W1's configuration, the dispatcher's workers file and
 * the orchestrator's story. Every process but the orchestrator is a service, restarted by the supervisor
 * when it dies; one that takes its port from the environment names the variable (`portEnv`), so that a
 * restart keeps its address.
 */
import { randomBytes } from "node:crypto";
import { join } from "node:path";
import type { TopicNames } from "@a2a-ledger/kafka";
import { readyOnMessage, readyOnMessages, type LogEntry, type ProcessSpec } from "./supervisor.ts";

export const meshSkillId = "answer";
/** The output modes the orchestrator accepts: W1's application/json card is the contract; text/plain lets W3 take over. */
export const acceptedOutputModes = ["application/json", "text/plain"];

export function entryPoints(root: string) {
  return {
    ingest: join(root, "services/ingest/dist/main.js"),
    reconciler: join(root, "services/reconciler/dist/main.js"),
    projector: join(root, "services/projector/dist/main.js"),
    dispatcher: join(root, "services/dispatcher/dist/main.js"),
    proxy: join(root, "services/proxy/dist/main.js"),
    jsAgent: join(root, "mesh/agents-js/dist/main.js"),
    orchestrator: join(root, "mesh/orchestrator/dist/main.js"),
    agentPy: join(root, "mesh/agent-py"),
  };
}

export type EntryPoints = ReturnType<typeof entryPoints>;

export const proxyLabels = ["W1", "W2", "W3"] as const;
export type ProxyLabel = (typeof proxyLabels)[number];

/**
 * The bearer tokens of one run: each writer of observations has its own, bound at ingest to the
 * observer it writes as (the dispatcher as `dispatcher`, the proxy of Wn as `proxy:Wn-*`, the guard
 * of the guarded worker as `guard:W2-*`), so no process can write as another. Ingest reads the same
 * entries as a scope: a proxy's or guard's token speaks only about the workers its pattern names
 * (`Wn-*`), and only the dispatcher's posts probe results (services/ingest README, "Token scope").
 */
export interface IngestTokens {
  dispatcher: string;
  proxies: Readonly<Record<ProxyLabel, string>>;
  /** The token of the guarded worker's @a2a-ledger/worker-guard (it records its refusals to ingest). */
  guard: string;
}

/** The demo worker whose emissions @a2a-ledger/worker-guard checks against its card. */
export const guardedLabel: ProxyLabel = "W2";

export function newIngestTokens(): IngestTokens {
  const token = () => randomBytes(24).toString("base64url");
  return { dispatcher: token(), proxies: { W1: token(), W2: token(), W3: token() }, guard: token() };
}

/** A2A_LEDGER_INGEST_TOKENS entries for `tokens`, after the operator's own when A2A_LEDGER_INGEST_TOKENS (or the deprecated INGEST_TOKENS) is set. */
export function ingestTokenEntries(tokens: IngestTokens, configured?: string): string {
  const ours = [
    `${tokens.dispatcher}=dispatcher`,
    ...proxyLabels.map((label) => `${tokens.proxies[label]}=proxy:${label}-*`),
    `${tokens.guard}=guard:${guardedLabel}-*`,
  ];
  return [configured?.trim(), ...ours].filter((e) => e !== undefined && e !== "").join(",");
}

export interface PlanContext {
  root: string;
  entries: EntryPoints;
  /** The environment every process gets (the stack's endpoints, the topic suffix, the data directory), for compiled programs (`compiledEnv` of @a2a-ledger/env). */
  env: NodeJS.ProcessEnv;
  topics: TopicNames;
  /** The tokens with which the proxies and the dispatcher write to ingest. */
  tokens: IngestTokens;
}

/** A compiled entry point run by plain node. */
const compiled = (entry: string, ...args: string[]) => [entry, ...args];
const serverUrl = (entry: LogEntry): string | undefined =>
  typeof entry.url === "string" ? entry.url.replace(/\/+$/, "") : undefined;

export function ingestSpec(ctx: PlanContext): ProcessSpec {
  return {
    name: "ingest",
    command: process.execPath,
    args: () => compiled(ctx.entries.ingest),
    cwd: ctx.root,
    env: {
      ...ctx.env,
      A2A_LEDGER_INGEST_TOPIC: ctx.topics.observations,
      A2A_LEDGER_INGEST_TOKENS: ingestTokenEntries(
        ctx.tokens,
        ctx.env.A2A_LEDGER_INGEST_TOKENS ?? ctx.env.INGEST_TOKENS,
      ),
    },
    portEnv: "A2A_LEDGER_INGEST_PORT",
    // fastify says where it listens; the service says when Kafka is connected.
    ready: readyOnMessages(["ingest ready for observations"], (e) =>
      typeof e.msg === "string" ? /^Server listening at (\S+)$/.exec(e.msg)?.[1] : undefined,
    ),
  };
}

export function reconcilerSpec(ctx: PlanContext): ProcessSpec {
  return {
    name: "reconciler",
    command: process.execPath,
    args: () => compiled(ctx.entries.reconciler),
    cwd: ctx.root,
    env: ctx.env,
    ready: readyOnMessage("partitions assigned"),
  };
}

export function projectorSpec(ctx: PlanContext): ProcessSpec {
  return {
    name: "projector",
    command: process.execPath,
    args: () => compiled(ctx.entries.projector),
    cwd: ctx.root,
    env: ctx.env,
    portEnv: "A2A_LEDGER_PROJECTOR_PORT",
    ready: () => (e) => ({ ready: e.msg === "projector ready", url: serverUrl(e) }),
    startTimeoutMs: 120_000,
  };
}

export function dispatcherSpec(ctx: PlanContext, ingestUrl: string, workersFile: string | undefined): ProcessSpec {
  const env: NodeJS.ProcessEnv = {
    ...ctx.env,
    A2A_LEDGER_DISPATCHER_INGEST_URL: ingestUrl,
    A2A_LEDGER_DISPATCHER_INGEST_TOKEN: ctx.tokens.dispatcher,
  };
  if (workersFile !== undefined) env.A2A_LEDGER_DISPATCHER_WORKERS_FILE = workersFile;
  // The operator's value wins, also under its deprecated name.
  if (env.A2A_LEDGER_DISPATCHER_CANARY_POLL_MS === undefined && env.DISPATCHER_CANARY_POLL_MS === undefined)
    env.A2A_LEDGER_DISPATCHER_CANARY_POLL_MS = "1000";
  return {
    name: "dispatcher",
    command: process.execPath,
    args: () => compiled(ctx.entries.dispatcher),
    cwd: ctx.root,
    env,
    portEnv: "A2A_LEDGER_DISPATCHER_PORT",
    ready: readyOnMessages(["listening", "partitions assigned"], (e) =>
      e.msg === "listening" ? serverUrl(e) : undefined,
    ),
  };
}

/**
 * `guard`: the worker enforces its card at emission and records refusals under the ledger's worker id,
 * with the guard's ingest token (in its environment, never on its command line).
 */
export function jsAgentSpec(
  ctx: PlanContext,
  kind: "w1" | "w2",
  configFile?: string,
  guard?: { workerId: string; ingestUrl: string },
): ProcessSpec {
  const guardArgs =
    guard === undefined ? [] : ["--guard-worker-id", guard.workerId, "--guard-ingest-url", guard.ingestUrl];
  return {
    name: kind.toUpperCase(),
    command: process.execPath,
    args: (port) =>
      compiled(
        ctx.entries.jsAgent,
        "--agent",
        kind,
        "--port",
        String(port),
        ...(configFile === undefined ? [] : ["--config", configFile]),
        ...guardArgs,
      ),
    cwd: ctx.root,
    env: guard === undefined ? ctx.env : { ...ctx.env, GUARD_INGEST_TOKEN: ctx.tokens.guard },
    ready: readyOnMessage("listening"),
  };
}

export const pythonOf = (entries: EntryPoints) => join(entries.agentPy, ".venv/bin/python");

export function pyAgentSpec(ctx: PlanContext, db: string): ProcessSpec {
  return {
    name: "W3",
    command: pythonOf(ctx.entries),
    args: (port) => ["-m", "w3", "--port", String(port), "--db", db],
    cwd: ctx.entries.agentPy,
    env: { ...ctx.env, PYTHONUNBUFFERED: "1" },
    ready: readyOnMessage("listening"),
  };
}

export function proxySpec(
  ctx: PlanContext,
  workerId: string,
  label: ProxyLabel,
  upstreamUrl: string,
  ingestUrl: string,
): ProcessSpec {
  return {
    name: `proxy-${label}`,
    command: process.execPath,
    args: () => compiled(ctx.entries.proxy),
    cwd: ctx.root,
    env: {
      ...ctx.env,
      A2A_LEDGER_PROXY_WORKER_ID: workerId,
      A2A_LEDGER_PROXY_UPSTREAM_URL: upstreamUrl,
      A2A_LEDGER_PROXY_PORT: "0",
      A2A_LEDGER_PROXY_REWRITE_CARD_URLS: "true",
      A2A_LEDGER_PROXY_INGEST_URL: ingestUrl,
      A2A_LEDGER_PROXY_INGEST_TOKEN: ctx.tokens.proxies[label],
      A2A_LEDGER_PROXY_LOG_LEVEL: "info",
    },
    // Port 0 at the first start; a restart keeps the address the worker's clients were given.
    portEnv: "A2A_LEDGER_PROXY_PORT",
    ready: readyOnMessage("listening"),
  };
}

export function orchestratorSpec(ctx: PlanContext, storyFile: string, onLine?: ProcessSpec["onLine"]): ProcessSpec {
  return {
    onLine,
    name: "orchestrator",
    command: process.execPath,
    args: () => compiled(ctx.entries.orchestrator, "--story", storyFile),
    cwd: ctx.root,
    env: ctx.env,
    // Not a server: it runs the story and exits (never restarted).
    lifetime: "task",
    ready: readyOnMessage("orchestrator started"),
    ipc: true,
  };
}

export interface DemoWorker {
  label: "W1" | "W2" | "W3";
  workerId: string;
  workerUrl: string;
  proxyUrl: string;
}

/**
 * The ids of one demo run: fresh workers and tasks, so every run is a first contact for the ledger. The
 * story file hands the tasks' correlation ids to the orchestrator (`demoStory`).
 */
export function demoIds(runId: string) {
  return {
    workers: { W1: `W1-${runId}`, W2: `W2-${runId}`, W3: `W3-${runId}` },
    tasks: { lost: `task-${runId}`, retried: `retry-${runId}`, guarded: `guarded-${runId}` },
  };
}

/** The dispatcher's workers file for the demo: every worker through its proxy, with re-dispatch messages and canaries. */
export function demoWorkersFile(workers: readonly DemoWorker[]): unknown {
  const skills = {
    [meshSkillId]: {
      redispatch: {
        message: "{correlationId}: answer again (attempt {attempt})",
        resume: {
          TASK_STATE_INPUT_REQUIRED:
            "need-input {correlationId}: resumed after {fromServerTaskId} was lost (attempt {attempt})",
        },
      },
      canaries: [{ message: "delay-ms=500 probe canary" }, { message: "need-input probe canary", park: true }],
    },
  };
  return {
    workers: Object.fromEntries(workers.map((w) => [w.workerId, { url: w.proxyUrl, workerUrl: w.workerUrl, skills }])),
  };
}

/** The orchestrator's story file. */
export function demoStory(runId: string, workers: readonly DemoWorker[]): unknown {
  const of = (label: DemoWorker["label"]) => {
    const w = workers.find((x) => x.label === label);
    if (w === undefined) throw new Error(`no ${label} in the demo`);
    return { workerId: w.workerId, url: w.proxyUrl };
  };
  return {
    runId,
    tasks: demoIds(runId).tasks,
    workers: { w1: of("W1"), w2: of("W2"), w3: of("W3") },
    skillId: meshSkillId,
    acceptedOutputModes,
    ledgerTimeoutMs: 120_000,
  };
}
