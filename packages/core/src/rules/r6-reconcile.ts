/**
 * R6: when R5 made the latest attempt's task indeterminate, choose a worker (see eligibility.ts) and
 * emit RedispatchCommanded with the same correlation id and attempt = highest attempt + 1; none
 * eligible → ReconciliationBlocked with every candidate's verdict (the operator's alert).
 * - Last state interrupted: resume it on a worker whose V (for the task's skill) contains that state;
 *   `onNoResume` decides what happens when there is none: block (default/2) or restart from scratch
 *   on a worker that verifies COMPLETED (restart-from-scratch/2).
 * - Last state SUBMITTED or WORKING: nothing to resume, restart (resumeState null) on a worker whose V
 *   contains that state and COMPLETED; nothing seen (UNSPECIFIED): one that verifies COMPLETED.
 * A loss of a superseded attempt needs no re-dispatch: a later attempt carries the task.
 */
import type { CandidateVerdict, TaskState } from "@a2a-ledger/schemas";
import { attemptNumbered, maxAttempt, taskOf } from "../correlation/state.ts";
import { supersededBy } from "../correlation/attempts.ts";
import type { DecisionDraft } from "../decisions.ts";
import { isInterrupted } from "../task-state.ts";
import { type Need, verdicts } from "./eligibility.ts";
import { decided, noOutput, type Rule, type RuleInput, type RuleOutput } from "./rule.ts";

export type NoResumePolicy = "block" | "restart";

const completed: TaskState = "TASK_STATE_COMPLETED";

function restartStates(lastState: TaskState): TaskState[] {
  return lastState === "TASK_STATE_UNSPECIFIED" || lastState === completed ? [completed] : [lastState, completed];
}

function reconcile(input: RuleInput, onNoResume: NoResumePolicy): RuleOutput {
  const lost = input.emitted.find((d) => d.type === "TaskIndeterminate");
  if (lost === undefined || lost.type !== "TaskIndeterminate") return noOutput;
  const lostWorkerId = lost.workerId ?? "";
  const task = taskOf(input.state, lostWorkerId, lost.serverTaskId);
  if (task === undefined || supersededBy(input.state, task.attempt) !== undefined) return noOutput;
  const attempt = attemptNumbered(input.state, task.attempt);
  const base = { lostWorkerId, skillId: attempt?.skillId ?? null, acceptedOutputModes: attempt?.acceptedOutputModes ?? [], at: input.observation.occurredAt };
  const command = (target: string, resumeState: TaskState | null, candidates: CandidateVerdict[]): DecisionDraft => ({
    type: "RedispatchCommanded",
    workerId: lostWorkerId,
    targetWorkerId: target,
    fromServerTaskId: lost.serverTaskId,
    skillId: base.skillId,
    attempt: maxAttempt(input.state) + 1,
    resumeState,
    acceptedOutputModes: [...base.acceptedOutputModes],
    candidates,
  });
  const blocked = (reason: string, candidates: CandidateVerdict[]): DecisionDraft => ({ type: "ReconciliationBlocked", workerId: lostWorkerId, lastState: lost.lastState, reason, candidates });
  const restart = (need: Need) => verdicts(input.capabilities, need);

  if (isInterrupted(lost.lastState)) {
    const resume = verdicts(input.capabilities, { ...base, states: [lost.lastState] });
    if (resume.chosen !== undefined) return decided([command(resume.chosen.workerId, lost.lastState, resume.all)]);
    if (onNoResume === "block") return decided([blocked(`no worker verifies ${lost.lastState} for skill ${base.skillId ?? "(none)"} with output modes the dispatch accepted`, resume.all)]);
    const fresh = restart({ ...base, states: [completed] });
    if (fresh.chosen !== undefined) return decided([command(fresh.chosen.workerId, null, fresh.all)]);
    return decided([blocked(`no worker verifies ${lost.lastState}, and none verifies completing the task from scratch`, fresh.all)]);
  }
  const states = restartStates(lost.lastState);
  const fresh = restart({ ...base, states });
  if (fresh.chosen !== undefined) return decided([command(fresh.chosen.workerId, null, fresh.all)]);
  return decided([blocked(`nothing to resume from ${lost.lastState}, and no worker verifies ${states.join(" and ")} to restart the task`, fresh.all)]);
}

export function r6Reconcile(onNoResume: NoResumePolicy): Rule {
  return (input) => reconcile(input, onNoResume);
}
