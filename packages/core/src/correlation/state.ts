/**
 * Per-correlation state of the default/2 model: everything the rules remember about one logical task.
 * Server tasks are identified by (workerId, serverTaskId) everywhere: ids are unique only per worker.
 * The fold owns a state and updates it in place (`evolve`); `cloneState` gives the copy a batch works on.
 */
import type { TaskState } from "@a2a-ledger/schemas";

/** The last state seen of one server task, merged over every observer (R10, per task). */
export interface LastSeen {
  state: TaskState;
  rawState: string;
  observer: string;
  occurredAt: number;
  eventId: string;
}

/** One server task: which attempt it belongs to, its last state, whether it ended or was lost, its artifacts. */
export interface TaskRecord {
  workerId: string;
  serverTaskId: string;
  attempt: number;
  contextId: string | null;
  last: LastSeen | null;
  /** Some observer saw it in a terminal state: absorbing, and its TaskNotFound is a purge (R4). */
  terminal: boolean;
  /** A loss decision stands for it (cleared when the task is seen again). */
  lost: boolean;
  artifacts: ArtifactRecord[];
}

/** One try of the logical task on one worker. */
export interface AttemptRecord {
  attempt: number;
  workerId: string;
  skillId: string | null;
  /** null for an attempt inferred from a server task id, or planned by a RedispatchCommanded not yet observed. */
  messageId: string | null;
  acceptedOutputModes: string[];
  dispatchedAt: number | null;
  dispatchEventId: string | null;
  /** How many server tasks this attempt produced (on `workerId`); 0: a dispatch still waiting for its task. */
  taskCount: number;
  /** Distinct artifacts seen so far: the next unnamed artifact's position. */
  artifactCount: number;
}

/** One artifact (all its streamed chunks) of a task: the unit R3 compares across attempts. */
export interface ArtifactRecord {
  artifactId: string;
  attempt: number;
  name: string | null;
  /** 1-based position among the attempt's artifacts, in order of first emission. */
  ordinal: number;
  mediaTypes: readonly string[];
  /** The last chunk arrived (or it arrived whole, or its task ended). */
  complete: boolean;
  eventId: string;
}

/** A probe task deliberately left in an interrupted state (R9). */
export interface CanaryRecord {
  workerId: string;
  serverTaskId: string;
  state: TaskState;
  cardHash: string;
  probeEventId: string;
  parkedAt: number;
  lost: boolean;
}

/** The loss the correlation is being reconciled from (the latest attempt's lost task). */
export interface OpenLoss {
  workerId: string;
  serverTaskId: string;
  attempt: number;
  lastState: TaskState;
  eventId: string;
  outcome: "indeterminate" | "failed";
}

export type CorrelationStatus =
  | "open" // dispatched / running, nothing lost
  | "terminal" // the latest attempt reached a terminal state without loss
  | "indeterminate" // lost, under verify, awaiting reconciliation
  | "redispatched" // a re-dispatch was commanded
  | "blocked" // no eligible worker: the operator alert
  | "failed" // lost on a trusted worker (R5, trust)
  | "reconciled"; // a later attempt, or the lost task itself, reached a terminal state

export interface CorrelationState {
  model: 2;
  correlationId: string | null;
  status: CorrelationStatus;
  /** The most recent eventIds (the exact de-duplication window), a ring once full: the oldest is at `recentHead`. */
  recent: string[];
  recentHead: number;
  /** An index of `recent` once it is long enough to need one (see isDuplicate). */
  recentSet: Set<string> | null;
  attempts: AttemptRecord[];
  /** Every server task of the correlation, in order of first sight. */
  tasks: TaskRecord[];
  canaries: CanaryRecord[];
  loss: OpenLoss | null;
  /** When the correlation became blocked (R6 found no worker): re-examined as capabilities change. */
  blockedAt: number | null;
  /**
   * default/4: when the block's fallback restarts the task from scratch (the ReconciliationBlocked's
   * `fallbackAt`, from the trust policy's fallback for the task's skill); null: none pending.
   */
  fallbackAt: number | null;
  /** Keys of decisions already taken that must not repeat (violations; see `reportKey`). */
  reported: Set<string>;
  /**
   * The latest occurredAt of the events folded into the state (observations, and the decisionAt of
   * decisions taken on it); null before the first. Retention (retention.ts) measures idleness from it.
   */
  lastEventAt: number | null;
  /** The eventId of the observation that set lastEventAt last: the cause an expiry names. */
  lastEventId: string | null;
}

/** How many recent eventIds each correlation remembers exactly. */
export const dedupeWindow = 512;

/**
 * What one correlation keeps at most, so its state stays small however long it lives (a changelog
 * record of tens of kilobytes with ordinary ids). The fold evicts deterministically (the same in the
 * reconciler and in replay), oldest first and never what a pending decision needs: the latest
 * attempt, the lost task being reconciled. See `trim`.
 */
export const limits = {
  tasks: 128,
  artifacts: 256,
  attempts: 64,
  reported: 256,
  canaries: 32,
} as const;

export function taskOf(s: CorrelationState, workerId: string, serverTaskId: string): TaskRecord | undefined {
  for (const t of s.tasks) if (t.serverTaskId === serverTaskId && t.workerId === workerId) return t;
  return undefined;
}

export function canaryOf(s: CorrelationState, workerId: string, serverTaskId: string): CanaryRecord | undefined {
  for (const c of s.canaries) if (c.serverTaskId === serverTaskId && c.workerId === workerId) return c;
  return undefined;
}

export function artifactOf(t: TaskRecord, artifactId: string): ArtifactRecord | undefined {
  for (const a of t.artifacts) if (a.artifactId === artifactId) return a;
  return undefined;
}

export function initialState(): CorrelationState {
  return {
    model: 2,
    correlationId: null,
    status: "open",
    recent: [],
    recentHead: 0,
    recentSet: null,
    attempts: [],
    tasks: [],
    canaries: [],
    loss: null,
    blockedAt: null,
    fallbackAt: null,
    reported: new Set(),
    lastEventAt: null,
    lastEventId: null,
  };
}

/** A copy sharing nothing mutable with `s`. */
export function cloneState(s: CorrelationState): CorrelationState {
  const tasks = s.tasks.map((t) => ({
    ...t,
    last: t.last === null ? null : { ...t.last },
    artifacts: t.artifacts.map((a) => ({ ...a })),
  }));
  return {
    model: 2,
    correlationId: s.correlationId,
    status: s.status,
    recent: s.recent.slice(),
    recentHead: s.recentHead,
    recentSet: s.recentSet === null ? null : new Set(s.recentSet),
    attempts: s.attempts.map((a) => ({ ...a, taskCount: a.taskCount })),
    tasks,
    canaries: s.canaries.map((c) => ({ ...c })),
    loss: s.loss === null ? null : { ...s.loss },
    blockedAt: s.blockedAt,
    fallbackAt: s.fallbackAt,
    reported: new Set(s.reported),
    lastEventAt: s.lastEventAt,
    lastEventId: s.lastEventId,
  };
}

export function latestAttempt(s: CorrelationState): AttemptRecord | undefined {
  return s.attempts[s.attempts.length - 1];
}

export function maxAttempt(s: CorrelationState): number {
  let m = 0;
  for (const a of s.attempts) if (a.attempt > m) m = a.attempt;
  return m;
}

export function attemptNumbered(s: CorrelationState, n: number): AttemptRecord | undefined {
  for (let i = s.attempts.length - 1; i >= 0; i--)
    if ((s.attempts[i] as AttemptRecord).attempt === n) return s.attempts[i];
  return undefined;
}

/** The remembered eventIds, oldest first. */
export function recentInOrder(s: CorrelationState): string[] {
  return s.recentHead === 0 ? s.recent.slice() : [...s.recent.slice(s.recentHead), ...s.recent.slice(0, s.recentHead)];
}
