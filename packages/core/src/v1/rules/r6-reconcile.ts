/**
 * R6: when R5 made a task indeterminate, pick a worker deterministically (first eligible by workerId)
 * and emit RedispatchCommanded with the same correlation id and attempt = previous attempts + 1;
 * none eligible → ReconciliationBlocked with the reason and every candidate's verdict.
 * - interrupted last state: resume it on a worker whose V contains that state (never the worker that
 *   just lost it); `onNoResume` decides what happens when there is none (default: blocked).
 * - any other non-terminal state: nothing to resume, restart from scratch (resumeState null) on a
 *   worker that verifies completion; the lost worker is a last resort.
 */
import type { CandidateVerdict, TaskState } from "@a2a-ledger/schemas";
import { attemptOf, latestAttempt, maxAttemptNumber } from "../correlation-state.ts";
import type { DecisionDraft } from "../../decisions.ts";
import { isInterrupted } from "../../task-state.ts";
import { verdicts, type Need } from "./eligibility.ts";
import { noDecisions, type RuleInput } from "./rule.ts";

export type NoResumePolicy = "block" | "restart";

function reconcile(input: RuleInput, onNoResume: NoResumePolicy): readonly DecisionDraft[] {
  const lost = input.emitted.find((d) => d.type === "TaskIndeterminate");
  if (lost === undefined || lost.type !== "TaskIndeterminate") return noDecisions;
  const attempt = attemptOf(input.state, lost.serverTaskId) ?? latestAttempt(input.state);
  const lostWorkerId = lost.workerId ?? "";
  const base = {
    lostWorkerId,
    skillId: attempt?.skillId ?? null,
    acceptedOutputModes: attempt?.acceptedOutputModes ?? [],
    at: input.observation.occurredAt,
  };
  const command = (
    targetWorkerId: string,
    resumeState: TaskState | null,
    candidates: CandidateVerdict[],
  ): DecisionDraft => ({
    type: "RedispatchCommanded",
    workerId: lostWorkerId,
    targetWorkerId,
    fromServerTaskId: lost.serverTaskId,
    skillId: base.skillId,
    attempt: maxAttemptNumber(input.state) + 1,
    resumeState,
    acceptedOutputModes: [...base.acceptedOutputModes],
    candidates,
  });
  const restartNeed: Need = { ...base, state: "TASK_STATE_COMPLETED" };

  if (isInterrupted(lost.lastState)) {
    const resume = verdicts(input.capabilities, { ...base, state: lost.lastState }, "exclude");
    if (resume.chosen !== undefined) return [command(resume.chosen.workerId, lost.lastState, resume.all)];
    if (onNoResume === "restart") {
      const restart = verdicts(input.capabilities, restartNeed, "last-resort");
      if (restart.chosen !== undefined) return [command(restart.chosen.workerId, null, restart.all)];
      return [
        blocked(
          lostWorkerId,
          lost.lastState,
          `no worker verifies ${lost.lastState}, and none verifies completing the task from scratch`,
          restart.all,
        ),
      ];
    }
    return [
      blocked(
        lostWorkerId,
        lost.lastState,
        `no worker verifies ${lost.lastState} with output modes the dispatch accepted`,
        resume.all,
      ),
    ];
  }
  const restart = verdicts(input.capabilities, restartNeed, "last-resort");
  if (restart.chosen !== undefined) return [command(restart.chosen.workerId, null, restart.all)];
  return [blocked(lostWorkerId, lost.lastState, "no worker verifies completing the task from scratch", restart.all)];
}

function blocked(
  workerId: string,
  lastState: TaskState,
  reason: string,
  candidates: CandidateVerdict[],
): DecisionDraft {
  return { type: "ReconciliationBlocked", workerId, lastState, reason, candidates };
}

export function r6Reconcile(onNoResume: NoResumePolicy): (input: RuleInput) => readonly DecisionDraft[] {
  return (input) => reconcile(input, onNoResume);
}
