/** What a rule sees and says. Rules are pure functions; a rule set is an ordered list of them. */
import type { CapabilitySnapshot, Observation } from "@a2a-ledger/schemas";
import type { RuleOutput } from "../../rules/rule.ts";
import type { CapabilityView, CardRecord } from "../../capabilities.ts";
import type { CorrelationState } from "../correlation-state.ts";
import type { DecisionDraft } from "../../decisions.ts";
import type { PolicyConfig } from "../../policy.ts";

export interface RuleInput {
  observation: Observation;
  /** The correlation before this observation. */
  before: CorrelationState;
  /** The correlation after folding this observation in (decisions not yet applied). */
  state: CorrelationState;
  /** The capability table as it was before this observation. */
  priorCapabilities: CapabilityView;
  /** The capability table including the updates earlier rules of this step made. */
  capabilities: CapabilityView;
  policy: PolicyConfig;
  /** Decisions earlier rules of this step emitted, in order. */
  emitted: readonly DecisionDraft[];
}

/** default/1's rules return decisions, or a partial output; `adapt` gives them the one output shape. */
export interface PartialOutput {
  decisions?: readonly DecisionDraft[];
  capabilityUpdates?: readonly CapabilitySnapshot[];
  cards?: readonly CardRecord[];
}

export type Rule = (input: RuleInput) => RuleOutput;

export interface NamedRule {
  /** A stable identifier, e.g. "R1" or "R6-restart", so a custom rule set can replace one rule. */
  id: string;
  apply: Rule;
}

export const noDecisions: readonly DecisionDraft[] = [];

/** A default/1 rule in the one output shape. */
export function decisionsOnly(rule: (input: RuleInput) => readonly DecisionDraft[]): Rule {
  return (input) => ({ decisions: rule(input), capabilityUpdates: [], cards: [] });
}

export function partial(rule: (input: RuleInput) => PartialOutput): Rule {
  return (input) => {
    const o = rule(input);
    return { decisions: o.decisions ?? [], capabilityUpdates: o.capabilityUpdates ?? [], cards: o.cards ?? [] };
  };
}
