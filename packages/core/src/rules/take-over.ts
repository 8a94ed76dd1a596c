/**
 * What R6 asks `route` when a task is lost: the task's skill and accepted output modes (its attempt's,
 * or for the loss of a dispatch's unanswered task under default/3 that dispatch's), the lost task's last
 * state, the worker that lost it and — under default/3 — the workers that lost an earlier task of the
 * correlation. R6 decides with exactly this query, so anyone holding the correlation's state (a test, a
 * view) gets from `route` the answer R6 acted on.
 */
import type { TaskState } from "@a2a-ledger/schemas";
import { openAttemptOn } from "../correlation/attempts.ts";
import { attemptNumbered, type CorrelationState, taskOf } from "../correlation/state.ts";
import type { RouteQuery } from "../route.ts";

export interface TakeOverOptions {
  /** default/3: a worker that already lost a task of this correlation is never a target again. */
  neverBackToLosers?: boolean;
  /** default/3: the loss of a dispatch's never-seen task is reconciled on that dispatch's terms. */
  reconcileUnanswered?: boolean;
}

/** The lost task: which worker lost which server task, last seen in which state. */
export interface LostTask {
  workerId: string;
  serverTaskId: string;
  lastState: TaskState;
}

/**
 * The workers other than `lostWorkerId` with a task of this correlation that stands lost, and the
 * attempts they lost (a task seen again after its TaskNotFound no longer stands lost).
 */
export function earlierLosers(state: CorrelationState, lostWorkerId: string): Map<string, number[]> {
  const losers = new Map<string, number[]>();
  for (const t of state.tasks) {
    if (!t.lost || t.workerId === lostWorkerId) continue;
    const attempts = losers.get(t.workerId);
    if (attempts === undefined) losers.set(t.workerId, [t.attempt]);
    else if (!attempts.includes(t.attempt)) attempts.push(t.attempt);
  }
  return losers;
}

/** The route query R6 decides a lost task's re-dispatch with, as of `at`. */
export function takeOverQuery(
  state: CorrelationState,
  lost: LostTask,
  at: number,
  options: TakeOverOptions = {},
): RouteQuery & { lostBy: string } {
  const task = taskOf(state, lost.workerId, lost.serverTaskId);
  const attempt =
    task !== undefined
      ? attemptNumbered(state, task.attempt)
      : options.reconcileUnanswered === true
        ? openAttemptOn(state, lost.workerId)
        : undefined;
  return {
    skillId: attempt?.skillId ?? null,
    state: lost.lastState,
    accept: attempt?.acceptedOutputModes ?? [],
    at,
    lostBy: lost.workerId,
    ...(options.neverBackToLosers === true ? { earlierLosers: earlierLosers(state, lost.workerId) } : {}),
  };
}
