/**
 * A blocked task's fallback (default/4): the trust policy may name, per skill, how long a blocked task
 * waits before it restarts from scratch (`TrustPolicy.fallbacks`, off by default). R6 writes the moment
 * on its block (`ReconciliationBlocked.fallbackAt`: the block's time plus the wait of the policy in
 * force then), the state keeps it, and the fold runs `fallbackRestart` when the stream time of the
 * correlation's partition passes it, in the sweep that also expires correlations (retention.ts), so the
 * reconciler and replay run it at the same point of the same log.
 *
 * When it comes due, the task restarts from scratch (`RedispatchCommanded`, resumeState null) on the first
 * worker R6 ranks for completing it — with the rule set's own take-over options, so under default/4 never
 * a worker that lost it — naming the loss as its cause. With no such worker it blocks again, saying the
 * fallback found none, with no further fallback (an operator resolves it). A loss that no longer stands
 * (its task seen again, or a later attempt carries the task) spends the fallback without a decision.
 */
import type { CapabilityView } from "../capabilities.ts";
import type { CorrelationState } from "../correlation/state.ts";
import { maxAttempt } from "../correlation/state.ts";
import type { DecisionCause, DecisionDraft } from "../decisions.ts";
import { routeVerdicts } from "../route.ts";
import { lossStands, passedOverReason } from "./r6-reconcile.ts";
import { type TakeOverOptions, takeOverQuery } from "./take-over.ts";

export interface FallbackInput {
  state: CorrelationState;
  capabilities: CapabilityView;
  /** The fallback's moment (the state's `fallbackAt`), which the stream time has passed. */
  at: number;
}

/** A due fallback's decision and its cause; `spent` when there is nothing to restart; undefined when none is pending. */
export type Fallback = (
  input: FallbackInput,
) => { cause: Omit<DecisionCause, "correlationId">; decision: DecisionDraft } | { spent: true } | undefined;

export function fallbackRestart(options: TakeOverOptions = {}): Fallback {
  return ({ state, capabilities, at }) => {
    const loss = state.loss;
    if (state.status !== "blocked" || loss === null || state.fallbackAt === null) return undefined;
    if (!lossStands(state, loss)) return { spent: true };
    const lost = { workerId: loss.workerId, serverTaskId: loss.serverTaskId, lastState: loss.lastState };
    const query = takeOverQuery(state, lost, at, options);
    const { verdicts } = routeVerdicts(capabilities, { ...query, state: null });
    const cause = { eventId: loss.eventId, occurredAt: at };
    if (verdicts.chosen !== undefined)
      return {
        cause,
        decision: {
          type: "RedispatchCommanded",
          workerId: loss.workerId,
          targetWorkerId: verdicts.chosen.workerId,
          fromServerTaskId: loss.serverTaskId,
          skillId: query.skillId,
          attempt: maxAttempt(state) + 1,
          resumeState: null,
          acceptedOutputModes: [...query.accept],
          candidates: verdicts.all,
        },
      };
    return {
      cause,
      decision: {
        type: "ReconciliationBlocked",
        workerId: loss.workerId,
        lastState: loss.lastState,
        reason: `the trust policy's fallback for skill ${query.skillId ?? "(none)"} came due, and no worker verifies completing the task from scratch${passedOverReason(verdicts.passedOver)}; an operator resolves it`,
        candidates: verdicts.all,
        fallbackAt: null,
      },
    };
  };
}
