/**
 * What a rule set's state model is to the decider's engine: the state of one correlation (of whichever
 * model), the context a step sees, and the operations a model provides. The models (`correlation/model.ts`,
 * `v1/model.ts`) implement it; the decider (`decider.ts`) runs them. Types only, so neither side imports the other.
 */
import type { Decision, Observation } from "@a2a-ledger/schemas";
import type { CapabilityView } from "./capabilities.ts";
import type { CorrelationState } from "./correlation/state.ts";
import type { DecisionDraft } from "./decisions.ts";
import type { PolicyConfig } from "./policy.ts";
import type { Activity } from "./retention.ts";
import type { CorrelationState as V1CorrelationState } from "./v1/correlation-state.ts";

/**
 * A correlation's state, of whichever model the rule set keeps: opaque outside the core — hold it,
 * hand it back to the decider that made it, (de)serialize it with that decider.
 */
export type LedgerState = CorrelationState | V1CorrelationState;

export interface DecideContext {
  capabilities: CapabilityView;
  policy: PolicyConfig;
}

/** What a state model provides the engine: how rules see a state, and how a step is folded in. */
export interface StateModel<S extends LedgerState, I extends { capabilities: CapabilityView }> {
  /** Whether a state is of this model. */
  owns(state: LedgerState): state is S;
  initialState(): S;
  isDuplicate(state: S, eventId: string): boolean;
  /**
   * Whether an observation whose eventId the state remembers is nonetheless a new fact: a TaskNotFound
   * for a task seen again after its loss, occurring after that sighting (the next loss, under the id a
   * producer that names no sighting derives for every loss of the task). For rule sets that ask for it.
   */
  lossAgain?(state: S, observation: Observation): boolean;
  /**
   * The rules' input for `observation` on `state`, seeing `capabilities` and the decisions emitted so far.
   * `previous` is this engine's input of the previous step, which a model may fill in again instead of
   * allocating (steps are synchronous and rules do not keep their input).
   */
  input(
    state: S,
    observation: Observation,
    ctx: DecideContext,
    emitted: readonly DecisionDraft[],
    previous: I | undefined,
  ): I;
  /** The state after the observation and the decisions taken on it. */
  commit(state: S, input: I, observation: Observation, decisions: readonly Decision[]): S;
  /** The state after decisions taken without an observation (a re-examination). */
  apply(state: S, decisions: readonly Decision[]): S;
  /** The state after one event: an observation, or a decision taken on it (what `commit` and `apply` do, one event at a time). */
  evolve(state: S, event: Observation | Decision): S;
  /**
   * The state after a re-examination that lifted nothing left its block examined as of `asOf` (a fact
   * that `evolve` applies; absent from a model whose rule sets never re-examine).
   */
  blockExamined?(state: S, asOf: number): S;
  /** The state after a block's fallback came due and restarted nothing (a fact `evolve` applies; default/4's model). */
  fallbackSpent?(state: S): S;
  isBlocked(state: S): boolean;
  /**
   * An observation the correlation already saw, seen again: nothing is decided, but it was seen, so its
   * last event moves (retention measures idleness from it). Absent from a model without retention.
   */
  seenAgain?(state: S, observation: Observation): S;
  /** What retention reads (retention.ts); absent from a model that keeps every correlation (default/1's). */
  activity?(state: S): Activity | undefined;
  correlationIdOf(state: S): string;
  clone(state: S): S;
  serialize(state: S): Uint8Array;
  deserialize(bytes: Uint8Array): S;
}
