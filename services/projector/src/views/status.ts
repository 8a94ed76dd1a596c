/**
 * A task's status comes from the reconciler's decisions, never from re-running the rules: the latest
 * status decision by (decidedAt, rank, decisionId) wins, so the outcome does not depend on the order
 * in which the observation and decision topics are read. Without one, a terminal state observed by
 * anyone is the status (completed, failed, canceled, rejected); otherwise the task is running. Which
 * decisions set a status, their rank and which states are terminal are the core's (@a2a-ledger/core
 * lineage.ts, task-state.ts): the reconciler's fold and this view read them from one place.
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

export function statusOf(task: Pick<TaskRow, "decisionType" | "terminalState">): TaskStatus {
  const decided = task.decisionType === null ? undefined : statusDecision(task.decisionType);
  if (decided !== undefined) return decided.status;
  if (task.terminalState !== null && isTerminalState(task.terminalState)) return terminalStatus(task.terminalState);
  return "running";
}

/** Since when an indeterminate or blocked task has waited for reconciliation; null for the others. */
export function waitingSince(task: Pick<TaskRow, "status" | "indeterminateAt" | "decisionAt">): number | null {
  if (task.status !== "indeterminate" && task.status !== "blocked") return null;
  return task.indeterminateAt ?? task.decisionAt;
}
