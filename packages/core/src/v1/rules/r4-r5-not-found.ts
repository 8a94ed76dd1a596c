/**
 * R4: TaskNotFound when the last observed state is terminal is legal (purged): no decision.
 * R5: TaskNotFound when it is not terminal: under trust TaskFailed; under verify TaskIndeterminate —
 * neither terminal nor resumable until reconciliation (R6). Never failed under verify.
 * Not a loss: a parked canary (R9), a task already reported lost, a task of a superseded attempt, or a
 * correlation that already ended (failed / reconciled).
 */
import { attemptOf, latestAttempt } from "../correlation-state.ts";
import type { DecisionDraft } from "../../decisions.ts";
import { policyFor } from "../../policy.ts";
import { isTerminal } from "../../task-state.ts";
import { noDecisions, type RuleInput } from "./rule.ts";

export function r4r5NotFound(input: RuleInput): readonly DecisionDraft[] {
  const obs = input.observation;
  if (obs.type !== "TaskNotFoundObserved") return noDecisions;
  const s = input.before;
  if (s.parkedCanaries.some((c) => c.serverTaskId === obs.serverTaskId && c.workerId === obs.workerId))
    return noDecisions;
  if (s.lostTaskIds.includes(obs.serverTaskId) || s.status === "failed" || s.status === "reconciled")
    return noDecisions;
  // R4: purged after a terminal state (of this task, or of the correlation as a whole).
  if (s.terminalTaskIds.includes(obs.serverTaskId)) return noDecisions;
  const last = s.lastState;
  if (last !== null && isTerminal(last.state)) return noDecisions;
  const attempt = attemptOf(s, obs.serverTaskId);
  const latest = latestAttempt(s);
  if (attempt !== undefined && latest !== undefined && attempt.attempt < latest.attempt) return noDecisions;

  const lastState = last?.state ?? "TASK_STATE_UNSPECIFIED";
  const seen =
    last === null
      ? "no state was observed"
      : `the last observed state ${last.state} (seen by ${last.observer}) is not terminal`;
  const causes = last === null ? [] : [last.eventId];
  const snap = input.capabilities.asOf(obs.workerId, obs.occurredAt);
  if (policyFor(input.policy, snap) === "trust") {
    return [
      {
        type: "TaskFailed",
        workerId: obs.workerId,
        serverTaskId: obs.serverTaskId,
        lastState,
        reason: `TaskNotFound (${obs.errorCode} on ${obs.method}) while ${seen}; the worker is trusted (vendor ${snap?.vendor}, durable task store), so the loss is a failure`,
        causeEventIds: causes,
      },
    ];
  }
  return [
    {
      type: "TaskIndeterminate",
      workerId: obs.workerId,
      serverTaskId: obs.serverTaskId,
      lastState,
      lastObserver: last?.observer ?? "",
      reason: `TaskNotFound (${obs.errorCode} on ${obs.method}) while ${seen}; under verify a lost task is indeterminate, not failed`,
      causeEventIds: causes,
    },
  ];
}
