/**
 * The rule contract of default/2: a rule is a pure function of the observation, the correlation state
 * *before* it, the capability table and the policy, and returns one shape: the decisions it takes and
 * the capability snapshots and cards it derives. A rule set is an ordered list of named rules.
 */
import type { CapabilitySnapshot, Observation, ObservationType } from "@a2a-ledger/schemas";
import type { CapabilityView, CardRecord } from "../capabilities.ts";
import type { CorrelationState } from "../correlation/state.ts";
import type { DecisionDraft } from "../decisions.ts";
import type { PolicyConfig } from "../policy.ts";

export interface RuleInput {
  observation: Observation;
  /** The correlation before this observation (the fold applies the observation after the rules). */
  state: CorrelationState;
  /** The capability table as it was before this observation. */
  priorCapabilities: CapabilityView;
  /** The capability table including what earlier rules of this step derived. */
  capabilities: CapabilityView;
  policy: PolicyConfig;
  /** Decisions earlier rules of this step took, in order. */
  emitted: readonly DecisionDraft[];
}

export interface RuleOutput {
  decisions: readonly DecisionDraft[];
  capabilityUpdates: readonly CapabilitySnapshot[];
  cards: readonly CardRecord[];
}

export type Rule = (input: RuleInput) => RuleOutput;

export interface NamedRule {
  /** A stable identifier, e.g. "R1" or "R6", so a custom rule set can replace one rule. */
  id: string;
  /** The observation types the rule decides on (the engine skips it for others); every type when absent. */
  on?: readonly ObservationType[];
  apply: Rule;
}

export const noOutput: RuleOutput = { decisions: [], capabilityUpdates: [], cards: [] };

/** The output of a rule that only decides. */
export function decided(decisions: readonly DecisionDraft[]): RuleOutput {
  return decisions.length === 0 ? noOutput : { decisions, capabilityUpdates: [], cards: [] };
}
