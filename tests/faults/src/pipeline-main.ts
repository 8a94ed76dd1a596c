/**
 * `npm run bench:pipeline` (not in CI): the capacity an operator can plan with. The whole ledger (ingest,
 * the reconciler, the projector on SQLite, the dispatcher, a recording proxy per worker; each its own
 * process, `mesh/ledger.ts`) on three brokers (the running three-node stack, or a private one), fed at
 * rising rates by an open-loop load: every PIPELINE_STEP_S seconds a higher rate of the fault suite's
 * task correlations (`load.ts`), PIPELINE_LOST_SHARE of them lost in INPUT_REQUIRED.
 *
 * End-to-end lag is measured, not inferred: once a second the load also sends a marker, a task lost in
 * INPUT_REQUIRED on a correlation of its own (five observations in one request), and polls the projector's
 * lineage of it until it is whole: the five observations projected and the reconciler's decision on the
 * loss readable. Loss acknowledged by ingest → whole in the projector is ingest → brokers → reconciler
 * (exactly once) → brokers → projector. The decision record's own timestamp (the reconciler's clock when it
 * produced it) splits that into the reconciler's part and the rest. A rate holds when ingest acknowledged
 * ≥ 95 % of it and the markers' p99 stayed under 5 s (capacity.ts). Steps go up until one does not hold;
 * each step ends once the ledger drained (the reconciler committed, and the projector projected, every
 * observation written by the step's end).
 *
 * Per step it prints the rate acknowledged, the markers' p50/p99/max and their split, the reconciler's
 * largest backlog, the drain, and the cores each stage kept busy from the step's start to the drain's end,
 * the brokers' and the load's own included: they share the machine. Then the highest rate that held, the
 * observations per CPU second of ingest, the reconciler and the projector at that rate (the step's
 * observations over the CPU spent on them), and what 1k, 10k and 100k obs/s need by those figures.
 *
 *   PIPELINE_RATES (250,500,1000,1500,2000,2500,3000,4000,6000), PIPELINE_STEP_S (30), PIPELINE_BATCH (20
 *   observations per request), PIPELINE_LOST_SHARE (0.05), PIPELINE_RECONCILERS (1), PIPELINE_WARMUP_S (10)
 */
import { percentile, processCpuSeconds } from "@a2a-ledger/env/testing";
import { kafkaNodePid } from "@a2a-ledger/infra";
import { IngestClient, type ObservationInput } from "@a2a-ledger/ingest-client";
import { type Admin, createKafka, endOffsets, logLevel } from "@a2a-ledger/kafka";
import { readToEnd } from "@a2a-ledger/kafka/testing";
import { capacity, coresUsed, judgeStep, perCore, plan, type Stage, type Step, stages } from "./capacity.ts";
import { acquireCluster, type ClusterUnderTest, releaseCluster } from "./cluster.ts";
import { correlationScript, interleaved } from "./load.ts";
import { positiveNumber } from "./env-number.ts";
import { Ledger } from "./mesh/ledger.ts";
import { firstContact } from "./scenario.ts";

const rates = (process.env.PIPELINE_RATES ?? "250,500,1000,1500,2000,2500,3000,4000,6000").split(",").map(Number);
if (rates.some((r, i) => !Number.isFinite(r) || r <= 0 || (i > 0 && r <= (rates[i - 1] as number))))
  throw new Error(`PIPELINE_RATES=${JSON.stringify(process.env.PIPELINE_RATES)}: expected rising rates, e.g. 500,1000`);
const stepSeconds = positiveNumber("PIPELINE_STEP_S", 30);
const batch = positiveNumber("PIPELINE_BATCH", 20);
const lostShare = positiveNumber("PIPELINE_LOST_SHARE", 0.05);
const reconcilerCount = positiveNumber("PIPELINE_RECONCILERS", 1);
const warmupSeconds = positiveNumber("PIPELINE_WARMUP_S", 10);
/** Requests in flight at most: past it the load falls behind its rate, which the step then shows. */
const maxInFlight = 64;
const markerDeadlineMs = 30_000;

const log = (line: string) => console.error(`[pipeline] ${new Date().toISOString().slice(11, 19)} ${line}`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The load's correlations, endless: each a script of the fault suite's load, interleaved 30 at a time. */
function* scripts(runId: string): Generator<ObservationInput[]> {
  for (let i = 0; ; i++) yield correlationScript(runId, i, (i * 7919) % 100 < lostShare * 100, Date.now);
}

/** CPU seconds each stage used so far. */
function cpuNow(ledger: Ledger, cluster: ClusterUnderTest): Record<Stage, number> {
  const pids = ledger.pids();
  const of = (names: string[]) => names.reduce((sum, n) => sum + (processCpuSeconds(pids[n]) ?? Number.NaN), 0);
  const own = process.cpuUsage();
  return {
    ingest: of(["ingest"]),
    reconciler: of(Object.keys(pids).filter((n) => n.startsWith("reconciler-"))),
    projector: of(["projector"]),
    dispatcher: of(["dispatcher"]),
    proxies: of(["proxy-lost", "proxy-target"]),
    brokers: cluster.nodes.reduce((sum, node) => sum + (processCpuSeconds(kafkaNodePid(node)) ?? Number.NaN), 0),
    load: (own.user + own.system) / 1e6,
  };
}

/** Where the reconciler (committed offsets) and the projector (projected offsets) stand on the observations topic, by partition, and the topic's ends. */
async function positions(ledger: Ledger, admin: Admin) {
  const topic = ledger.topics.observations;
  const [ends, [committed], staleness] = await Promise.all([
    endOffsets(admin, topic),
    admin.fetchOffsets({ groupId: ledger.reconcilerGroup, topics: [topic] }),
    fetch(`${ledger.projectorUrl}/v1/staleness`).then(
      (r) =>
        r.json() as Promise<{
          topics: { topic: string; partitions: { partition: number; projectedOffset: number }[] }[];
        }>,
    ),
  ]);
  const projected = staleness.topics.find((t) => t.topic === topic)?.partitions ?? [];
  return {
    ends: new Map(ends.map((e) => [e.partition, Number(e.high)])),
    reconciler: new Map((committed?.partitions ?? []).map((p) => [p.partition, Math.max(0, Number(p.offset))])),
    projector: new Map(projected.map((p) => [p.partition, p.projectedOffset])),
  };
}

/** Records from `at` to `ends`, summed over the partitions. */
const behind = (ends: ReadonlyMap<number, number>, at: ReadonlyMap<number, number>) =>
  [...ends].reduce((sum, [p, end]) => sum + Math.max(0, end - (at.get(p) ?? 0)), 0);

interface Marker {
  correlationId: string;
  /** When ingest acknowledged its loss (the request carrying the TaskNotFound). */
  lostAt: number;
  /** ms from then until the projector showed it whole; undefined past the deadline. */
  wholeMs: number | undefined;
}

/**
 * Sends a marker (a task lost in INPUT_REQUIRED, its five observations in one request) and polls the
 * projector's lineage of it until it is whole: every observation projected and the reconciler's decision
 * on the loss readable.
 */
async function marker(ledger: Ledger, client: IngestClient, runId: string): Promise<Marker> {
  const script = correlationScript(runId, 0, true, Date.now);
  const correlationId = script[0]?.correlationId as string;
  await client.send(script);
  const lostAt = Date.now();
  const url = `${ledger.projectorUrl}/v1/tasks/${encodeURIComponent(correlationId)}`;
  while (Date.now() - lostAt < markerDeadlineMs) {
    const response = await fetch(url);
    if (response.ok) {
      const lineage = (await response.json()) as { statusDecision: unknown; eventCount: number };
      if (lineage.statusDecision != null && lineage.eventCount >= script.length)
        return { correlationId, lostAt, wholeMs: Date.now() - lostAt };
    } else await response.arrayBuffer();
    await sleep(50);
  }
  return { correlationId, lostAt, wholeMs: undefined };
}

interface Offered {
  acknowledged: number;
  markers: Marker[];
  maxReconcilerLag: number;
}

/** Offers `rate` observations/s for `seconds` (open loop), a marker every second; waits for the markers. */
async function offer(ledger: Ledger, admin: Admin, rate: number, seconds: number, runId: string): Promise<Offered> {
  const client = new IngestClient({
    baseUrl: ledger.ingestUrl,
    maxBatchEvents: batch,
    maxRetries: 3,
    initialBackoffMs: 100,
    maxBackoffMs: 1_000,
    timeoutMs: 20_000,
  });
  const stream = interleaved(scripts(runId));
  let acknowledged = 0;
  let failed = 0;
  let inFlight = 0;
  let offeredSoFar = 0;
  let maxReconcilerLag = 0;
  const pending: Promise<unknown>[] = [];
  const markers: Promise<Marker>[] = [];
  const startedAt = Date.now();
  const endsAt = startedAt + seconds * 1_000;
  let nextMarkerAt = startedAt;
  let nextSampleAt = startedAt + 1_000;
  while (Date.now() < endsAt) {
    const now = Date.now();
    const due = Math.floor((rate * (now - startedAt)) / 1_000);
    while (offeredSoFar + batch <= due && inFlight < maxInFlight) {
      const events: ObservationInput[] = [];
      for (let i = 0; i < batch; i++) events.push({ ...(stream.next().value as ObservationInput), occurredAt: now });
      offeredSoFar += batch;
      inFlight++;
      pending.push(
        client
          .send(events)
          .then((r) => void (acknowledged += r.accepted))
          .catch(() => void (failed += events.length))
          .finally(() => void inFlight--),
      );
    }
    if (now >= nextMarkerAt) {
      markers.push(marker(ledger, client, `${runId}-marker-${markers.length}`));
      nextMarkerAt += 1_000;
    }
    if (now >= nextSampleAt) {
      nextSampleAt += 1_000;
      pending.push(
        positions(ledger, admin)
          .then((at) => void (maxReconcilerLag = Math.max(maxReconcilerLag, behind(at.ends, at.reconciler))))
          .catch(() => undefined),
      );
    }
    await sleep(20);
  }
  await Promise.all(pending);
  if (failed > 0) log(`${failed} observations were not acknowledged (requests failed after their retries)`);
  return { acknowledged, markers: await Promise.all(markers), maxReconcilerLag };
}

/**
 * Waits (at most 3 minutes) until the reconciler has committed, and the projector projected, every
 * observation written up to now; the seconds it took. (The dispatcher's canaries and the re-dispatches
 * keep a trickle of new observations coming: "nothing behind at this instant" may never be seen.)
 */
async function drain(ledger: Ledger, admin: Admin): Promise<number> {
  const startedAt = Date.now();
  const { ends } = await positions(ledger, admin);
  let nextReport = startedAt + 5_000;
  while (Date.now() - startedAt < 180_000) {
    const at = await positions(ledger, admin).catch(() => undefined);
    if (at !== undefined) {
      const [reconciler, projector] = [behind(ends, at.reconciler), behind(ends, at.projector)];
      if (reconciler === 0 && projector === 0) return (Date.now() - startedAt) / 1_000;
      if (Date.now() >= nextReport) {
        nextReport += 5_000;
        log(`  draining: reconciler ${reconciler}, projector ${projector} of the step's records to go`);
      }
    }
    await sleep(100);
  }
  throw new Error("the ledger did not read the step's observations within 3 minutes");
}

/** One step: the load at `rate`, then the drain; CPU from the step's start to the drain's end. */
async function step(
  ledger: Ledger,
  cluster: ClusterUnderTest,
  admin: Admin,
  rate: number,
  seconds: number,
  runId: string,
) {
  const before = cpuNow(ledger, cluster);
  const offered = await offer(ledger, admin, rate, seconds, runId);
  const drainSeconds = await drain(ledger, admin);
  const after = cpuNow(ledger, cluster);
  const result: Step = {
    offered: rate,
    seconds,
    acknowledged: offered.acknowledged,
    markerMs: offered.markers.flatMap((m) => (m.wholeMs === undefined ? [] : [m.wholeMs])),
    markersMissing: offered.markers.filter((m) => m.wholeMs === undefined).length,
    drainSeconds,
    cpu: Object.fromEntries(stages.map((s) => [s, after[s] - before[s]])) as Record<Stage, number>,
    maxReconcilerLag: offered.maxReconcilerLag,
  };
  return { result, markers: offered.markers };
}

const cores = (s: Step, stage: Stage) => coresUsed(s, stage).toFixed(2);
const whole = (n: number) => (Number.isFinite(n) ? Math.round(n).toLocaleString("en-US") : "-");
const spread = (ms: readonly number[]) => {
  const sorted = [...ms].sort((a, b) => a - b);
  return `${whole(percentile(sorted, 0.5))} / ${whole(percentile(sorted, 0.99))} / ${whole(sorted.at(-1) ?? Number.NaN)}`;
};

const cluster = await acquireCluster(log);
const ledger = new Ledger(cluster, { A2A_LEDGER_INGEST_RATE_LIMIT: "0" });
ledger.reconcilerLogLevel = "info";
const kafka = createKafka({ brokers: cluster.brokers, clientId: "pipeline-bench", logLevel: logLevel.NOTHING });
const admin = kafka.admin();
const steps: { result: Step; markers: Marker[] }[] = [];
/** When the reconciler produced its first decision of each correlation (the record's timestamp, the reconciler's clock). */
const decidedAt = new Map<string, number>();
try {
  await admin.connect();
  await ledger.start(Array.from({ length: reconcilerCount }, (_, i) => `r${i + 1}`));
  const partitions = (await endOffsets(admin, ledger.topics.observations)).length;
  log(
    `ledger on ${ledger.suffix}: ${cluster.nodes.length || "?"} brokers, ${partitions} partitions, ${reconcilerCount} reconciler(s)`,
  );
  await firstContact(ledger);
  log(`first contact done; warming up for ${warmupSeconds} s at ${rates[0]} obs/s`);
  await step(ledger, cluster, admin, rates[0] as number, warmupSeconds, `${ledger.suffix}-warmup`);
  for (const [i, rate] of rates.entries()) {
    log(`step ${i + 1}: ${rate} obs/s for ${stepSeconds} s`);
    const s = await step(ledger, cluster, admin, rate, stepSeconds, `${ledger.suffix}-s${i}`);
    steps.push(s);
    const v = judgeStep(s.result);
    log(
      `  ${whole(v.rate)}/s acknowledged; loss → whole in the projector p50 ${whole(v.p50Ms)} ms, p99 ${whole(v.p99Ms)} ms (${s.result.markerMs.length} markers, ${s.result.markersMissing} missing); drained in ${s.result.drainSeconds.toFixed(1)} s; cores ${stages.map((st) => `${st} ${cores(s.result, st)}`).join(", ")}; ${v.held ? "held" : `did not hold: ${v.why.join("; ")}`}`,
    );
    if (!v.held) break;
  }
  for (const m of await readToEnd(kafka, admin, ledger.topics.decisions))
    if (m.key !== null && !decidedAt.has(m.key)) decidedAt.set(m.key, m.timestamp);
} finally {
  await admin.disconnect().catch(() => undefined);
  await ledger.stop().catch((e: unknown) => log(`stopping the ledger: ${String(e)}`));
  await releaseCluster(cluster);
}

console.log(
  `\n| offered obs/s | acknowledged obs/s | loss → whole in the projector, p50 / p99 / max (ms) | of which loss → decision produced (reconciler) | then → whole in the projector | reconciler backlog, most records | drain (s) | cores: ${stages.join(" / ")} | held |`,
);
console.log("|---:|---:|---|---|---|---:|---:|---|---|");
for (const { result, markers } of steps) {
  const v = judgeStep(result);
  const decided = markers.flatMap((m) => {
    const at = decidedAt.get(m.correlationId);
    return at === undefined || m.wholeMs === undefined
      ? []
      : [{ reconciler: at - m.lostAt, projector: m.lostAt + m.wholeMs - at }];
  });
  console.log(
    `| ${whole(result.offered)} | ${whole(v.rate)} | ${spread(result.markerMs)} (${result.markerMs.length} markers${result.markersMissing > 0 ? `, ${result.markersMissing} missing` : ""}) | ${spread(decided.map((d) => d.reconciler))} | ${spread(decided.map((d) => d.projector))} | ${whole(result.maxReconcilerLag)} | ${result.drainSeconds.toFixed(1)} | ${stages.map((st) => cores(result, st)).join(" / ")} | ${v.held ? "yes" : `no: ${v.why.join("; ")}`} |`,
  );
}
const best = capacity(steps.map((s) => s.result));
if (best === undefined) {
  console.log("\nno rate held");
  process.exitCode = 1;
} else {
  const figures = {
    ingest: perCore(best, "ingest"),
    reconciler: perCore(best, "reconciler"),
    projector: perCore(best, "projector"),
  };
  console.log(
    `\ncapacity: ${whole(best.offered)} obs/s held (p99 ${whole(judgeStep(best).p99Ms)} ms); observations per CPU second at that rate: ingest ${whole(figures.ingest)}, reconciler ${whole(figures.reconciler)}, projector (SQLite) ${whole(figures.projector)}`,
  );
  console.log("\n| rate (obs/s) | ingest instances | reconciler instances | projector instances | partitions |");
  console.log("|---:|---:|---:|---:|---:|");
  for (const rate of [1_000, 10_000, 100_000]) {
    const p = plan(rate, figures);
    console.log(`| ${whole(rate)} | ${p.ingest} | ${p.reconcilers} | ${p.projectors} | ${p.partitions} |`);
  }
}
