/**
 * TaskReconciled ends a lost correlation (indeterminate, re-dispatched, blocked or failed) when
 * - a later attempt reaches a terminal state, or
 * - the lost server task itself is seen again in a terminal state (the TaskNotFound was transient).
 * The reason says which.
 */
import { attemptNumberFor } from "../correlation/attempts.ts";
import { taskOf } from "../correlation/state.ts";
import { isTerminal } from "../task-state.ts";
import { decided, noOutput, type RuleInput, type RuleOutput } from "./rule.ts";

export function reconciled(input: RuleInput): RuleOutput {
  const obs = input.observation;
  const loss = input.state.loss;
  if (
    obs.type !== "TaskStateObserved" ||
    loss === null ||
    !isTerminal(obs.state) ||
    input.state.status === "reconciled"
  )
    return noOutput;
  if (obs.serverTaskId === loss.serverTaskId && obs.workerId === loss.workerId) {
    return decided([
      {
        type: "TaskReconciled",
        workerId: obs.workerId,
        serverTaskId: obs.serverTaskId,
        state: obs.state,
        attempt: loss.attempt,
        reason: `the lost task reappeared: ${obs.observer} saw ${obs.workerId}/${obs.serverTaskId} in ${obs.state} after TaskNotFound`,
        causeEventIds: [loss.eventId],
      },
    ]);
  }
  if (taskOf(input.state, obs.workerId, obs.serverTaskId)?.terminal === true) return noOutput;
  const attempt = attemptNumberFor(input.state, obs.workerId, obs.serverTaskId);
  if (attempt <= loss.attempt) return noOutput;
  return decided([
    {
      type: "TaskReconciled",
      workerId: obs.workerId,
      serverTaskId: obs.serverTaskId,
      state: obs.state,
      attempt,
      reason: `attempt ${attempt} on ${obs.workerId} ended in ${obs.state} after attempt ${loss.attempt} was lost`,
      causeEventIds: [loss.eventId],
    },
  ]);
}
