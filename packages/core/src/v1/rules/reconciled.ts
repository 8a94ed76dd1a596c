/** TaskReconciled: a correlation that was indeterminate reaches a terminal state on a later attempt. */
import { attemptOf } from "../correlation-state.ts";
import type { DecisionDraft } from "../../decisions.ts";
import { isTerminal } from "../../task-state.ts";
import { noDecisions, type RuleInput } from "./rule.ts";

export function reconciled(input: RuleInput): readonly DecisionDraft[] {
  const obs = input.observation;
  const loss = input.before.loss;
  if (obs.type !== "TaskStateObserved" || loss === null || !isTerminal(obs.state)) return noDecisions;
  if (input.before.status === "reconciled" || input.before.status === "failed") return noDecisions;
  const attempt = attemptOf(input.state, obs.serverTaskId);
  if (attempt === undefined || attempt.attempt <= loss.attempt) return noDecisions;
  return [
    {
      type: "TaskReconciled",
      workerId: obs.workerId,
      serverTaskId: obs.serverTaskId,
      state: obs.state,
      attempt: attempt.attempt,
      causeEventIds: [loss.eventId],
    },
  ];
}
