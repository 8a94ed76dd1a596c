/**
 * The pipeline benchmark's judgement (pipeline-main.ts), apart from the cluster it measures: whether a
 * rate held, the highest rate that did, what a core of each stage carried there, and the instances and
 * partitions a rate needs by those figures.
 */
import { percentile } from "@a2a-ledger/env/testing";

/** The stages whose CPU is measured, each a set of processes. */
export const stages = ["ingest", "reconciler", "projector", "dispatcher", "proxies", "brokers", "load"] as const;
export type Stage = (typeof stages)[number];

export interface Step {
  /** The rate the load offered, observations/s, and how long it offered it. */
  offered: number;
  seconds: number;
  /** Observations ingest acknowledged (202) during the step. */
  acknowledged: number;
  /**
   * Each marker's loss (its TaskNotFound acknowledged by ingest) → the projector's lineage of it whole: its
   * observations and the reconciler's decision readable there, ms.
   */
  markerMs: number[];
  /** Markers the projector had not shown whole by their deadline. */
  markersMissing: number;
  /** Seconds from the step's end until the reconciler and the projector had read everything. */
  drainSeconds: number;
  /** CPU seconds each stage used from the step's start until it drained: the work of the step's observations. */
  cpu: Record<Stage, number>;
  /** The largest backlog of the reconciler group sampled during the step, in records. */
  maxReconcilerLag: number;
}

export interface Limits {
  /** The end-to-end p99 a held rate stays under (the 5 s). */
  p99Ms: number;
  /** The share of the offered rate ingest must have acknowledged. */
  acknowledgedShare: number;
}

export const defaultLimits: Limits = { p99Ms: 5_000, acknowledgedShare: 0.95 };

export interface Verdict {
  held: boolean;
  /** Acknowledged observations/s. */
  rate: number;
  p50Ms: number;
  p99Ms: number;
  /** Why the rate did not hold; empty when it did. */
  why: string[];
}

export function judgeStep(step: Step, limits: Limits = defaultLimits): Verdict {
  const sorted = [...step.markerMs].sort((a, b) => a - b);
  const rate = step.acknowledged / step.seconds;
  const why: string[] = [];
  if (sorted.length === 0) why.push("no marker was decided");
  if (step.markersMissing > 0) why.push(`${step.markersMissing} markers never decided`);
  const p99Ms = step.markersMissing > 0 ? Number.POSITIVE_INFINITY : percentile(sorted, 0.99);
  if (p99Ms >= limits.p99Ms)
    why.push(`p99 ${Number.isFinite(p99Ms) ? Math.round(p99Ms) : "∞"} ms ≥ ${limits.p99Ms} ms`);
  if (rate < step.offered * limits.acknowledgedShare)
    why.push(
      `acknowledged ${Math.round(rate)}/s < ${Math.round(limits.acknowledgedShare * 100)} % of ${step.offered}/s`,
    );
  return { held: why.length === 0, rate, p50Ms: percentile(sorted, 0.5), p99Ms, why };
}

/** The highest offered rate that held, among the steps up to the first that did not; undefined when none held. */
export function capacity(steps: readonly Step[], limits: Limits = defaultLimits): Step | undefined {
  let best: Step | undefined;
  for (const step of steps) {
    if (!judgeStep(step, limits).held) break;
    best = step;
  }
  return best;
}

/** Observations one CPU second of `stage` carried in `step` (its observations over the CPU it spent on them, drain included). */
export function perCore(step: Step, stage: Stage): number {
  return step.cpu[stage] > 0 ? step.acknowledged / step.cpu[stage] : Number.NaN;
}

/** The cores `stage` kept busy on average from the step's start until it drained. */
export function coresUsed(step: Step, stage: Stage): number {
  return step.cpu[stage] / (step.seconds + step.drainSeconds);
}

export interface Plan {
  rate: number;
  /** Instances of each scaled stage, each with a core of its own kept at `headroom` of it. */
  ingest: number;
  reconcilers: number;
  /** Projector instances; more than one shares the topics' partitions over PostgreSQL (a SQLite file is one process's). */
  projectors: number;
  /** Partitions of the correlation-keyed topics: room for twice the reconcilers, and never fewer than 6. */
  partitions: number;
}

/**
 * Instances and partitions for `rate` observations/s, by the per-core figures measured: each instance
 * gets a core of its own and is planned at `headroom` of it (the rest absorbs bursts, rebalances and
 * restores). Partitions are the next of 6, 12, 24, 48, 96, 192, … at or above twice the reconcilers, so
 * the group can double without a new topic set (a count cannot change in place).
 */
export function plan(
  rate: number,
  perCoreFigures: { ingest: number; reconciler: number; projector: number },
  headroom = 0.6,
): Plan {
  const instances = (perCoreFigure: number) => Math.max(1, Math.ceil(rate / (perCoreFigure * headroom)));
  const reconcilers = instances(perCoreFigures.reconciler);
  let partitions = 6;
  while (partitions < 2 * reconcilers) partitions *= 2;
  return {
    rate,
    ingest: instances(perCoreFigures.ingest),
    reconcilers,
    projectors: instances(perCoreFigures.projector),
    partitions,
  };
}
