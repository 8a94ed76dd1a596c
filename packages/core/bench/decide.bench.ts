/**
 * Benchmark (not a test): rules cost vs parsing cost over a generated log of 1,000,000 observations.
 *   npm run bench -w @a2a-ledger/core            (OBSERVATIONS=200000 to shorten)
 * (a) parse only: JSON.parse + the ingest parser (Avro-validated) per NDJSON line;
 * (b) parse + rules: the same, then the decider step per observation (single thread);
 * rules cost = (b) − (a), also measured directly on pre-parsed observations.
 */
import type { Observation } from "@a2a-ledger/schemas";
import { CapabilityTable } from "../src/capabilities.ts";
import { lifecycleExtensionUri } from "../src/card.ts";
import { cardHash } from "../src/card-hash.ts";
import type { CorrelationState } from "../src/correlation-state.ts";
import { applyCapabilityUpdates, createDecider } from "../src/decider.ts";
import { parseObservation } from "../src/ingest-json.ts";
import { defaultRuleSet } from "../src/rules/rule-sets.ts";

const total = Number(process.env["OBSERVATIONS"] ?? 1_000_000);

/** Deterministic pseudo-random numbers (mulberry32). */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const workers = ["w-acme", "w-beta", "w-gamma", "w-delta", "w-eps"];
const observers = ["orchestrator", "proxy", "worker"];
const media = ["text/plain", "text/markdown", "application/json"];

function cardFor(i: number, version: number) {
  return {
    name: `${workers[i]} agent`,
    version: `1.${version}`,
    provider: { organization: `Vendor${i}` },
    capabilities: { extensions: [{ uri: lifecycleExtensionUri, params: { states: ["submitted", "working", "input-required", "completed", "failed"], taskStore: i % 2 === 0 ? "durable" : "ephemeral" } }] },
    defaultOutputModes: ["text/plain"],
    skills: [{ id: "summarize", outputModes: media.slice(0, 1 + (i % 3)) }],
  };
}

/** The log as NDJSON lines: cards and probes, card refreshes, and many interleaved task correlations. */
function generate(n: number): string[] {
  const rnd = prng(42);
  const lines: string[] = [];
  let t = Date.UTC(2025, 5, 1);
  let seq = 0;
  const push = (o: Record<string, unknown>) => lines.push(JSON.stringify({ ...o, eventId: `ev-${++seq}`, occurredAt: (t += 3) }));
  workers.forEach((w, i) => {
    const card = cardFor(i, 0);
    push({ type: "AgentCardObserved", correlationId: `probe-${w}`, observer: "dispatcher", workerId: w, cardUrl: `https://${w}/.well-known/agent-card.json`, card, cacheMaxAgeSeconds: 3600 });
    push({ type: "ProbeCompleted", correlationId: `probe-${w}`, observer: "dispatcher", workerId: w, cardHash: cardHash(card), skillId: "summarize", statesObserved: ["TASK_STATE_SUBMITTED", "TASK_STATE_WORKING", "TASK_STATE_INPUT_REQUIRED", "TASK_STATE_COMPLETED"], reobservable: i === 2 ? ["TASK_STATE_SUBMITTED", "TASK_STATE_WORKING", "TASK_STATE_INPUT_REQUIRED", "TASK_STATE_COMPLETED"] : ["TASK_STATE_WORKING", "TASK_STATE_COMPLETED"], emittedModes: media.slice(0, 1 + (i % 3)), durable: i === 2 });
  });
  type Script = string[][]; // remaining steps of one correlation, as [kind, ...args]
  const active: { corr: string; steps: Script }[] = [];
  let corrSeq = 0;
  const newCorrelation = () => {
    const corr = `task-${++corrSeq}`;
    const w = workers[Math.floor(rnd() * workers.length)] as string;
    const task = `${w}-${corrSeq}`;
    const m = media[Math.floor(rnd() * 2)] as string;
    const steps: Script = [["dispatch", w], ["state", w, task, "submitted"], ["state", w, task, "working"], ["state", w, task, "TASK_STATE_WORKING"], ["artifact", w, task, m]];
    const r = rnd();
    if (r < 0.1) {
      steps.push(["state", w, task, "input-required"], ["notFound", w, task], ["dispatch2", "w-gamma"], ["state", "w-gamma", `g-${corrSeq}`, "working"], ["artifact", "w-gamma", `g-${corrSeq}`, "text/plain"], ["state", "w-gamma", `g-${corrSeq}`, "completed"]);
    } else if (r < 0.15) {
      steps.push(["state", w, task, "failed"], ["notFound", w, task]);
    } else {
      steps.push(["state", w, task, "completed"], ["state", w, task, "TASK_STATE_COMPLETED"]);
    }
    active.push({ corr, steps });
  };
  let refresh = 0;
  while (lines.length < n) {
    if (lines.length % 50_000 === 0 && lines.length > 0) {
      const i = refresh++ % workers.length;
      push({ type: "AgentCardObserved", correlationId: `probe-${workers[i]}`, observer: "dispatcher", workerId: workers[i], cardUrl: "u", card: cardFor(i, refresh), cacheMaxAgeSeconds: 600 });
      continue;
    }
    while (active.length < 200) newCorrelation();
    const k = Math.floor(rnd() * active.length);
    const c = active[k] as { corr: string; steps: Script };
    const [kind, w, task, arg] = c.steps.shift() as string[];
    const observer = observers[Math.floor(rnd() * 3)] as string;
    const base = { correlationId: c.corr, observer, workerId: w };
    if (kind === "dispatch" || kind === "dispatch2") push({ type: "TaskDispatched", ...base, skillId: "summarize", messageId: `${c.corr}-${kind}`, acceptedOutputModes: ["text/plain", "text/markdown"], attempt: kind === "dispatch" ? 1 : 2, cardFetchedAt: t - 1000 });
    else if (kind === "state") push({ type: "TaskStateObserved", ...base, serverTaskId: task, contextId: `ctx-${c.corr}`, state: arg, via: observer === "proxy" ? "stream" : "get" });
    else if (kind === "artifact") push({ type: "ArtifactEmitted", ...base, serverTaskId: task, artifactId: `${task}-a`, name: "summary", parts: [{ kind: "TEXT", mediaType: arg, sizeBytes: 1200 }] });
    else push({ type: "TaskNotFoundObserved", ...base, serverTaskId: task, method: "GetTask", errorCode: "-32001" });
    if (c.steps.length === 0) active.splice(k, 1);
  }
  return lines.slice(0, n);
}

function parse(line: string): Observation {
  const r = parseObservation(JSON.parse(line));
  if (!r.ok) throw new Error(`generator produced an invalid line: ${JSON.stringify(r.issues)} ${line}`);
  return r.observation;
}

function rulesOver(observations: Iterable<Observation>): number {
  const decider = createDecider(defaultRuleSet);
  const table = new CapabilityTable();
  const ctx = { capabilities: table, policy: { trustedVendors: ["Vendor0"] } };
  const states = new Map<string, CorrelationState>();
  let decisions = 0;
  for (const obs of observations) {
    const result = decider.step(ctx, states.get(obs.correlationId) ?? decider.initialState(), obs);
    states.set(obs.correlationId, result.correlationState);
    applyCapabilityUpdates(table, result);
    decisions += result.decisions.length;
  }
  return decisions;
}

function* parsing(lines: readonly string[]): Generator<Observation> {
  for (const line of lines) yield parse(line);
}

const seconds = (start: bigint): number => Number(process.hrtime.bigint() - start) / 1e9;
const rate = (n: number, s: number): string => `${Math.round(n / s).toLocaleString("en-US")} obs/s`;

const genStart = process.hrtime.bigint();
const lines = generate(total);
const bytes = lines.reduce((s, l) => s + l.length + 1, 0);
console.log(`generated ${lines.length.toLocaleString("en-US")} observations (${(bytes / 1e6).toFixed(0)} MB NDJSON) in ${seconds(genStart).toFixed(1)} s`);

// warm-up so the JIT has seen every path
rulesOver(parsing(lines.slice(0, 50_000)));

// Three rounds, median of each, so a noisy neighbour on the machine does not decide the figure.
const rounds = Number(process.env["ROUNDS"] ?? 3);
const parseRuns: number[] = [];
const bothRuns: number[] = [];
const rulesRuns: number[] = [];
let decisions = 0;
let parsed: Observation[] = [];
for (let r = 0; r < rounds; r++) {
  let start = process.hrtime.bigint();
  parsed = [];
  for (const line of lines) parsed.push(parse(line));
  parseRuns.push(seconds(start));

  start = process.hrtime.bigint();
  rulesOver(parsed);
  rulesRuns.push(seconds(start));

  start = process.hrtime.bigint();
  decisions = rulesOver(parsing(lines));
  bothRuns.push(seconds(start));
}
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;
const parseS = median(parseRuns);
const bothS = median(bothRuns);
const rulesS = median(rulesRuns);

console.log(`node ${process.version}, ${rounds} rounds, medians`);
console.log(`(a) parse only        ${parseS.toFixed(2)} s  ${rate(total, parseS)}`);
console.log(`(b) parse + rules     ${bothS.toFixed(2)} s  ${rate(total, bothS)}  (${decisions.toLocaleString("en-US")} decisions)`);
console.log(`    rules alone       ${rulesS.toFixed(2)} s  ${rate(total, rulesS)}  (on pre-parsed observations)`);
console.log(`rules/parse cost ratio: ${((bothS - parseS) / parseS).toFixed(2)} from (b)−(a); ${(rulesS / parseS).toFixed(2)} measured directly`);
