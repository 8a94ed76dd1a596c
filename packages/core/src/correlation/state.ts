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

/** One server task: which attempt it belongs to, its last state, whether it ended or was lost. */
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
  /** The server task ids of this attempt (on `workerId`). */
  taskIds: string[];
  /** Distinct artifacts seen so far: the next unnamed artifact's position. */
  artifactCount: number;
}

/** One artifact (all its streamed chunks): the unit R3 compares across attempts. */
export interface ArtifactRecord {
  workerId: string;
  serverTaskId: string;
  artifactId: string;
  attempt: number;
  name: string | null;
  /** 1-based position among the attempt's artifacts, in order of first emission. */
  ordinal: number;
  mediaTypes: string[];
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
  /** The most recent eventIds, oldest first (the exact de-duplication window). */
  recent: string[];
  recentSet: Set<string>;
  attempts: AttemptRecord[];
  /** By taskKey(workerId, serverTaskId). */
  tasks: Map<string, TaskRecord>;
  /** By artifactKey(workerId, serverTaskId, artifactId). */
  artifacts: Map<string, ArtifactRecord>;
  /** By taskKey(workerId, serverTaskId). */
  canaries: Map<string, CanaryRecord>;
  loss: OpenLoss | null;
  /** Keys of decisions already taken that must not repeat (violations; see `reportKey`). */
  reported: Set<string>;
}

/** How many recent eventIds each correlation remembers exactly. */
export const dedupeWindow = 1024;

export const taskKey = (workerId: string, serverTaskId: string): string => `${workerId}\u0000${serverTaskId}`;
export const artifactKey = (workerId: string, serverTaskId: string, artifactId: string): string => `${workerId}\u0000${serverTaskId}\u0000${artifactId}`;

export function initialState(): CorrelationState {
  return {
    model: 2,
    correlationId: null,
    status: "open",
    recent: [],
    recentSet: new Set(),
    attempts: [],
    tasks: new Map(),
    artifacts: new Map(),
    canaries: new Map(),
    loss: null,
    reported: new Set(),
  };
}

/** A copy sharing nothing mutable with `s`. */
export function cloneState(s: CorrelationState): CorrelationState {
  const tasks = new Map<string, TaskRecord>();
  for (const [k, t] of s.tasks) tasks.set(k, { ...t });
  const artifacts = new Map<string, ArtifactRecord>();
  for (const [k, a] of s.artifacts) artifacts.set(k, { ...a });
  const canaries = new Map<string, CanaryRecord>();
  for (const [k, c] of s.canaries) canaries.set(k, { ...c });
  return {
    model: 2,
    correlationId: s.correlationId,
    status: s.status,
    recent: s.recent.slice(),
    recentSet: new Set(s.recentSet),
    attempts: s.attempts.map((a) => ({ ...a, taskIds: a.taskIds.slice() })),
    tasks,
    artifacts,
    canaries,
    loss: s.loss === null ? null : { ...s.loss },
    reported: new Set(s.reported),
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
  for (let i = s.attempts.length - 1; i >= 0; i--) if ((s.attempts[i] as AttemptRecord).attempt === n) return s.attempts[i];
  return undefined;
}
