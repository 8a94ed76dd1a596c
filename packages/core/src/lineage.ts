/**
 * The lineage rules, once, for every reader: which attempt a dispatch or a new server task belongs
 * to, when a sighting replaces a server task's last state, and which decisions set a correlation's
 * status. The fold (correlation/evolve.ts) applies them to its state; the projector applies them to
 * its view rows; `lineageOf` reads the fold's state in the same terms, so the two can be compared and a
 * change of the rules here changes both.
 *
 * Attempts: a dispatch already seen (same worker and messageId) is that attempt; otherwise it fills
 * the latest attempt on its worker that has no messageId (a planned re-dispatch, or an attempt inferred
 * from a server task), else it opens attempt max(reported, latest + 1). A server task already seen
 * keeps its attempt; a new one joins the latest attempt on its worker that has no task yet, else it
 * opens an inferred attempt (latest + 1). A RedispatchCommanded plans its attempt on the target worker
 * unless that attempt number exists.
 */
import type { Decision, TaskState } from "@a2a-ledger/schemas";
import type { CorrelationState } from "./correlation/state.ts";
import type { LedgerState } from "./state-model.ts";
import { isTerminal } from "./task-state.ts";

/** What the rules need to know of an attempt to link to it. */
export interface AttemptSlot {
  attempt: number;
  workerId: string;
  messageId: string | null;
  /** Server tasks linked to the attempt so far. */
  taskCount: number;
}

/** The number a new attempt after `attempts` gets. */
export function nextAttemptNumber(attempts: readonly Pick<AttemptSlot, "attempt">[]): number {
  let max = 0;
  for (const a of attempts) if (a.attempt > max) max = a.attempt;
  return max + 1;
}

/**
 * The latest attempt on the worker without a task yet: the one a new server task of that worker answers.
 * `attempts` in the order they were opened (which is also the order of their numbers).
 */
export function openAttemptOf<A extends AttemptSlot>(attempts: readonly A[], workerId: string): A | undefined {
  for (let i = attempts.length - 1; i >= 0; i--) {
    const a = attempts[i] as A;
    if (a.workerId === workerId && a.taskCount === 0) return a;
  }
  return undefined;
}

export type DispatchTarget<A> =
  /** The same dispatch seen before (a redelivery, another observer). */
  | { kind: "known"; attempt: A }
  /** A planned or inferred attempt on the worker that this dispatch starts. */
  | { kind: "fills"; attempt: A }
  /** A new attempt with this number. */
  | { kind: "new"; attempt: number };

/** Which attempt a TaskDispatched (workerId, messageId, reported attempt number) is. */
export function dispatchTarget<A extends AttemptSlot>(
  attempts: readonly A[],
  dispatch: { workerId: string; messageId: string; attempt: number },
): DispatchTarget<A> {
  for (const a of attempts)
    if (a.messageId === dispatch.messageId && a.workerId === dispatch.workerId) return { kind: "known", attempt: a };
  for (let i = attempts.length - 1; i >= 0; i--) {
    const a = attempts[i] as A;
    if (a.workerId === dispatch.workerId && a.messageId === null) return { kind: "fills", attempt: a };
  }
  return { kind: "new", attempt: Math.max(dispatch.attempt, nextAttemptNumber(attempts)) };
}

/** The attempt a RedispatchCommanded plans, or undefined when that attempt number exists already. */
export function plannedAttempt(
  attempts: readonly Pick<AttemptSlot, "attempt">[],
  d: Decision,
): { attempt: number; workerId: string; skillId: string | null; acceptedOutputModes: string[] } | undefined {
  if (d.type !== "RedispatchCommanded") return undefined;
  if (attempts.some((a) => a.attempt === d.attempt)) return undefined;
  return {
    attempt: d.attempt,
    workerId: d.targetWorkerId,
    skillId: d.skillId,
    acceptedOutputModes: [...d.acceptedOutputModes],
  };
}

/**
 * Whether a sighting replaces a server task's last state (R10, per task, merged over every observer):
 * UNSPECIFIED never does; terminal is absorbing — the first terminal report stands, whatever the
 * observers' clocks say; before that, a sighting replaces one not later than itself (log order breaks ties).
 */
export function replacesLastState(
  current: { state: string; occurredAt: number } | null,
  sighting: { state: TaskState; occurredAt: number },
  terminal = current !== null && isTerminal(current.state as TaskState),
): boolean {
  if (sighting.state === "TASK_STATE_UNSPECIFIED") return false;
  if (terminal) return false;
  if (isTerminal(sighting.state)) return true;
  return current === null || sighting.occurredAt >= current.occurredAt;
}

/** The decisions that set a correlation's status, with the status and their rank among decisions taken at the same time (a loss before what is decided about it). */
export const statusDecisions = {
  TaskIndeterminate: { status: "indeterminate", rank: 1 },
  ReconciliationBlocked: { status: "blocked", rank: 2 },
  RedispatchCommanded: { status: "redispatched", rank: 2 },
  TaskFailed: { status: "failed", rank: 3 },
  TaskReconciled: { status: "reconciled", rank: 3 },
  // Retention: no outcome within the stale horizon; decided after the correlation's last event, so it stands.
  CorrelationExpired: { status: "expired", rank: 3 },
} as const satisfies Partial<Record<Decision["type"], { status: string; rank: number }>>;

export type StatusDecisionType = keyof typeof statusDecisions;
export type DecidedStatus = (typeof statusDecisions)[StatusDecisionType]["status"];

export const isStatusDecision = (type: string): type is StatusDecisionType => Object.hasOwn(statusDecisions, type);

/** One correlation's lineage as the fold holds it: attempts in order, server tasks with their attempt and last state. */
export interface LineageView {
  attempts: { attempt: number; workerId: string; messageId: string | null; skillId: string | null }[];
  tasks: { workerId: string; serverTaskId: string; attempt: number; lastState: TaskState | null }[];
}

/** The lineage of a correlation/2 state (the fold's); undefined for a state of another model. */
export function lineageOf(state: LedgerState): LineageView | undefined {
  if (!("model" in state) || state.model !== 2) return undefined;
  const s = state as CorrelationState;
  return {
    attempts: s.attempts.map((a) => ({
      attempt: a.attempt,
      workerId: a.workerId,
      messageId: a.messageId,
      skillId: a.skillId,
    })),
    tasks: s.tasks.map((t) => ({
      workerId: t.workerId,
      serverTaskId: t.serverTaskId,
      attempt: t.attempt,
      lastState: t.last?.state ?? null,
    })),
  };
}
