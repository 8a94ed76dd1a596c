/**
 * An operator's way out (default/4): an `OperatorResolved` observation (`a2a-ledger resolve`) resolves a
 * correlation that awaits one — blocked, or indeterminate — and the rules decide what it says, so replay
 * decides it alike:
 * - FAIL: `TaskFailed` for the standing loss, its reason naming who resolved it and why;
 * - REDISPATCH to a named worker: `RedispatchCommanded` to it, resuming the lost task's interrupted state
 *   (else from scratch), whatever the table's verdict (the operator overrides it; the verdicts are kept
 *   on the command). The worker must be known to the table: the dispatcher reaches it by its card;
 * - RESTART: `RedispatchCommanded` from scratch (resumeState null) to the named worker, or to the first
 *   worker R6 would rank for completing the task from scratch; that worker must verify COMPLETED.
 *
 * A resolution that cannot be carried out (no such worker, none that verifies COMPLETED) decides
 * `ReconciliationBlocked`, its reason naming the operator and why: the correlation stays on the queue
 * with the answer. A resolution of a correlation that awaits none (open, re-dispatched, ended, failed)
 * decides nothing: the lineage shows it, and nothing else changes.
 */
import type { CandidateVerdict, OperatorResolved } from "@a2a-ledger/schemas";
import { type CorrelationState, maxAttempt } from "../correlation/state.ts";
import type { DecisionDraft } from "../decisions.ts";
import { routeVerdicts } from "../route.ts";
import { isInterrupted } from "../task-state.ts";
import { decided, noOutput, type Rule, type RuleOutput } from "./rule.ts";
import { takeOverQuery } from "./take-over.ts";

/** Who resolved it, as a decision's reason names them: the authenticated principal, else the observer. */
export const resolvedBy = (o: Pick<OperatorResolved, "principal" | "observer">): string => o.principal ?? o.observer;

/** Whether the correlation awaits a way out: its standing loss blocked, or indeterminate and not reconciled. */
export function awaitsResolution(state: CorrelationState): boolean {
  return state.loss !== null && (state.status === "blocked" || state.status === "indeterminate");
}

export const operatorResolution: Rule = ({ observation, state, capabilities }) => {
  if (observation.type !== "OperatorResolved" || !awaitsResolution(state) || state.loss === null) return noOutput;
  const loss = state.loss;
  const by = resolvedBy(observation);
  const why = `resolved by ${by}: ${observation.reason}`;
  const lost = { workerId: loss.workerId, serverTaskId: loss.serverTaskId, lastState: loss.lastState };
  const refused = (what: string, because: string, candidates: CandidateVerdict[]): RuleOutput =>
    decided([
      {
        type: "ReconciliationBlocked",
        workerId: loss.workerId,
        lastState: loss.lastState,
        reason: `${by} asked to ${what}, which cannot be carried out: ${because}`,
        candidates,
        // A pending fallback stays pending.
        fallbackAt: state.fallbackAt,
      },
    ]);
  if (observation.action === "FAIL")
    return decided([
      {
        type: "TaskFailed",
        workerId: loss.workerId,
        serverTaskId: loss.serverTaskId,
        lastState: loss.lastState,
        reason: why,
      },
    ]);
  if (observation.action !== "REDISPATCH" && observation.action !== "RESTART") return noOutput;
  const query = takeOverQuery(state, lost, observation.occurredAt);
  const restart = observation.action === "RESTART";
  const { verdicts } = routeVerdicts(capabilities, restart ? { ...query, state: null } : query);
  const command = (target: string): DecisionDraft => ({
    type: "RedispatchCommanded",
    workerId: loss.workerId,
    targetWorkerId: target,
    fromServerTaskId: loss.serverTaskId,
    skillId: query.skillId,
    attempt: maxAttempt(state) + 1,
    resumeState: !restart && isInterrupted(loss.lastState) ? loss.lastState : null,
    acceptedOutputModes: [...query.accept],
    candidates: verdicts.all,
  });
  const named = observation.workerId;
  if (!restart) {
    if (named === null) return refused("re-dispatch", "it names no worker", verdicts.all);
    if (capabilities.asOf(named, observation.occurredAt) === undefined)
      return refused(`re-dispatch to ${named}`, `no card of ${named} is known`, verdicts.all);
    return decided([command(named)]);
  }
  if (named === null)
    return verdicts.chosen !== undefined
      ? decided([command(verdicts.chosen.workerId)])
      : refused("restart from scratch", "no worker verifies completing the task from scratch", verdicts.all);
  const verdict = verdicts.all.find((v) => v.workerId === named);
  if (verdict?.eligible === true) return decided([command(named)]);
  return refused(
    `restart from scratch on ${named}`,
    verdict === undefined ? `no card of ${named} is known` : verdict.reason,
    verdicts.all,
  );
};
