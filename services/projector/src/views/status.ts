/**
 * A task's status comes from the reconciler's decisions, never from re-running the rules: the latest
 * status decision by (decidedAt, rank, decisionId) wins, so the outcome does not depend on the order
 * in which the observation and decision topics are read. Without one, a terminal state observed by
 * anyone is the status (completed, failed, canceled, rejected); otherwise the task is running. Which
 * decisions set a status, their rank and which states are terminal are the core's (@a2a-ledger/core
 * lineage.ts, task-state.ts): the reconciler's fold and this view read them from one place.
 *
 * An expiry (CorrelationExpired) is the reconciler letting go of a correlation without an outcome: it
 * stands while nothing happens after it. An event after it (the fold opens such a correlation anew, as
 * if never seen) ends it: the status is then read as for a task without a status decision, until the
 * reconciler decides again.
 */
import {
  type DecidedStatus,
  isStatusDecision,
  isTerminal,
  normalizeTaskState,
  statusDecisions,
} from "@a2a-ledger/core";
import type { TaskState } from "@a2a-ledger/schemas";
import type { TaskRow, TaskStatus } from "./rows.ts";

/** The view's name of each status the core's decisions set (the API spells a re-dispatch with a hyphen). */
const viewStatus: Readonly<Record<DecidedStatus, TaskStatus>> = {
  indeterminate: "indeterminate",
  blocked: "blocked",
  redispatched: "re-dispatched",
  failed: "failed",
  reconciled: "reconciled",
  expired: "expired",
};

/** The status a decision type sets and its rank, from the core's table; undefined for decisions that set none. */
export function statusDecision(type: string): { status: TaskStatus; rank: number } | undefined {
  if (!isStatusDecision(type)) return undefined;
  const { status, rank } = statusDecisions[type];
  return { status: viewStatus[status], rank };
}

/** Whether a state is terminal, as the core's rules say. */
export const isTerminalState = (state: string): boolean =>
  normalizeTaskState(state) === state && isTerminal(state as TaskState);

/** TASK_STATE_COMPLETED → completed, …: the view's status for a terminal state. */
const terminalStatus = (state: string): TaskStatus => state.slice("TASK_STATE_".length).toLowerCase() as TaskStatus;

/** Whether (at, rank, id) comes after the task's current status decision. */
export function supersedes(
  task: Pick<TaskRow, "decisionAt" | "decisionRank" | "decisionId">,
  at: number,
  rank: number,
  id: string,
): boolean {
  if (task.decisionAt === null) return true;
  if (at !== task.decisionAt) return at > task.decisionAt;
  if (rank !== (task.decisionRank ?? 0)) return rank > (task.decisionRank ?? 0);
  return id > (task.decisionId ?? "");
}

/** Whether an event at (at, eventId) comes after one at (currentAt, currentEvent). */
export function later(at: number, eventId: string, currentAt: number | null, currentEvent: string | null): boolean {
  if (currentAt === null) return true;
  return at !== currentAt ? at > currentAt : eventId > (currentEvent ?? "");
}

/** Whether the task's status decision is an expiry that an event after it (the correlation seen again) ended. */
const revived = (task: Pick<TaskRow, "decisionType" | "decisionAt" | "lastAt">): boolean =>
  task.decisionType === "CorrelationExpired" && task.decisionAt !== null && task.lastAt > task.decisionAt;

export function statusOf(task: Pick<TaskRow, "decisionType" | "decisionAt" | "lastAt" | "terminalState">): TaskStatus {
  const decided = task.decisionType === null || revived(task) ? undefined : statusDecision(task.decisionType);
  if (decided !== undefined) return decided.status;
  if (task.terminalState !== null && isTerminalState(task.terminalState)) return terminalStatus(task.terminalState);
  return "running";
}

/**
 * Since when a task on the queue has waited: an indeterminate or blocked one since its loss (else its
 * status decision); an expired one since it waited before its expiry (kept in `waitingSince` when the
 * expiry was applied, see `expiryWaitingSince`), else since the expiry. Null for the others.
 */
export function waitingSince(
  task: Pick<TaskRow, "status" | "indeterminateAt" | "decisionAt" | "waitingSince">,
): number | null {
  if (task.status === "expired") return task.waitingSince ?? task.decisionAt;
  if (task.status !== "indeterminate" && task.status !== "blocked") return null;
  return task.indeterminateAt ?? task.decisionAt;
}

/**
 * The waiting time an expiry decided at `decidedAt` keeps, from the task as it stood before the
 * expiry applied: since when it waited on the queue then (indeterminate or blocked), else `decidedAt`.
 */
export function expiryWaitingSince(
  before: Pick<
    TaskRow,
    "decisionType" | "decisionAt" | "lastAt" | "terminalState" | "indeterminateAt" | "waitingSince"
  >,
  decidedAt: number,
): number {
  return waitingSince({ ...before, status: statusOf(before) }) ?? decidedAt;
}
