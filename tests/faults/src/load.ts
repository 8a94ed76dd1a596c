/**
 * The bounded load: task correlations on `w-lost`, recorded through the ingest client → ingest at a
 * steady pace, a share of them lost in INPUT_REQUIRED (TaskNotFound from GetTask), so that the
 * reconciler judges them indeterminate and commands re-dispatches the dispatcher carries out against
 * `w-target`. Every eventId ingest acknowledged (202) is remembered, with the number of HTTP requests
 * that carried it: the oracle's "acknowledged, so on the topic" and its bound on copies.
 */
import { IngestClient, type ObservationInput } from "@a2a-ledger/ingest-client";
import { skillId } from "./mesh/counting-worker.ts";

export interface LoadOptions {
  correlations: number;
  /** Share of correlations lost in INPUT_REQUIRED. */
  lostShare: number;
  /** Observations per request, and the pause between requests. */
  batch: number;
  pauseMs: number;
  /** Retries per request after the first (the bound on copies is 1 + this, per request carrying an event). */
  maxRetries: number;
}

export const defaultLoad: LoadOptions = {
  correlations: Number(process.env.FAULT_LOAD_CORRELATIONS ?? 240),
  lostShare: 0.4,
  batch: 12,
  pauseMs: 60,
  maxRetries: 80,
};

export interface LoadResult {
  /** eventId → the observation acknowledged with 202. */
  acknowledged: Map<string, ObservationInput>;
  /** eventId → how many HTTP requests carried it (first attempts and retries). */
  requestsPerEvent: Map<string, number>;
  /** Correlations whose task the load reported lost. */
  lost: string[];
  retries: number;
  startedAt: number;
  finishedAt: number;
}

/** One correlation's observations, as the orchestrator and the worker's proxy would have recorded them. */
export function correlationScript(runId: string, i: number, lost: boolean, at: () => number): ObservationInput[] {
  const correlationId = `${runId}-task-${i}`;
  const serverTaskId = `${runId}-lost-task-${i}`;
  let seq = 0;
  const base = (observer: string) => ({
    eventId: `${correlationId}-ev-${++seq}`,
    correlationId,
    observer,
    workerId: "w-lost",
    occurredAt: at(),
  });
  const state = (s: string, observer = "proxy") => ({
    type: "TaskStateObserved" as const,
    ...base(observer),
    serverTaskId,
    contextId: `ctx-${i}`,
    state: s,
    via: "get",
  });
  const steps: ObservationInput[] = [
    {
      type: "TaskDispatched",
      ...base("orchestrator"),
      skillId,
      messageId: `${correlationId}-m1`,
      acceptedOutputModes: ["text/plain"],
      attempt: 1,
    } as ObservationInput,
    state("TASK_STATE_SUBMITTED") as ObservationInput,
    state("TASK_STATE_WORKING", "orchestrator") as ObservationInput,
  ];
  if (lost) {
    steps.push(state("TASK_STATE_INPUT_REQUIRED") as ObservationInput);
    steps.push({
      type: "TaskNotFoundObserved",
      ...base("orchestrator"),
      serverTaskId,
      method: "GetTask",
      errorCode: "-32001",
    } as ObservationInput);
  } else {
    steps.push({
      type: "ArtifactEmitted",
      ...base("proxy"),
      serverTaskId,
      artifactId: `${serverTaskId}-a`,
      name: "result",
      parts: [{ kind: "TEXT", mediaType: "text/plain", sizeBytes: 42 }],
    } as ObservationInput);
    steps.push(state("TASK_STATE_COMPLETED") as ObservationInput);
  }
  return steps;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * The steps of `scripts` as one stream: a sliding window of 30 correlations in flight, steps taken in a
 * deterministic shuffled order, so losses and their re-dispatches happen all along the stream, not only at
 * its end. `scripts` may be endless.
 */
export function* interleaved(scripts: Iterable<readonly ObservationInput[]>): Generator<ObservationInput> {
  const source = scripts[Symbol.iterator]();
  const active: ObservationInput[][] = [];
  let drained = false;
  let seed = 12345;
  const random = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 4294967296;
  while (!drained || active.length > 0) {
    while (active.length < 30 && !drained) {
      const next = source.next();
      if (next.done === true) drained = true;
      else active.push([...next.value]);
    }
    if (active.length === 0) return;
    const k = Math.floor(random() * active.length);
    const script = active[k] as ObservationInput[];
    yield script.shift() as ObservationInput;
    if (script.length === 0) active.splice(k, 1);
  }
}

/**
 * Sends the load; `onProgress` is told the share sent so far (0..1) after every request, so a test can
 * inject its fault in the middle of the stream.
 */
export async function runLoad(
  ingestUrl: string,
  runId: string,
  options: LoadOptions = defaultLoad,
  onProgress: (share: number) => void = () => undefined,
): Promise<LoadResult> {
  const requestsPerEvent = new Map<string, number>();
  const countingFetch: typeof fetch = async (input, init) => {
    const body = typeof init?.body === "string" ? (JSON.parse(init.body) as { eventId: string }[]) : [];
    for (const e of body) requestsPerEvent.set(e.eventId, (requestsPerEvent.get(e.eventId) ?? 0) + 1);
    return fetch(input, init);
  };
  const client = new IngestClient({
    baseUrl: ingestUrl,
    maxBatchEvents: options.batch,
    maxRetries: options.maxRetries,
    initialBackoffMs: 100,
    maxBackoffMs: 2_000,
    timeoutMs: 20_000,
    fetch: countingFetch,
  });

  // Correlations interleave: each request takes the next step of several of them.
  const clock = () => Date.now();
  const scripts: ObservationInput[][] = [];
  const lost: string[] = [];
  for (let i = 0; i < options.correlations; i++) {
    const isLost = (i * 7919) % 100 < options.lostShare * 100;
    if (isLost) lost.push(`${runId}-task-${i}`);
    scripts.push(correlationScript(runId, i, isLost, clock));
  }
  const acknowledged = new Map<string, ObservationInput>();
  const queue = [...interleaved(scripts)];
  const total = queue.length;
  let retries = 0;
  const startedAt = Date.now();
  for (let i = 0; i < queue.length; i += options.batch) {
    // Stamped as they are sent: the observers saw them now.
    const batch = queue.slice(i, i + options.batch).map((o) => ({ ...o, occurredAt: Date.now() }) as ObservationInput);
    const result = await client.send(batch);
    retries += result.retries;
    for (const o of batch) acknowledged.set((o as { eventId: string }).eventId, o);
    onProgress(Math.min(1, (i + options.batch) / total));
    await sleep(options.pauseMs);
  }
  return { acknowledged, requestsPerEvent, lost, retries, startedAt, finishedAt: Date.now() };
}
