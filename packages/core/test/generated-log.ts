/**
 * A deterministic, realistic observation log as NDJSON lines (ingest JSON shape): cards and probes of
 * five workers first, then 200 interleaved task correlations at a time, about 10% of them lost in
 * input-required and re-dispatched, 5% failed and purged, card refreshes every `refreshEvery` lines.
 * Shared by the benchmarks and the reconciler's tests.
 */
import { lifecycleExtensionUri } from "../src/card.ts";
import { cardHash } from "../src/card-hash.ts";

/** Deterministic pseudo-random numbers (mulberry32). */
export function prng(seed: number): () => number {
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
    capabilities: {
      extensions: [
        {
          uri: lifecycleExtensionUri,
          params: {
            states: ["submitted", "working", "input-required", "completed", "failed"],
            taskStore: i % 2 === 0 ? "durable" : "ephemeral",
          },
        },
      ],
    },
    defaultOutputModes: ["text/plain"],
    skills: [{ id: "summarize", outputModes: media.slice(0, 1 + (i % 3)) }],
  };
}

/**
 * The log as NDJSON lines: cards and probes, card refreshes, and many interleaved task correlations.
 * `refreshEvery`: a card refresh (a new card version of one worker) every that many lines;
 * `probeRefreshes`: each refreshed card is probed right after, as the dispatcher would.
 */
export interface GenerateOptions {
  refreshEvery?: number;
  probeRefreshes?: boolean;
  /**
   * Workers of two kinds, as a real mesh has them, instead of one loss rate for all: the durable ones
   * (cards claiming a durable store: w-acme, w-gamma, w-eps) lose `durableLoss` of their tasks (default
   * 0.5 %), the ephemeral ones (w-beta, w-delta) `ephemeralLoss` (default 15 %: a restart loses what it
   * held), two thirds in input-required and a third in working; a lost task is dispatched again to a
   * durable worker other than the loser. Left out: the log every pinned digest was taken over.
   */
  kinds?: { durableLoss?: number; ephemeralLoss?: number };
}

export function generateLog(n: number, options: GenerateOptions = {}): string[] {
  const refreshEvery = options.refreshEvery ?? 50_000;
  const rnd = prng(42);
  const lines: string[] = [];
  let t = Date.UTC(2025, 5, 1);
  let seq = 0;
  const push = (o: Record<string, unknown>) =>
    lines.push(JSON.stringify({ ...o, eventId: `ev-${++seq}`, occurredAt: (t += 3) }));
  const probe = (i: number, card: ReturnType<typeof cardFor>) => {
    const w = workers[i] as string;
    push({
      type: "ProbeCompleted",
      correlationId: `probe-${w}`,
      observer: "dispatcher",
      workerId: w,
      cardHash: cardHash(card),
      skillId: "summarize",
      statesObserved: [
        "TASK_STATE_SUBMITTED",
        "TASK_STATE_WORKING",
        "TASK_STATE_INPUT_REQUIRED",
        "TASK_STATE_COMPLETED",
      ],
      reobservable:
        i === 2
          ? ["TASK_STATE_SUBMITTED", "TASK_STATE_WORKING", "TASK_STATE_INPUT_REQUIRED", "TASK_STATE_COMPLETED"]
          : ["TASK_STATE_WORKING", "TASK_STATE_COMPLETED"],
      emittedModes: media.slice(0, 1 + (i % 3)),
      durable: i === 2,
    });
  };
  workers.forEach((w, i) => {
    const card = cardFor(i, 0);
    push({
      type: "AgentCardObserved",
      correlationId: `probe-${w}`,
      observer: "dispatcher",
      workerId: w,
      cardUrl: `https://${w}/.well-known/agent-card.json`,
      card,
      cacheMaxAgeSeconds: 3600,
    });
    probe(i, card);
  });
  type Script = string[][]; // remaining steps of one correlation, as [kind, ...args]
  const active: { corr: string; steps: Script }[] = [];
  let corrSeq = 0;
  const newCorrelation = () => {
    const corr = `task-${++corrSeq}`;
    const w = workers[Math.floor(rnd() * workers.length)] as string;
    const task = `${w}-${corrSeq}`;
    const m = media[Math.floor(rnd() * 2)] as string;
    const steps: Script = [
      ["dispatch", w],
      ["state", w, task, "submitted"],
      ["state", w, task, "working"],
      ["state", w, task, "TASK_STATE_WORKING"],
      ["artifact", w, task, m],
    ];
    const r = rnd();
    if (options.kinds !== undefined) {
      const durable = workers.indexOf(w) % 2 === 0;
      const loss = durable ? (options.kinds.durableLoss ?? 0.005) : (options.kinds.ephemeralLoss ?? 0.15);
      if (r < loss) {
        const others = workers.filter((x, i) => i % 2 === 0 && x !== w);
        const next = others[Math.floor(rnd() * others.length)] as string;
        const lostIn = rnd() < 2 / 3 ? "input-required" : "working";
        steps.push(
          ...(lostIn === "input-required" ? [["state", w, task, "input-required"]] : []),
          ["notFound", w, task],
          ["dispatch2", next],
          ["state", next, `r-${corrSeq}`, "working"],
          ["artifact", next, `r-${corrSeq}`, "text/plain"],
          ["state", next, `r-${corrSeq}`, "completed"],
        );
      } else steps.push(["state", w, task, "completed"], ["state", w, task, "TASK_STATE_COMPLETED"]);
      active.push({ corr, steps });
      return;
    }
    if (r < 0.1) {
      steps.push(
        ["state", w, task, "input-required"],
        ["notFound", w, task],
        ["dispatch2", "w-gamma"],
        ["state", "w-gamma", `g-${corrSeq}`, "working"],
        ["artifact", "w-gamma", `g-${corrSeq}`, "text/plain"],
        ["state", "w-gamma", `g-${corrSeq}`, "completed"],
      );
    } else if (r < 0.15) {
      steps.push(["state", w, task, "failed"], ["notFound", w, task]);
    } else {
      steps.push(["state", w, task, "completed"], ["state", w, task, "TASK_STATE_COMPLETED"]);
    }
    active.push({ corr, steps });
  };
  let refresh = 0;
  while (lines.length < n) {
    if (lines.length % refreshEvery === 0 && lines.length > 0) {
      const i = refresh++ % workers.length;
      const card = cardFor(i, refresh);
      push({
        type: "AgentCardObserved",
        correlationId: `probe-${workers[i]}`,
        observer: "dispatcher",
        workerId: workers[i],
        cardUrl: "u",
        card,
        cacheMaxAgeSeconds: 600,
      });
      if (options.probeRefreshes === true) probe(i, card);
      continue;
    }
    while (active.length < 200) newCorrelation();
    const k = Math.floor(rnd() * active.length);
    const c = active[k] as { corr: string; steps: Script };
    const [kind, w, task, arg] = c.steps.shift() as string[];
    const observer = observers[Math.floor(rnd() * 3)] as string;
    const base = { correlationId: c.corr, observer, workerId: w };
    if (kind === "dispatch" || kind === "dispatch2")
      push({
        type: "TaskDispatched",
        ...base,
        skillId: "summarize",
        messageId: `${c.corr}-${kind}`,
        acceptedOutputModes: ["text/plain", "text/markdown"],
        attempt: kind === "dispatch" ? 1 : 2,
        cardFetchedAt: t - 1000,
      });
    else if (kind === "state")
      push({
        type: "TaskStateObserved",
        ...base,
        serverTaskId: task,
        contextId: `ctx-${c.corr}`,
        state: arg,
        via: observer === "proxy" ? "stream" : "get",
      });
    else if (kind === "artifact")
      push({
        type: "ArtifactEmitted",
        ...base,
        serverTaskId: task,
        artifactId: `${task}-a`,
        name: "summary",
        parts: [{ kind: "TEXT", mediaType: arg, sizeBytes: 1200 }],
      });
    else push({ type: "TaskNotFoundObserved", ...base, serverTaskId: task, method: "GetTask", errorCode: "-32001" });
    if (c.steps.length === 0) active.splice(k, 1);
  }
  return lines.slice(0, n);
}
