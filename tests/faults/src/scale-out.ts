/**
 * Scale-out beyond six (not in CI: `npm run scale-out -w @a2a-ledger/fault-tests`). The whole ledger on a
 * private topic set created at 24 partitions, the fault suite's load running throughout, while the
 * reconcilers go 1 → 4 → 8 instances (child processes added while the load flows, so every rebalance
 * happens under load); then the fault suite's verdict (`settle`, `judge`, `expectNothingLost`).
 *
 * Per phase it prints: each instance's partitions (all covered, none twice), how long the group took
 * to settle, the observations the reconcilers committed per second (the group's committed offsets on
 * the observations topic) against what ingest wrote, the lag at the end, the reconcilers' CPU seconds
 * and observations per reconciler CPU second, and the time from a loss (the TaskNotFound observation
 * sent) to its re-dispatch at `w-target` (p50, p99, max).
 *
 * No broker fault is injected, so it runs on the running stack whatever its node count (one node
 * here; a three-node stack replicates the topics at factor 3).
 *
 *   SCALE_OUT_PARTITIONS (24), SCALE_OUT_PHASES ("1,4,8"), SCALE_OUT_CORRELATIONS (10000),
 *   SCALE_OUT_LOST_SHARE (0.05), SCALE_OUT_BATCH (20), SCALE_OUT_PAUSE_MS (20)
 */
import { percentile, processCpuSeconds } from "@a2a-ledger/env/testing";
import { kafkaNodes, loadConfig, readStackState } from "@a2a-ledger/infra";
import {
  type Admin,
  AssignerProtocol,
  createKafka,
  endOffsets,
  ensureTopics,
  logLevel,
  topicSpecs,
} from "@a2a-ledger/kafka";
import { type ClusterUnderTest, eventually } from "./cluster.ts";
import { type LoadOptions, type LoadResult, runLoad } from "./load.ts";
import { positiveNumber } from "./env-number.ts";
import { Ledger } from "./mesh/ledger.ts";
import { expectNothingLost, firstContact } from "./scenario.ts";
import { judge, settle } from "./verdict.ts";

const partitions = positiveNumber("SCALE_OUT_PARTITIONS", 24);
const phases = (process.env.SCALE_OUT_PHASES ?? "1,4,8").split(",").map((s) => Number(s.trim()));
if (phases.some((n, i) => !Number.isInteger(n) || n < 1 || (i > 0 && n <= (phases[i - 1] as number)))) {
  throw new Error(
    `SCALE_OUT_PHASES=${JSON.stringify(process.env.SCALE_OUT_PHASES)}: expected growing instance counts, e.g. 1,4,8`,
  );
}
const load: LoadOptions = {
  correlations: positiveNumber("SCALE_OUT_CORRELATIONS", 10_000),
  lostShare: positiveNumber("SCALE_OUT_LOST_SHARE", 0.05),
  batch: positiveNumber("SCALE_OUT_BATCH", 20),
  pauseMs: positiveNumber("SCALE_OUT_PAUSE_MS", 20),
  maxRetries: 80,
};

const log = (line: string) => console.log(`[scale-out] ${new Date().toISOString().slice(11, 19)} ${line}`);

/** The running stack (KAFKA_BROKERS and SCHEMA_REGISTRY_URL when given, else stack.json), whatever its node count. */
function runningCluster(): ClusterUnderTest {
  const config = loadConfig();
  const state = readStackState(config);
  const brokers = process.env.KAFKA_BROKERS?.trim() || state?.brokers;
  const registryUrl = process.env.SCHEMA_REGISTRY_URL?.trim() || state?.registryUrl;
  if (brokers === undefined || registryUrl === undefined)
    throw new Error("no running stack: start one (npm run infra:up) or set KAFKA_BROKERS and SCHEMA_REGISTRY_URL");
  const nodes = state === undefined ? [] : kafkaNodes({ ...config, kafkaNodes: state.kafkaNodes ?? 1 });
  return { brokers, registryUrl, config, nodes, private: false };
}

/** Each member's partitions of `topic`, by instance id (the reconciler's clientId is `a2a-ledger-reconciler-<id>`). */
async function assignment(
  admin: Admin,
  groupId: string,
  topic: string,
): Promise<{ state: string; byInstance: Map<string, number[]> }> {
  const [group] = (await admin.describeGroups([groupId])).groups;
  const byInstance = new Map<string, number[]>();
  for (const m of group?.members ?? []) {
    const decoded = AssignerProtocol.MemberAssignment.decode(m.memberAssignment);
    byInstance.set(
      m.clientId.replace(/^a2a-ledger-reconciler-/, ""),
      [...(decoded?.assignment[topic] ?? [])].sort((a, b) => a - b),
    );
  }
  return { state: group?.state ?? "Unknown", byInstance };
}

/** Why an assignment is not one owner per partition among exactly `ids`; undefined when it is. */
function assignmentProblem(
  byInstance: ReadonlyMap<string, number[]>,
  ids: readonly string[],
  count: number,
): string | undefined {
  const members = [...byInstance.keys()].sort();
  if (JSON.stringify(members) !== JSON.stringify([...ids].sort()))
    return `members ${members.join(",")} are not ${ids.join(",")}`;
  const owners = new Map<number, string[]>();
  for (const [id, ps] of byInstance) for (const p of ps) owners.set(p, [...(owners.get(p) ?? []), id]);
  const twice = [...owners].filter(([, o]) => o.length > 1).map(([p, o]) => `${p}:${o.join("+")}`);
  const uncovered = Array.from({ length: count }, (_, p) => p).filter((p) => !owners.has(p));
  if (twice.length > 0 || uncovered.length > 0)
    return `partitions owned twice [${twice.join(" ")}], not owned [${uncovered.join(" ")}]`;
  return undefined;
}

const sum = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0);

async function offsets(admin: Admin, ledger: Ledger): Promise<{ written: number; committed: number }> {
  const ends = await endOffsets(admin, ledger.topics.observations);
  const [committed] = await admin.fetchOffsets({
    groupId: ledger.reconcilerGroup,
    topics: [ledger.topics.observations],
  });
  return {
    written: sum(ends.map((e) => Number(e.high))),
    committed: sum((committed?.partitions ?? []).map((p) => Math.max(0, Number(p.offset)))),
  };
}

interface Phase {
  instances: number;
  ids: string[];
  launchedAt: number;
  /** From the launch of the phase's new instances to one owner per partition among them all. */
  settleMs?: number;
  start?: { at: number; written: number; committed: number; cpu: number };
  end?: { at: number; written: number; committed: number; cpu: number };
  byInstance?: Map<string, number[]>;
}

interface Sample {
  at: number;
  committed: number;
}

/**
 * The highest rate of commits over any `spanMs` in [from, to]: after a rebalance the observations that
 * waited are decided as fast as the instances can, so this is near what they can do.
 */
function peakRate(samples: readonly Sample[], from: number, to: number, spanMs = 3_000): number {
  const inside = samples.filter((x) => x.at >= from && x.at <= to);
  let best = 0;
  for (let i = 0, j = 0; i < inside.length; i++) {
    while (j < inside.length && (inside[j] as Sample).at - (inside[i] as Sample).at < spanMs) j++;
    if (j === inside.length) break;
    const a = inside[i] as Sample;
    const b = inside[j] as Sample;
    best = Math.max(best, ((b.committed - a.committed) * 1000) / (b.at - a.at));
  }
  return best;
}

/** Loss (the TaskNotFound observation, stamped as sent) → first re-dispatch received at w-target, in ms, by the phase the loss was sent in. */
function redispatchLatencies(ledger: Ledger, result: LoadResult, phaseList: readonly Phase[]): number[][] {
  const lostAt = new Map<string, number>();
  for (const o of result.acknowledged.values())
    if (o.type === "TaskNotFoundObserved")
      lostAt.set(o.correlationId, typeof o.occurredAt === "number" ? o.occurredAt : new Date(o.occurredAt).getTime());
  const firstAt = new Map<string, number>();
  for (const m of ledger.workers?.target.received ?? []) {
    if (m.correlationId === undefined || m.decisionId?.includes("RedispatchCommanded") !== true) continue;
    if (!firstAt.has(m.correlationId)) firstAt.set(m.correlationId, m.at);
  }
  const out = phaseList.map(() => [] as number[]);
  for (const [correlationId, at] of lostAt) {
    const received = firstAt.get(correlationId);
    if (received === undefined) continue;
    let k = 0;
    while (k + 1 < phaseList.length && at >= (phaseList[k + 1] as Phase).launchedAt) k++;
    out[k]?.push(received - at);
  }
  return out.map((l) => l.sort((a, b) => a - b));
}

async function main(): Promise<void> {
  const cluster = runningCluster();
  log(
    `stack ${cluster.brokers} (${cluster.nodes.length || "?"} node(s)), registry ${cluster.registryUrl}; ${partitions} partitions, reconcilers ${phases.join(" → ")}, load ${JSON.stringify(load)}`,
  );
  const ledger = new Ledger(cluster, { A2A_LEDGER_PARTITIONS: String(partitions) });
  // At info, as an operator runs them: the CPU measured is the reconcilers' work, not their debug lines.
  ledger.reconcilerLogLevel = "info";
  const admin = createKafka({
    brokers: cluster.brokers,
    clientId: "scale-out",
    logLevel: logLevel.NOTHING,
    retries: 10,
  }).admin();
  await admin.connect();
  // The topics at the chosen count before the ledger starts: its own ensureTopics then keeps them.
  const created = await ensureTopics(admin, topicSpecs(ledger.topics, partitions));
  if (created.correlationPartitions !== partitions)
    throw new Error(`the topics have ${created.correlationPartitions} partitions, not ${partitions}`);

  const phaseList: Phase[] = [];
  const reconcilerPids = () => [...ledger.reconcilers.values()].map((s) => s.child.pid);
  // Instances are only added, so the sum over the running ones is the CPU the reconcilers spent so far.
  const snapshot = async () => ({
    at: Date.now(),
    ...(await offsets(admin, ledger)),
    cpu: sum(reconcilerPids().map((pid) => processCpuSeconds(pid) ?? 0)),
  });

  /** Waits for one owner per partition among the phase's instances, then opens its measuring window. */
  async function stabilise(phase: Phase): Promise<void> {
    const found = await eventually(
      `${phase.instances} reconciler(s) sharing ${partitions} partitions, each once`,
      async () => {
        const a = await assignment(admin, ledger.reconcilerGroup, ledger.topics.observations);
        return a.state === "Stable" && assignmentProblem(a.byInstance, phase.ids, partitions) === undefined
          ? a.byInstance
          : undefined;
      },
      180_000,
      250,
    );
    phase.settleMs = Date.now() - phase.launchedAt;
    phase.byInstance = found;
    phase.start = await snapshot();
    log(
      `phase ${phase.instances}: group stable ${(phase.settleMs / 1000).toFixed(1)} s after the launch; ${[...found].map(([id, ps]) => `${id}=[${ps.join(",")}]`).join(" ")}`,
    );
  }

  async function grow(to: number, start: (ids: string[]) => Promise<unknown>): Promise<void> {
    const previous = phaseList.at(-1);
    if (previous !== undefined) {
      previous.end = await snapshot();
      // The assignment the phase ended with, checked again (a rebalance inside the phase would show here).
      const a = await assignment(admin, ledger.reconcilerGroup, ledger.topics.observations);
      const problem = assignmentProblem(a.byInstance, previous.ids, partitions);
      if (problem !== undefined) throw new Error(`phase ${previous.instances} ended with ${problem}`);
    }
    const have = ledger.reconcilers.size;
    const ids = Array.from({ length: to }, (_, i) => `r${i + 1}`);
    const phase: Phase = { instances: to, ids, launchedAt: Date.now() };
    phaseList.push(phase);
    log(`phase ${to}: starting ${ids.slice(have).join(", ")}`);
    await start(ids.slice(have));
    await stabilise(phase);
  }

  // The group's committed offsets every 500 ms, for the peak rates.
  const samples: Sample[] = [];
  let sampling = false;
  const sampler = setInterval(() => {
    if (sampling) return;
    sampling = true;
    offsets(admin, ledger)
      .then(
        (o) => samples.push({ at: Date.now(), committed: o.committed }),
        () => undefined,
      )
      .finally(() => (sampling = false));
  }, 500);

  let failed = false;
  try {
    // The first phase's reconcilers start with the ledger: first contact needs their capability decisions.
    await grow(phases[0] as number, (ids) => ledger.start(ids));
    log(`ledger on ${ledger.suffix}: ingest ${ledger.ingestUrl}, projector ${ledger.projectorUrl}`);
    await firstContact(ledger);
    log("first contact done: both workers verified");
    // The first window opens with the load.
    const first = phaseList[0] as Phase;
    first.launchedAt = Date.now();
    first.start = await snapshot();

    // The next phase begins at an equal share of the load each; a phase waits for the previous one's growth.
    let growing: Promise<void> = Promise.resolve();
    let next = 1;
    const result = await runLoad(ledger.ingestUrl, ledger.suffix, load, (share) => {
      if (next < phases.length && share >= next / phases.length) {
        const to = phases[next++] as number;
        growing = growing.then(() => grow(to, (ids) => Promise.all(ids.map((id) => ledger.startReconciler(id)))));
        growing.catch(() => undefined);
      }
    });
    await growing;
    const last = phaseList.at(-1) as Phase;
    last.end = await snapshot();
    log(
      `load sent: ${result.acknowledged.size} observations acknowledged, ${result.lost.length} tasks lost, ${result.retries} retried requests, ${((result.finishedAt - result.startedAt) / 1000).toFixed(1)} s`,
    );

    await settle(cluster, ledger, result);
    clearInterval(sampler);
    const drained = await snapshot();
    const final = await assignment(admin, ledger.reconcilerGroup, ledger.topics.observations);
    const finalProblem = assignmentProblem(final.byInstance, last.ids, partitions);

    const latencies = redispatchLatencies(ledger, result, phaseList);
    console.log(
      "\n| reconcilers | partitions per instance | group stable after launch | window | observations written/s | observations committed/s | peak committed/s (3 s) | lag at end | reconciler CPU s (per instance) | observations per reconciler CPU s | loss → re-dispatch p50 / p99 / max (n) |",
    );
    console.log("|---|---|---|---|---|---|---|---|---|---|---|");
    phaseList.forEach((p, k) => {
      const s = p.start as NonNullable<Phase["start"]>;
      const e = p.end as NonNullable<Phase["end"]>;
      const secs = (e.at - s.at) / 1000;
      const committed = e.committed - s.committed;
      const cpu = e.cpu - s.cpu;
      const per = [...(p.byInstance ?? new Map<string, number[]>()).values()].map((ps) => ps.length);
      const l = latencies[k] ?? [];
      console.log(
        `| ${p.instances} | ${Math.min(...per)}–${Math.max(...per)} | ${((p.settleMs ?? 0) / 1000).toFixed(1)} s | ${secs.toFixed(1)} s | ${((e.written - s.written) / secs).toFixed(0)} | ${(committed / secs).toFixed(0)} | ${peakRate(samples, p.launchedAt, e.at).toFixed(0)} | ${e.written - e.committed} | ${cpu.toFixed(1)} (${(cpu / p.instances).toFixed(1)}) | ${cpu > 0 ? (committed / cpu).toFixed(0) : "-"} | ${percentile(l, 0.5)} / ${percentile(l, 0.99)} / ${l.at(-1) ?? "-"} ms (${l.length}) |`,
      );
    });
    console.log(
      `\nafter the load: ${drained.committed} of ${drained.written} observations committed; final assignment ${finalProblem ?? "one owner per partition"}; reconciler CPU over the whole run, their start included: ${drained.cpu.toFixed(1)} s for ${drained.committed} observations\n`,
    );
    if (finalProblem !== undefined) throw new Error(`after the load: ${finalProblem}`);

    const findings = await judge(cluster, ledger, result);
    log(
      `verdict: ${JSON.stringify({ ...findings, replayDiffers: findings.replayDiffers.length, resighted: findings.resighted.length })}`,
    );
    // Stopped before the guarantees are asserted: they drop the processes' logs and the topics when they hold.
    await ledger.stop(true);
    await expectNothingLost({ ledger, load: result, findings });
    log("every guarantee of the fault oracle holds");
  } catch (error) {
    failed = true;
    log(`scale-out failed: ${error instanceof Error ? error.message : String(error)}`);
    log(`every process's output is in ${ledger.logDir}; its topics (suffix ${ledger.suffix}) are kept`);
  } finally {
    clearInterval(sampler);
    await ledger.stop(true).catch((e: unknown) => log(`stopping the ledger: ${String(e)}`));
    await admin.disconnect();
  }
  process.exit(failed ? 1 : 0);
}

await main();
