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
 * With `neverBackToLosers` (default/3) a worker that lost an earlier task of the correlation is never a
 * target either; when only such workers would be eligible, the correlation blocks and the reason names them.
 *
 * Blocked is not forever: `recoverBlocked` re-examines a blocked correlation against the capability
 * table — at the time it blocked, then at every later capability change, in time order — and commands
 * the re-dispatch at the first moment a worker is eligible (the fold runs it whenever capabilities change).
 */
import type { CandidateVerdict, CapabilitySnapshot, TaskState } from "@a2a-ledger/schemas";
import type { CapabilityView } from "../capabilities.ts";
import { openAttemptOn, supersededBy } from "../correlation/attempts.ts";
import { attemptNumbered, type CorrelationState, maxAttempt, taskOf } from "../correlation/state.ts";
import type { DecisionCause, DecisionDraft } from "../decisions.ts";
import { type Need, takeOverNeed, verdicts } from "./eligibility.ts";
import { decided, noOutput, type Rule, type RuleInput } from "./rule.ts";

export type NoResumePolicy = "block" | "restart";

export interface ReconcileOptions {
  /** default/3: a worker that already lost a task of this correlation is never a target again. */
  neverBackToLosers?: boolean;
  /**
   * default/3: the loss of a dispatch's task that was never seen (a new task id answering a dispatch with
   * no task yet, see R4/R5) is reconciled like any other, on that dispatch's terms; default/2 records
   * the TaskIndeterminate and decides nothing more, leaving the correlation indeterminate with no command.
   */
  reconcileUnanswered?: boolean;
}

/** The workers other than `lostWorkerId` with a task of this correlation that stands lost, and the attempts they lost. */
function earlierLosers(state: CorrelationState, lostWorkerId: string): Map<string, number[]> {
  const losers = new Map<string, number[]>();
  for (const t of state.tasks) {
    if (!t.lost || t.workerId === lostWorkerId) continue;
    const attempts = losers.get(t.workerId);
    if (attempts === undefined) losers.set(t.workerId, [t.attempt]);
    else if (!attempts.includes(t.attempt)) attempts.push(t.attempt);
  }
  return losers;
}

const passedOverReason = (passedOver: readonly string[]): string =>
  passedOver.length === 0 ? "" : `; ${passedOver.join(", ")} would qualify but already lost the task in this correlation, so the task stays indeterminate until another worker verifies what it needs`;


interface Lost {
  workerId: string;
  serverTaskId: string;
  lastState: TaskState;
}

/** The re-dispatch command for a lost task as of `at`, or the ReconciliationBlocked alert. */
function resolve(state: CorrelationState, capabilities: CapabilityView, lost: Lost, at: number, onNoResume: NoResumePolicy, options: ReconcileOptions): { command: DecisionDraft | undefined; blocked: DecisionDraft } {
  const task = taskOf(state, lost.workerId, lost.serverTaskId);
  const attempt = task !== undefined ? attemptNumbered(state, task.attempt) : options.reconcileUnanswered === true ? openAttemptOn(state, lost.workerId) : undefined;
  const base = {
    lostWorkerId: lost.workerId,
    skillId: attempt?.skillId ?? null,
    acceptedOutputModes: attempt?.acceptedOutputModes ?? [],
    at,
    ...(options.neverBackToLosers === true ? { earlierLosers: earlierLosers(state, lost.workerId) } : {}),
  };
  const command = (target: string, resumeState: TaskState | null, candidates: CandidateVerdict[]): DecisionDraft => ({
    type: "RedispatchCommanded",
    workerId: lost.workerId,
    targetWorkerId: target,
    fromServerTaskId: lost.serverTaskId,
    skillId: base.skillId,
    attempt: maxAttempt(state) + 1,
    resumeState,
    acceptedOutputModes: [...base.acceptedOutputModes],
    candidates,
  });
  const blocked = (reason: string, candidates: CandidateVerdict[]): DecisionDraft => ({ type: "ReconciliationBlocked", workerId: lost.workerId, lastState: lost.lastState, reason, candidates });
  const choose = (states: TaskState[]) => verdicts(capabilities, { ...base, states } satisfies Need);

  const need = takeOverNeed(lost.lastState);
  if (need.resume) {
    const resume = choose(need.states);
    if (resume.chosen !== undefined) return { command: command(resume.chosen.workerId, lost.lastState, resume.all), blocked: blocked("", resume.all) };
    if (onNoResume === "block") return { command: undefined, blocked: blocked(`no worker verifies ${lost.lastState} for skill ${base.skillId ?? "(none)"} with output modes the dispatch accepted${passedOverReason(resume.passedOver)}`, resume.all) };
    const fresh = choose(takeOverNeed(null).states);
    if (fresh.chosen !== undefined) return { command: command(fresh.chosen.workerId, null, fresh.all), blocked: blocked("", fresh.all) };
    return { command: undefined, blocked: blocked(`no worker verifies ${lost.lastState}, and none verifies completing the task from scratch${passedOverReason(fresh.passedOver)}`, fresh.all) };
  }
  const states = need.states;
  const fresh = choose(states);
  if (fresh.chosen !== undefined) return { command: command(fresh.chosen.workerId, null, fresh.all), blocked: blocked("", fresh.all) };
  return { command: undefined, blocked: blocked(`nothing to resume from ${lost.lastState}, and no worker verifies ${states.join(" and ")} to restart the task${passedOverReason(fresh.passedOver)}`, fresh.all) };
}

export function r6Reconcile(onNoResume: NoResumePolicy, options: ReconcileOptions = {}): Rule {
  return (input: RuleInput) => {
    const lost = input.emitted.find((d) => d.type === "TaskIndeterminate");
    if (lost === undefined || lost.type !== "TaskIndeterminate") return noOutput;
    const task = taskOf(input.state, lost.workerId ?? "", lost.serverTaskId);
    const attempt = task?.attempt ?? (options.reconcileUnanswered === true ? openAttemptOn(input.state, lost.workerId ?? "")?.attempt : undefined);
    if (attempt === undefined || supersededBy(input.state, attempt) !== undefined) return noOutput;
    const r = resolve(input.state, input.capabilities, { workerId: lost.workerId ?? "", serverTaskId: lost.serverTaskId, lastState: lost.lastState }, input.observation.occurredAt, onNoResume, options);
    return decided([r.command ?? r.blocked]);
  };
}

export interface RecoveryInput {
  state: CorrelationState;
  capabilities: CapabilityView;
}

/** A re-dispatch for a blocked correlation, with the capability change that made it possible. */
export type Recovery = (input: RecoveryInput) => { cause: Omit<DecisionCause, "correlationId">; decision: DecisionDraft } | undefined;

/** Capability changes from `from` on, in time order (ties: workerId, then cause event). */
function changesSince(capabilities: CapabilityView, from: number): CapabilitySnapshot[] {
  const changes: CapabilitySnapshot[] = [];
  for (const w of capabilities.workers()) for (const s of capabilities.historyOf(w)) if (s.validFrom > from) changes.push(s);
  return changes.sort((a, b) => a.validFrom - b.validFrom || (a.workerId < b.workerId ? -1 : a.workerId > b.workerId ? 1 : 0) || (a.causeEventId < b.causeEventId ? -1 : a.causeEventId > b.causeEventId ? 1 : 0));
}

export function recoverBlocked(onNoResume: NoResumePolicy, options: ReconcileOptions = {}): Recovery {
  return ({ state, capabilities }) => {
    const loss = state.loss;
    if (state.status !== "blocked" || loss === null || state.blockedAt === null) return undefined;
    const lost = { workerId: loss.workerId, serverTaskId: loss.serverTaskId, lastState: loss.lastState };
    for (const at of [state.blockedAt, ...changesSince(capabilities, state.blockedAt).map((s) => s.validFrom)]) {
      const { command } = resolve(state, capabilities, lost, at, onNoResume, options);
      if (command === undefined || command.type !== "RedispatchCommanded") continue;
      const snapshot = capabilities.asOf(command.targetWorkerId, at) as CapabilitySnapshot;
      return { cause: { eventId: snapshot.causeEventId, occurredAt: snapshot.validFrom }, decision: { ...command, causeEventIds: [loss.eventId] } };
    }
    return undefined;
  };
}
