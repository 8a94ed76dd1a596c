/**
 * Per-correlation state: everything the rules remember about one logical task. Plain JSON data, so the
 * reconciler can keep it in its compacted changelog topic (serialize / deserialize).
 */
import type { TaskState } from "@a2a-ledger/schemas";

/** One try of the logical task on one worker; links the server task ids it produced. */
export interface Attempt {
  attempt: number;
  workerId: string;
  skillId: string | null;
  /** null for an attempt inferred from a server task id no dispatch announced. */
  messageId: string | null;
  acceptedOutputModes: string[];
  dispatchedAt: number | null;
  dispatchEventId: string | null;
  serverTaskIds: string[];
}

/** The last observed state of the correlation over all observers (R10). */
export interface LastState {
  state: TaskState;
  rawState: string;
  observer: string;
  workerId: string;
  serverTaskId: string;
  occurredAt: number;
  eventId: string;
}

/** Media types one attempt emitted for one output (artifact name, else artifactId) (R3). */
export interface OutputRecord {
  output: string;
  attempt: number;
  mediaTypes: string[];
  eventId: string;
}

/** A probe task left in an interrupted state (R9). */
export interface ParkedCanaryRecord {
  workerId: string;
  serverTaskId: string;
  state: TaskState;
  cardHash: string;
  probeEventId: string;
}

/** The loss (TaskNotFound on a non-terminal task) that made the correlation indeterminate. */
export interface Loss {
  workerId: string;
  serverTaskId: string;
  attempt: number;
  lastState: TaskState;
  eventId: string;
}

export type CorrelationStatus =
  | "open" // dispatched / running, nothing lost
  | "terminal" // reached a terminal state without loss
  | "indeterminate" // lost, under verify, awaiting reconciliation
  | "redispatched" // a re-dispatch was commanded
  | "blocked" // no eligible worker: the operator alert
  | "failed" // lost on a trusted worker (R5, trust)
  | "reconciled"; // a later attempt reached a terminal state

export interface CorrelationState {
  version: 1;
  correlationId: string | null;
  status: CorrelationStatus;
  /** Every eventId already processed (idempotence on redelivery). */
  seenEventIds: string[];
  attempts: Attempt[];
  lastState: LastState | null;
  /** Server task ids observed in a terminal state: their TaskNotFound is a purge (R4). */
  terminalTaskIds: string[];
  outputs: OutputRecord[];
  parkedCanaries: ParkedCanaryRecord[];
  loss: Loss | null;
  lostTaskIds: string[];
  /** Keys of violations already reported, so redundant observers do not repeat them. */
  reported: string[];
}

export function initialCorrelationState(): CorrelationState {
  return {
    version: 1,
    correlationId: null,
    status: "open",
    seenEventIds: [],
    attempts: [],
    lastState: null,
    terminalTaskIds: [],
    outputs: [],
    parkedCanaries: [],
    loss: null,
    lostTaskIds: [],
    reported: [],
  };
}

/** JSON text, the changelog value of the frozen default/1 rule set (default/2 and later write Avro: correlation/codec.ts). */
export function serializeCorrelationState(state: CorrelationState): string {
  return JSON.stringify(state);
}

export class CorrelationStateFormatError extends Error {}

/** Reads a changelog value back; rejects text that is not a version-1 correlation state. */
export function deserializeCorrelationState(text: string): CorrelationState {
  const value: unknown = JSON.parse(text);
  const v = value as Partial<CorrelationState> | null;
  if (
    typeof v !== "object" ||
    v === null ||
    v.version !== 1 ||
    !Array.isArray(v.seenEventIds) ||
    !Array.isArray(v.attempts)
  ) {
    throw new CorrelationStateFormatError("not a version 1 correlation state");
  }
  return { ...initialCorrelationState(), ...v } as CorrelationState;
}

export function attemptOf(state: CorrelationState, serverTaskId: string): Attempt | undefined {
  return state.attempts.find((a) => a.serverTaskIds.includes(serverTaskId));
}

export function latestAttempt(state: CorrelationState): Attempt | undefined {
  return state.attempts[state.attempts.length - 1];
}

export function maxAttemptNumber(state: CorrelationState): number {
  return state.attempts.reduce((m, a) => Math.max(m, a.attempt), 0);
}
