/**
 * Which attempt a server task belongs to. A task already seen keeps its attempt; a new task id joins
 * the latest attempt on its worker that has no task yet (the dispatch, or a planned re-dispatch, it
 * answers); otherwise it opens an inferred attempt (a retry nobody reported) that inherits the latest
 * attempt's skill and accepted output modes. Rules ask before the fold links it; the fold links the same way.
 */
import { openAttemptOf } from "../lineage.ts";
import { type AttemptRecord, attemptNumbered, type CorrelationState, maxAttempt, taskOf } from "./state.ts";

/** The latest attempt on the worker without a task yet (lineage.ts). */
export function openAttemptOn(s: CorrelationState, workerId: string): AttemptRecord | undefined {
  return openAttemptOf(s.attempts, workerId);
}

/** The attempt record the task belongs (or would be linked) to; undefined when it would open an inferred attempt. */
export function attemptFor(s: CorrelationState, workerId: string, serverTaskId: string): AttemptRecord | undefined {
  const task = taskOf(s, workerId, serverTaskId);
  return task !== undefined ? attemptNumbered(s, task.attempt) : openAttemptOn(s, workerId);
}

/** The dispatch terms (skill, accepted output modes) that hold for the task: its attempt's, or for an inferred attempt the latest attempt's. */
export function termsFor(s: CorrelationState, workerId: string, serverTaskId: string): AttemptRecord | undefined {
  return attemptFor(s, workerId, serverTaskId) ?? s.attempts[s.attempts.length - 1];
}

/** The number of the attempt the task belongs (or would be linked) to. */
export function attemptNumberFor(s: CorrelationState, workerId: string, serverTaskId: string): number {
  return attemptFor(s, workerId, serverTaskId)?.attempt ?? maxAttempt(s) + 1;
}

/** A later attempt than `attempt`, if the task's attempt was superseded. */
export function supersededBy(s: CorrelationState, attempt: number): AttemptRecord | undefined {
  const latest = s.attempts[s.attempts.length - 1];
  return latest !== undefined && latest.attempt > attempt ? latest : undefined;
}
