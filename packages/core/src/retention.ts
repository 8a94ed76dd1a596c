/**
 * Retention: how a correlation leaves the state, as a function of the log alone. Each observation
 * partition has a stream time, the latest occurredAt folded on it (it never goes back). A correlation
 * whose last event is older than its horizon at that stream time has left: one with an outcome
 * (terminal, failed, reconciled) after `finishedMs`, silently; one without after `staleMs`, with a
 * CorrelationExpired decision that says so. The fold sweeps the leavers before each observation, in
 * correlation id order, so an observation for a correlation that has left opens it anew, as if it had
 * never been seen. The reconciler (per partition) and replay (per recorded partition, or by time) fold
 * the same observations in the same order, so they evict the same correlations with the same decisions.
 * The same stream time runs a blocked correlation's fallback (default/4): its `fallbackAt` is indexed
 * beside its expiry, and the fold restarts the task from scratch when the stream time passes it.
 */
import type { CorrelationExpired, Decision } from "@a2a-ledger/schemas";
import { finalizeDecisions } from "./decisions.ts";

const day = 86_400_000;

export interface RetentionPolicy {
  /** A correlation with an outcome leaves this long after its last event. */
  finishedMs: number;
  /** A correlation without an outcome leaves this long after its last event, with a CorrelationExpired decision. */
  staleMs: number;
}

/** The reconciler's defaults: 7 days after an outcome, 30 days without one. */
export const defaultRetention: RetentionPolicy = { finishedMs: 7 * day, staleMs: 30 * day };

/** What retention reads of a correlation's state (see `Decider.activity`). */
export interface Activity {
  correlationId: string;
  lastEventAt: number;
  /** The observation that set lastEventAt (null when only a decision did): an expiry's cause. */
  lastEventId: string | null;
  /** Whether the correlation has an outcome (terminal, failed or reconciled). */
  finished: boolean;
  status: string;
  /** The worker of the latest attempt. */
  workerId: string | null;
  /** A blocked correlation's pending fallback (default/4): when it restarts from scratch; null: none. */
  fallbackAt?: number | null;
}

export function expiresAt(activity: Activity, policy: RetentionPolicy): number {
  return activity.lastEventAt + (activity.finished ? policy.finishedMs : policy.staleMs);
}

/** What the stream time must pass for the fold to act on the correlation: its fallback, else its expiry. */
export function dueAt(activity: Activity, policy: RetentionPolicy): number {
  const expiry = expiresAt(activity, policy);
  const fallback = activity.fallbackAt ?? null;
  return fallback !== null && fallback < expiry ? fallback : expiry;
}

/** A duration as the rules' texts say it: whole days, else seconds, else milliseconds. */
export function spell(ms: number): string {
  if (ms % day === 0) return `${ms / day} day${ms === day ? "" : "s"}`;
  if (ms % 1000 === 0) return `${ms / 1000} s`;
  return `${ms} ms`;
}

/** The decision a correlation without an outcome leaves with; none for one with an outcome. */
export function expiryDecision(
  activity: Activity,
  policy: RetentionPolicy,
  rulesVersion: string,
): Decision | undefined {
  if (activity.finished) return undefined;
  const at = expiresAt(activity, policy);
  const draft: Omit<
    CorrelationExpired,
    "decisionId" | "correlationId" | "causeEventIds" | "rulesVersion" | "decidedAt" | "policyVersion"
  > & {
    type: "CorrelationExpired";
  } = {
    type: "CorrelationExpired",
    workerId: activity.workerId,
    lastStatus: activity.status,
    lastEventAt: activity.lastEventAt,
    idleMs: policy.staleMs,
    reason: `no event for ${spell(policy.staleMs)} while ${activity.status}: the reconciler stopped watching it`,
  };
  const cause = activity.lastEventId ?? `${activity.correlationId}@${activity.lastEventAt}`;
  // Named by its instant too: a correlation opened anew by its last event seen again can expire again.
  return finalizeDecisions(
    { eventId: cause, correlationId: activity.correlationId, occurredAt: at },
    [draft],
    rulesVersion,
    () => String(at),
  )[0];
}

/**
 * One partition's stream time and the expiry of every correlation it holds, indexed by time in buckets,
 * so finding the leavers costs what leaves, not what stays. Owned by whoever owns the partition's states
 * (the reconciler per assigned partition, replay per recorded partition); rebuilt with them on a restore.
 */
export class StreamRetention {
  /** The latest occurredAt folded on the partition (−∞ before the first). */
  time = Number.NEGATIVE_INFINITY;
  private readonly expiries = new Map<string, number>();
  private readonly buckets = new Map<number, Set<string>>();
  /** Bucket keys in ascending order. */
  private keys: number[] = [];
  private readonly width: number;
  /** No correlation expires before this stream time (a lower bound: a sweep before it finds nothing). */
  private nextDue = Number.POSITIVE_INFINITY;

  constructor(readonly policy: RetentionPolicy) {
    this.width = Math.max(1, Math.floor(Math.min(policy.finishedMs, policy.staleMs) / 16));
  }

  /** Correlations tracked. */
  get size(): number {
    return this.expiries.size;
  }

  /** Every tracked correlation. */
  ids(): IterableIterator<string> {
    return this.expiries.keys();
  }

  advance(time: number): void {
    if (time > this.time) this.time = time;
  }

  /** The correlation's expiry (undefined: it never expires, e.g. a state that saw no event). */
  track(correlationId: string, expiry: number | undefined): void {
    const known = this.expiries.get(correlationId);
    if (known === expiry) return;
    if (known !== undefined) this.forget(correlationId);
    if (expiry === undefined) return;
    this.expiries.set(correlationId, expiry);
    const key = Math.floor(expiry / this.width);
    let bucket = this.buckets.get(key);
    if (bucket === undefined) {
      bucket = new Set();
      this.buckets.set(key, bucket);
      let i = this.keys.length;
      while (i > 0 && (this.keys[i - 1] as number) > key) i--;
      this.keys.splice(i, 0, key);
    }
    bucket.add(correlationId);
    if (expiry < this.nextDue) this.nextDue = expiry;
  }

  forget(correlationId: string): void {
    const expiry = this.expiries.get(correlationId);
    if (expiry === undefined) return;
    this.expiries.delete(correlationId);
    const key = Math.floor(expiry / this.width);
    const bucket = this.buckets.get(key);
    bucket?.delete(correlationId);
    if (bucket !== undefined && bucket.size === 0) {
      this.buckets.delete(key);
      this.keys.splice(this.keys.indexOf(key), 1);
    }
  }

  /** Whether the stream time has passed the correlation's expiry. */
  isDue(correlationId: string): boolean {
    const expiry = this.expiries.get(correlationId);
    return expiry !== undefined && expiry < this.time;
  }

  /**
   * The correlations whose expiry the stream time has passed, in id order, at most `limit` of them (the
   * first in that order); they stay tracked until forgotten.
   */
  due(limit = Number.POSITIVE_INFINITY): string[] {
    if (this.time <= this.nextDue) return [];
    const out: string[] = [];
    let next = Number.POSITIVE_INFINITY;
    for (const key of this.keys) {
      if (key * this.width >= this.time) {
        next = Math.min(next, key * this.width);
        break;
      }
      for (const id of this.buckets.get(key) as Set<string>) {
        const expiry = this.expiries.get(id) as number;
        if (expiry < this.time) out.push(id);
        else if (expiry < next) next = expiry;
      }
    }
    out.sort();
    if (out.length > limit) {
      // What is left stays due: the next sweep looks again at once.
      next = Number.NEGATIVE_INFINITY;
      out.length = limit;
    }
    this.nextDue = next;
    return out;
  }
}
