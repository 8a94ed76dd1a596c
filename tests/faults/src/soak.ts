/**
 * The soak: the ledger on three brokers (the fault suite's cluster and `Ledger`) under a steady load
 * through ingest for a set time, retention shortened to seconds, a fault injected every few minutes in
 * rotation, state sampled as it goes; then the fault oracle's verdict (`settle`, `judge`).
 *
 * Faults, in rotation: `kill -9` of a reconciler (restarted at once; its restore time is read from its
 * log), a broker killed and restarted, a broker stalled (SIGSTOP for 15 s), a rolling restart of every
 * broker, and `kill -9` of ingest, the projector, the dispatcher and a proxy, each started again at once
 * on its port (a new process: its id is checked, and it must say it is ready again).
 *
 * Each sample: the reconcilers' resident memory, the live correlations (the changelog's keys whose
 * latest value is a state, read to its end), the changelog's records read, the records ever written to it
 * (its end offsets) and its bytes on the brokers' disks, the reconcilers' lag, and the observations
 * acknowledged so far.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import {
  type Admin,
  createKafka,
  endOffsets,
  logLevel,
  TopicReader,
  topicNames,
  topicSpecs,
  tuneTopic,
} from "@a2a-ledger/kafka";
import {
  bounceNode,
  type ClusterUnderTest,
  eventually,
  killNode,
  quietAdmin,
  restartNode,
  resumeNode,
  stallNode,
} from "./cluster.ts";
import { type LoadOptions, type LoadResult, runLoad } from "./load.ts";
import { Ledger, type LedgerService } from "./mesh/ledger.ts";
import { firstContact } from "./scenario.ts";
import { type Findings, judge, settle } from "./verdict.ts";

export type SoakFault =
  | "reconciler-kill"
  | "broker-kill"
  | "broker-stall"
  | "rolling-restart"
  | "ingest-kill"
  | "projector-kill"
  | "dispatcher-kill"
  | "proxy-kill";
export const soakFaults: readonly SoakFault[] = [
  "reconciler-kill",
  "broker-kill",
  "ingest-kill",
  "broker-stall",
  "projector-kill",
  "rolling-restart",
  "dispatcher-kill",
  "proxy-kill",
];

export interface SoakOptions {
  minutes: number;
  /** A2A_LEDGER_RECONCILER_RETENTION and _STALE_AFTER of the reconcilers (durations: `10s`). */
  retention: string;
  staleAfter: string;
  /** The load: correlations per round (rounds follow each other for the whole run), per request, pause. */
  load: Pick<LoadOptions, "correlations" | "batch" | "pauseMs" | "lostShare">;
  faultEverySeconds: number;
  faults: readonly SoakFault[];
  reconcilers: readonly string[];
  sampleEverySeconds: number;
}

export interface SoakSample {
  atS: number;
  /** Resident memory per reconciler, MiB. */
  rssMiB: Record<string, number>;
  liveCorrelations: number;
  changelogRecords: number;
  /** Records ever written to the changelog (its partitions' end offsets, transaction markers included). */
  changelogWritten: number;
  changelogBytes: number;
  lag: number;
  acknowledged: number;
}

export interface SoakEvent {
  atS: number;
  fault: SoakFault;
  detail: string;
}

export interface SoakResult {
  samples: SoakSample[];
  events: SoakEvent[];
  /** Samples that could not be taken, with why (a read of the changelog that stopped, a timeout). */
  sampleFailures: string[];
  /** Faults that could not be injected or whose effect was not seen (a service not started again), with why. */
  faultFailures: string[];
  load: LoadResult;
  findings: Findings;
  ledger: Ledger;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function rssMiB(pid: number | undefined): number {
  if (pid === undefined) return 0;
  try {
    const line = readFileSync(`/proc/${pid}/status`, "utf8")
      .split("\n")
      .find((l) => l.startsWith("VmRSS:"));
    return line === undefined ? 0 : Math.round(Number(line.replace(/\D+/g, "")) / 1024);
  } catch {
    return 0;
  }
}

/** Bytes of the topic's partition directories under the brokers' data directory. */
function bytesOnDisk(root: string, topic: string): number {
  let total = 0;
  const walk = (dir: string, depth: number) => {
    let entries: string[];
    try {
      entries = readdirSync(dir);
    } catch {
      return;
    }
    for (const name of entries) {
      const path = join(dir, name);
      let isDir = false;
      try {
        isDir = statSync(path).isDirectory();
      } catch {
        continue;
      }
      if (!isDir) continue;
      if (name.startsWith(`${topic}-`) && /-\d+$/.test(name)) {
        for (const f of readdirSync(path)) {
          try {
            // Blocks in use: a segment's index files are preallocated sparse files (10 MiB apparent each).
            total += statSync(join(path, f)).blocks * 512;
          } catch {
            // a segment deleted by the cleaner meanwhile
          }
        }
      } else if (depth < 4) walk(path, depth + 1);
    }
  };
  walk(root, 0);
  return total;
}

/** The changelog read to its end: records, and keys whose latest value is a state (not a tombstone, not the stream time). */
async function readChangelog(brokers: string, admin: Admin, topic: string): Promise<{ records: number; live: number }> {
  const kafka = createKafka({ brokers, clientId: "soak-changelog", logLevel: logLevel.NOTHING });
  const latest = new Map<string, boolean>();
  let records = 0;
  const reader = new TopicReader(
    kafka,
    admin,
    topic,
    (_partition, m) => {
      records++;
      const key = m.key?.toString("utf8") ?? "";
      if (!key.startsWith("\u0000")) latest.set(key, m.value !== null);
    },
    "soak-changelog",
  );
  await reader.start();
  try {
    await reader.caughtUp({ stallMs: 60_000 });
  } finally {
    await reader.stop();
  }
  return { records, live: [...latest.values()].filter(Boolean).length };
}

/** The changelog compacted within seconds, as the horizons are: 10 s segments, the cleaner at once, tombstones kept 10 s. */
async function compactSoon(admin: Admin, topic: string): Promise<void> {
  const spec = topicSpecs(topicNames).find((t) => t.name === topicNames.changelog);
  if (spec === undefined) throw new Error("no changelog spec");
  await tuneTopic(
    admin,
    { ...spec, name: topic },
    {
      "segment.ms": "10000",
      "delete.retention.ms": "10000",
      "min.cleanable.dirty.ratio": "0.01",
      "min.compaction.lag.ms": "0",
    },
  );
}

async function lagOf(admin: Admin, ledger: Ledger): Promise<number> {
  const ends = await endOffsets(admin, ledger.topics.observations);
  const committed = await admin.fetchOffsets({ groupId: ledger.reconcilerGroup, topics: [ledger.topics.observations] });
  const offsets = new Map((committed[0]?.partitions ?? []).map((p) => [p.partition, Number(p.offset)]));
  return ends.reduce((n, e) => n + Math.max(0, Number(e.high) - Math.max(0, offsets.get(e.partition) ?? 0)), 0);
}

/** The longest per-partition restore its log reports since `from` (characters of its output), in ms. */
function restoreMs(output: string): number | undefined {
  let longest: number | undefined;
  for (const line of output.split("\n")) {
    if (!line.includes("partition restored from the changelog")) continue;
    try {
      const ms = Number((JSON.parse(line) as { ms?: unknown }).ms);
      if (Number.isFinite(ms)) longest = Math.max(longest ?? 0, ms);
    } catch {
      // not a JSON line
    }
  }
  return longest;
}

function merge(into: LoadResult | undefined, round: LoadResult): LoadResult {
  if (into === undefined) return round;
  for (const [k, v] of round.acknowledged) into.acknowledged.set(k, v);
  for (const [k, v] of round.requestsPerEvent) into.requestsPerEvent.set(k, v);
  into.lost.push(...round.lost);
  into.retries += round.retries;
  into.finishedAt = round.finishedAt;
  return into;
}

export async function runSoak(
  cluster: ClusterUnderTest,
  options: SoakOptions,
  log: (line: string) => void,
): Promise<SoakResult> {
  const ledger = new Ledger(cluster, {
    A2A_LEDGER_RECONCILER_RETENTION: options.retention,
    A2A_LEDGER_RECONCILER_STALE_AFTER: options.staleAfter,
  });
  ledger.reconcilerLogLevel = "info";
  await ledger.start(options.reconcilers);
  await firstContact(ledger);
  const admin = quietAdmin(cluster.brokers);
  await admin.connect();
  await compactSoon(admin, ledger.topics.changelog);
  const started = Date.now();
  const atS = () => Math.round((Date.now() - started) / 1000);
  const endAt = started + options.minutes * 60_000;
  const samples: SoakSample[] = [];
  const events: SoakEvent[] = [];
  const sampleFailures: string[] = [];
  const faultFailures: string[] = [];
  let load: LoadResult | undefined;
  let acknowledged = 0;

  const sample = async () => {
    const changelog = await readChangelog(cluster.brokers, admin, ledger.topics.changelog);
    const ends = await endOffsets(admin, ledger.topics.changelog);
    const s: SoakSample = {
      atS: atS(),
      rssMiB: Object.fromEntries([...ledger.reconcilers].map(([id, r]) => [id, rssMiB(r.child.pid)])),
      liveCorrelations: changelog.live,
      changelogRecords: changelog.records,
      changelogWritten: ends.reduce((n, p) => n + Number(p.high), 0),
      changelogBytes: bytesOnDisk(cluster.config.dataDir, ledger.topics.changelog),
      lag: await lagOf(admin, ledger),
      acknowledged,
    };
    samples.push(s);
    log(
      `t=${s.atS}s rss=${JSON.stringify(s.rssMiB)}MiB live=${s.liveCorrelations} changelog=${s.changelogRecords} records (${s.changelogWritten} written)/${(s.changelogBytes / 1024).toFixed(0)} KiB lag=${s.lag} acknowledged=${s.acknowledged}`,
    );
  };

  const injected = new Map<SoakFault, number>();
  const inject = async (fault: SoakFault) => {
    // Each kind of fault takes its victims in turn (a count of its own: the rotation's length would
    // otherwise always land on the same reconciler, node or proxy).
    const turn = injected.get(fault) ?? 0;
    injected.set(fault, turn + 1);
    const node = cluster.nodes[turn % cluster.nodes.length];
    let detail = "";
    switch (fault) {
      case "reconciler-kill": {
        const id = options.reconcilers[turn % options.reconcilers.length] as string;
        await ledger.killReconciler(id);
        const restarted = await ledger.startReconciler(id);
        const ms = await eventually(
          `${id} restored its partitions`,
          async () => restoreMs(restarted.output()),
          180_000,
          500,
        );
        detail = `kill -9 ${id}, restarted; longest partition restore ${ms} ms`;
        break;
      }
      case "broker-kill":
        if (node === undefined) return;
        killNode(node);
        await sleep(10_000);
        await restartNode(cluster, node);
        detail = `node ${node.id} killed, restarted after 10 s`;
        break;
      case "broker-stall":
        if (node === undefined) return;
        stallNode(node);
        await sleep(15_000);
        resumeNode(node);
        detail = `node ${node.id} stalled 15 s`;
        break;
      case "rolling-restart":
        for (const n of cluster.nodes) await bounceNode(cluster, n);
        detail = `nodes ${cluster.nodes.map((n) => n.id).join(", ")} bounced in turn`;
        break;
      case "ingest-kill":
      case "projector-kill":
      case "dispatcher-kill":
      case "proxy-kill": {
        const service: LedgerService =
          fault === "proxy-kill"
            ? turn % 2 === 0
              ? "proxy-lost"
              : "proxy-target"
            : (fault.slice(0, -"-kill".length) as LedgerService);
        const { killed, started, ms } = await ledger.killAndRestart(service);
        if (started === killed || started < 0) throw new Error(`${service} was not started again as a new process`);
        detail = `kill -9 ${service} (pid ${killed}), ready again as pid ${started} after ${ms} ms`;
        break;
      }
    }
    events.push({ atS: atS(), fault, detail });
    log(`fault at t=${atS()}s: ${detail}`);
  };

  // A sample that cannot be taken within 90 s (a read of the changelog held up by a fault) is said and
  // skipped, so one stuck read never holds up the samples after it.
  const trySample = () =>
    Promise.race([
      sample(),
      sleep(90_000).then(() => {
        throw new Error("not taken within 90 s");
      }),
    ]).catch((e: unknown) => {
      sampleFailures.push(`at t=${atS()}s: ${String(e)}`);
      log(`sample failed: ${String(e)}`);
    });
  // One sample at a time: a tick that finds the last one still running is skipped, never queued.
  let sampling: Promise<void> = Promise.resolve();
  let sampleRunning = false;
  const sampler = setInterval(() => {
    if (sampleRunning) return;
    sampleRunning = true;
    sampling = trySample().finally(() => {
      sampleRunning = false;
    });
  }, options.sampleEverySeconds * 1_000);
  let faulting: Promise<void> = Promise.resolve();
  let nextFault = 0;
  const faulter =
    options.faults.length === 0
      ? undefined
      : setInterval(() => {
          const fault = options.faults[nextFault++ % options.faults.length] as SoakFault;
          faulting = faulting
            .then(() => inject(fault))
            .catch((e: unknown) => {
              faultFailures.push(`${fault} at t=${atS()}s: ${String(e)}`);
              log(`fault ${fault} failed: ${String(e)}`);
            });
        }, options.faultEverySeconds * 1_000);
  try {
    for (let round = 0; Date.now() < endAt; round++) {
      const result = await runLoad(ledger.ingestUrl, `soak${round}`, { ...options.load, maxRetries: 80 });
      load = merge(load, result);
      acknowledged = load.acknowledged.size;
    }
  } finally {
    clearInterval(sampler);
    if (faulter !== undefined) clearInterval(faulter);
  }
  await faulting;
  await sampling;
  await trySample();
  const total = load as LoadResult;
  await settle(cluster, ledger, total);
  await trySample();
  await admin.disconnect();
  const findings = await judge(cluster, ledger, total);
  return { samples, events, sampleFailures, faultFailures, load: total, findings, ledger };
}

/**
 * Whether state stayed flat: after the warm-up (the first `warmupS` seconds: the horizons filling), the
 * last third of the samples against the middle third, each at most `factor` times the other's level:
 * - every reconciler's resident memory by its peak;
 * - the live correlations by their medians. They follow the load's rate from one sample to the next (one
 *   sequential client, slowed or sped by the machine and by the faults), so a burst of a sample or two
 *   is not growth; a rise that holds for a third of the run is. That nothing accumulates with history is
 *   the soak's other check: far fewer correlations live at the end than were sent.
 * - the changelog's records per live correlation, by their medians. Between two passes of the log
 *   cleaner the topic also holds every state superseded since the last one, and those are written at the
 *   load's rate: the records alone rose with a load that sped up (a CI run: 990 → 1,590 records while
 *   live correlations went 167 → 202), and a cleaner running a sample or two late showed a peak that is
 *   its schedule (a rehearsal: 1,131 → 2,426 → 417 records in three samples). Per live correlation, the
 *   load's rate divides out; growth the live correlations do not explain stays high for the whole last third.
 * And one bound that does not depend on the run's length: in the last third the changelog holds at most
 * `keptAtMost` of the records ever written to it. A changelog that is not compacted keeps them all, and
 * between the thirds it rises only as the run goes on: in a three-minute rehearsal the records written
 * went 9,048 → 13,333 by the thirds' medians (1.47×), which the 1.5× bound alone lets pass.
 */
export function flatness(
  samples: readonly SoakSample[],
  warmupS: number,
  factor = 1.5,
  keptAtMost = 1 / 3,
): { flat: boolean; detail: Record<string, { middle: number; last: number }> } {
  const steady = samples.filter((s) => s.atS >= warmupS);
  const third = Math.floor(steady.length / 3);
  const middle = steady.slice(third, 2 * third);
  const last = steady.slice(2 * third);
  const peak = (values: readonly number[]) => Math.max(0, ...values);
  const median = (values: readonly number[]) => {
    const sorted = [...values].sort((a, b) => a - b);
    const mid = Math.floor(sorted.length / 2);
    return sorted.length === 0
      ? 0
      : sorted.length % 2 === 1
        ? (sorted[mid] as number)
        : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
  };
  const round = (n: number) => Math.round(n * 100) / 100;
  const measures: Record<string, { of: (s: SoakSample) => number; level: (values: readonly number[]) => number }> = {
    liveCorrelations: { of: (s) => s.liveCorrelations, level: median },
    changelogPerLive: { of: (s) => s.changelogRecords / Math.max(1, s.liveCorrelations), level: median },
    reconcilerRssMiB: { of: (s) => Math.max(0, ...Object.values(s.rssMiB)), level: peak },
  };
  const detail: Record<string, { middle: number; last: number }> = {};
  let flat = middle.length > 0 && last.length > 0;
  for (const [name, { of, level }] of Object.entries(measures)) {
    const m = level(middle.map(of));
    const l = level(last.map(of));
    detail[name] = { middle: round(m), last: round(l) };
    if (l > factor * Math.max(m, 1)) flat = false;
  }
  const kept = (s: SoakSample) => s.changelogRecords / Math.max(1, s.changelogWritten);
  const keptLast = median(last.map(kept));
  detail.changelogKept = { middle: round(median(middle.map(kept))), last: round(keptLast) };
  if (keptLast > keptAtMost) flat = false;
  return { flat, detail };
}
