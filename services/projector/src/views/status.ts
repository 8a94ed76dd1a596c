/**
 * A task's status comes from the reconciler's decisions, never from re-running the rules: the latest
 * status decision by (decidedAt, rank, decisionId) wins, so the outcome does not depend on the order
 * in which the observation and decision topics are read. Without one, a terminal state observed by
 * anyone is the status (completed, failed, canceled, rejected); otherwise the task is running.
 */
import type { TaskRow, TaskStatus } from "./rows.ts";

/** Status decisions and their rank among decisions with the same decidedAt (a loss comes before what is decided about it). */
export const statusDecisions: Readonly<Record<string, { status: TaskStatus; rank: number }>> = {
  TaskIndeterminate: { status: "indeterminate", rank: 1 },
  ReconciliationBlocked: { status: "blocked", rank: 2 },
  RedispatchCommanded: { status: "re-dispatched", rank: 2 },
  TaskFailed: { status: "failed", rank: 3 },
  TaskReconciled: { status: "reconciled", rank: 3 },
};

const terminal: Readonly<Record<string, TaskStatus>> = {
  TASK_STATE_COMPLETED: "completed",
  TASK_STATE_FAILED: "failed",
  TASK_STATE_CANCELED: "canceled",
  TASK_STATE_REJECTED: "rejected",
};

export const isTerminalState = (state: string): boolean => Object.hasOwn(terminal, state);

/** Whether (at, rank, id) comes after the task's current status decision. */
export function supersedes(task: Pick<TaskRow, "decisionAt" | "decisionRank" | "decisionId">, at: number, rank: number, id: string): boolean {
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
  const decided = task.decisionType === null ? undefined : statusDecisions[task.decisionType];
  if (decided !== undefined) return decided.status;
  if (task.terminalState !== null) return terminal[task.terminalState] ?? "running";
  return "running";
}

/** Since when an indeterminate or blocked task has waited for reconciliation; null for the others. */
export function waitingSince(task: Pick<TaskRow, "status" | "indeterminateAt" | "decisionAt">): number | null {
  if (task.status !== "indeterminate" && task.status !== "blocked") return null;
  return task.indeterminateAt ?? task.decisionAt;
}
