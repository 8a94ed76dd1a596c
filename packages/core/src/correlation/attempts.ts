/**
 * Which attempt a server task belongs to. A task already seen keeps its attempt; a new task id joins
 * the latest attempt on its worker that has no task yet (the dispatch, or a planned re-dispatch, it
 * answers); otherwise it opens an inferred attempt (a retry nobody reported) that inherits the previous
 * attempt's skill and accepted output modes. Rules ask before the fold links it; the fold links the same way.
 */
import type { AttemptRecord, CorrelationState } from "./state.ts";
import { maxAttempt, taskKey } from "./state.ts";

export interface AttemptRef {
  attempt: number;
  skillId: string | null;
  acceptedOutputModes: readonly string[];
  /** The existing record, or undefined when the task would open a new inferred attempt. */
  record: AttemptRecord | undefined;
}

function openAttemptOn(s: CorrelationState, workerId: string): AttemptRecord | undefined {
  for (let i = s.attempts.length - 1; i >= 0; i--) {
    const a = s.attempts[i] as AttemptRecord;
    if (a.workerId === workerId && a.taskIds.length === 0) return a;
  }
  return undefined;
}

export function attemptFor(s: CorrelationState, workerId: string, serverTaskId: string): AttemptRef {
  const task = s.tasks.get(taskKey(workerId, serverTaskId));
  if (task !== undefined) {
    for (let i = s.attempts.length - 1; i >= 0; i--) {
      const a = s.attempts[i] as AttemptRecord;
      if (a.attempt === task.attempt) return { attempt: a.attempt, skillId: a.skillId, acceptedOutputModes: a.acceptedOutputModes, record: a };
    }
  }
  const open = openAttemptOn(s, workerId);
  if (open !== undefined) return { attempt: open.attempt, skillId: open.skillId, acceptedOutputModes: open.acceptedOutputModes, record: open };
  const previous = s.attempts[s.attempts.length - 1];
  return { attempt: maxAttempt(s) + 1, skillId: previous?.skillId ?? null, acceptedOutputModes: previous?.acceptedOutputModes ?? [], record: undefined };
}

/** Whether a later attempt than `attempt` exists (the task's attempt was superseded). */
export function supersededBy(s: CorrelationState, attempt: number): AttemptRecord | undefined {
  const latest = s.attempts[s.attempts.length - 1];
  return latest !== undefined && latest.attempt > attempt ? latest : undefined;
}
