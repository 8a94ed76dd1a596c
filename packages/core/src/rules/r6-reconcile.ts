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
import type { CandidateVerdict, CapabilitySnapshot, Observation, TaskState } from "@a2a-ledger/schemas";
import type { CapabilityView } from "../capabilities.ts";
import { openAttemptOn, supersededBy } from "../correlation/attempts.ts";
import { type CorrelationState, maxAttempt, taskOf } from "../correlation/state.ts";
import type { DecisionCause, DecisionDraft } from "../decisions.ts";
import { fallbackAfter } from "../policy.ts";
import { spell } from "../retention.ts";
import { routeVerdicts } from "../route.ts";
import { type LostTask, takeOverQuery, type TakeOverOptions } from "./take-over.ts";
import { decided, noOutput, type Rule, type RuleInput } from "./rule.ts";

export type NoResumePolicy = "block" | "restart";

export interface ReconcileOptions extends TakeOverOptions {
  /**
   * default/3: a blocked correlation is re-examined after each of its own observations, as of that
   * observation (see recoverBlocked); default/2 re-examines it only when capabilities change.
   */
  reexamineOnObservation?: boolean;
  /**
   * default/3: a block is lifted only while its loss still needs a re-dispatch — the lost task still
   * stands lost (not seen again since) and its attempt is still the latest (no retry of the
   * orchestrator's own carries the task). default/2 re-dispatches a block's loss whenever a worker
   * becomes eligible, even a task seen alive again or superseded since (a duplicate run).
   */
  standingLossOnly?: boolean;
  /**
   * default/4: a block names when the trust policy's fallback for the task's skill restarts it from
   * scratch (`fallbackAt`, see fallback.ts); default/3 names none.
   */
  fallback?: boolean;
}

type BlockedDraft = Extract<DecisionDraft, { type: "ReconciliationBlocked" }>;

export const passedOverReason = (passedOver: readonly string[]): string =>
  passedOver.length === 0
    ? ""
    : `; ${passedOver.join(", ")} would qualify but already lost the task in this correlation, so the task stays indeterminate until another worker verifies what it needs`;

/**
 * The re-dispatch command for a lost task as of `at`, or the ReconciliationBlocked alert. The choice is
 * `route`'s own (`routeVerdicts` over `takeOverQuery`): the first worker route names for that query.
 */
function resolve(
  state: CorrelationState,
  capabilities: CapabilityView,
  lost: LostTask,
  at: number,
  onNoResume: NoResumePolicy,
  options: ReconcileOptions,
): { command: DecisionDraft | undefined; blocked: BlockedDraft; skillId: string | null } {
  const query = takeOverQuery(state, lost, at, options);
  const skillId = query.skillId;
  const command = (target: string, resumeState: TaskState | null, candidates: CandidateVerdict[]): DecisionDraft => ({
    type: "RedispatchCommanded",
    workerId: lost.workerId,
    targetWorkerId: target,
    fromServerTaskId: lost.serverTaskId,
    skillId: query.skillId,
    attempt: maxAttempt(state) + 1,
    resumeState,
    acceptedOutputModes: [...query.accept],
    candidates,
  });
  const blocked = (reason: string, candidates: CandidateVerdict[]): BlockedDraft => ({
    type: "ReconciliationBlocked",
    workerId: lost.workerId,
    lastState: lost.lastState,
    reason,
    candidates,
  });

  const { need, verdicts: first } = routeVerdicts(capabilities, query);
  if (need.resume) {
    if (first.chosen !== undefined)
      return {
        skillId,
        command: command(first.chosen.workerId, lost.lastState, first.all),
        blocked: blocked("", first.all),
      };
    if (onNoResume === "block")
      return {
        skillId,
        command: undefined,
        blocked: blocked(
          `no worker verifies ${lost.lastState} for skill ${query.skillId ?? "(none)"} with output modes the dispatch accepted${passedOverReason(first.passedOver)}`,
          first.all,
        ),
      };
    const fresh = routeVerdicts(capabilities, { ...query, state: null }).verdicts;
    if (fresh.chosen !== undefined)
      return { skillId, command: command(fresh.chosen.workerId, null, fresh.all), blocked: blocked("", fresh.all) };
    return {
      skillId,
      command: undefined,
      blocked: blocked(
        `no worker verifies ${lost.lastState}, and none verifies completing the task from scratch${passedOverReason(fresh.passedOver)}`,
        fresh.all,
      ),
    };
  }
  if (first.chosen !== undefined)
    return { skillId, command: command(first.chosen.workerId, null, first.all), blocked: blocked("", first.all) };
  return {
    skillId,
    command: undefined,
    blocked: blocked(
      `nothing to resume from ${lost.lastState}, and no worker verifies ${need.states.join(" and ")} to restart the task${passedOverReason(first.passedOver)}`,
      first.all,
    ),
  };
}

export function r6Reconcile(onNoResume: NoResumePolicy, options: ReconcileOptions = {}): Rule {
  return (input: RuleInput) => {
    const lost = input.emitted.find((d) => d.type === "TaskIndeterminate");
    if (lost === undefined || lost.type !== "TaskIndeterminate") return noOutput;
    const task = taskOf(input.state, lost.workerId ?? "", lost.serverTaskId);
    const attempt =
      task?.attempt ??
      (options.reconcileUnanswered === true ? openAttemptOn(input.state, lost.workerId ?? "")?.attempt : undefined);
    if (attempt === undefined || supersededBy(input.state, attempt) !== undefined) return noOutput;
    const r = resolve(
      input.state,
      input.capabilities,
      { workerId: lost.workerId ?? "", serverTaskId: lost.serverTaskId, lastState: lost.lastState },
      input.observation.occurredAt,
      onNoResume,
      options,
    );
    if (r.command !== undefined) return decided([r.command]);
    const after = options.fallback === true ? fallbackAfter(input.policy, r.skillId) : undefined;
    if (after === undefined) return decided([r.blocked]);
    const fallbackAt = input.observation.occurredAt + after;
    return decided([
      {
        ...r.blocked,
        reason: `${r.blocked.reason}; the trust policy's fallback restarts it from scratch after ${spell(after)} blocked (fallbackAt) unless an operator resolves it first`,
        fallbackAt,
      },
    ]);
  };
}

export interface RecoveryInput {
  state: CorrelationState;
  capabilities: CapabilityView;
  /**
   * The correlation's own observation just folded into `state`, when that is what asks for the
   * re-examination (absent: the capability table changed).
   */
  trigger?: Observation;
}

/**
 * A re-dispatch for a blocked correlation, with the capability change (or the observation) that made it
 * possible; or, when the correlation's own observation was examined and lifts nothing, the moment as of
 * which the block now stands examined (`stillBlockedAsOf`: the state holds that observation, so no
 * later re-examination may date a command before it).
 */
export type Recovery = (
  input: RecoveryInput,
) =>
  | { cause: Omit<DecisionCause, "correlationId">; decision: DecisionDraft }
  | { stillBlockedAsOf: number }
  | undefined;

/** Whether the correlation's loss still needs a re-dispatch: its task not seen again, its attempt not superseded. */
export function lossStands(
  state: CorrelationState,
  loss: { workerId: string; serverTaskId: string; attempt: number },
): boolean {
  return (
    taskOf(state, loss.workerId, loss.serverTaskId)?.lost === true && supersededBy(state, loss.attempt) === undefined
  );
}

/** Capability changes from `from` on, in time order (ties: workerId, then cause event). */
function changesSince(capabilities: CapabilityView, from: number): CapabilitySnapshot[] {
  const changes: CapabilitySnapshot[] = [];
  for (const w of capabilities.workers())
    for (const s of capabilities.historyOf(w)) if (s.validFrom > from) changes.push(s);
  return changes.sort(
    (a, b) =>
      a.validFrom - b.validFrom ||
      (a.workerId < b.workerId ? -1 : a.workerId > b.workerId ? 1 : 0) ||
      (a.causeEventId < b.causeEventId ? -1 : a.causeEventId > b.causeEventId ? 1 : 0),
  );
}

/**
 * R6's query reads the correlation itself, not only the capability table: its losses (default/3: a lost
 * task seen again no longer stands lost, so its worker may be a target again) and the lost attempt's
 * terms (a dispatch observed for a planned attempt brings the orchestrator's accepted modes). With
 * `reexamineOnObservation` (default/3) each of the correlation's own observations is therefore a moment
 * the block is re-examined — as of its time, and the re-dispatch it allows names it as its cause — and,
 * when it lifts nothing, the block stands examined as of that time (`blockedAt` moves to it): a later
 * capability change re-examines the state from there on, so a command is never dated before the state
 * it was decided on (one dated at an earlier probe, for a worker that was a loser then, would be).
 */
export function recoverBlocked(onNoResume: NoResumePolicy, options: ReconcileOptions = {}): Recovery {
  return ({ state, capabilities, trigger }) => {
    const loss = state.loss;
    if (state.status !== "blocked" || loss === null || state.blockedAt === null) return undefined;
    const lost = { workerId: loss.workerId, serverTaskId: loss.serverTaskId, lastState: loss.lastState };
    if (options.standingLossOnly === true && !lossStands(state, loss)) return undefined;
    if (trigger !== undefined) {
      if (options.reexamineOnObservation !== true) return undefined;
      const { command } = resolve(state, capabilities, lost, trigger.occurredAt, onNoResume, options);
      if (command === undefined || command.type !== "RedispatchCommanded")
        return { stillBlockedAsOf: trigger.occurredAt };
      return {
        cause: { eventId: trigger.eventId, occurredAt: trigger.occurredAt },
        decision: { ...command, causeEventIds: [loss.eventId] },
      };
    }
    for (const at of [state.blockedAt, ...changesSince(capabilities, state.blockedAt).map((s) => s.validFrom)]) {
      const { command } = resolve(state, capabilities, lost, at, onNoResume, options);
      if (command === undefined || command.type !== "RedispatchCommanded") continue;
      const snapshot = capabilities.asOf(command.targetWorkerId, at) as CapabilitySnapshot;
      // Under default/3 `at` is never before the state read (blockedAt follows the correlation's own
      // observations): a snapshot from before it, read late from another partition, dates the command at `at`.
      const occurredAt =
        options.reexamineOnObservation === true ? Math.max(snapshot.validFrom, at) : snapshot.validFrom;
      return {
        cause: { eventId: snapshot.causeEventId, occurredAt },
        decision: { ...command, causeEventIds: [loss.eventId] },
      };
    }
    return undefined;
  };
}
