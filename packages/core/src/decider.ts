/**
 * The decider, in Emmett's shape: initialState, evolve, decide — plus `step`, what the reconciler runs
 * per observation of a partition. Per-correlation state is separate from the global capability table:
 * `step` reads the table through `ctx.capabilities` and returns the capability updates it derived
 * instead of writing them, so the caller publishes/applies them (see `applyCapabilityUpdates`).
 */
import type { CapabilitySnapshot, Decision, Observation } from "@a2a-ledger/schemas";
import { withUpdates, type CapabilityTable, type CapabilityView, type CardRecord } from "./capabilities.ts";
import { initialCorrelationState, type CorrelationState } from "./correlation-state.ts";
import { finalizeDecisions, type DecisionDraft } from "./decisions.ts";
import { evolve } from "./evolve.ts";
import type { PolicyConfig } from "./policy.ts";
import type { RuleOutput, RuleSet } from "./rules/rule.ts";

export interface DecideContext {
  capabilities: CapabilityView;
  policy: PolicyConfig;
}

export interface Decided {
  decisions: Decision[];
  /** New capability snapshots (publish to a2a.capabilities.v1, apply to the table). */
  capabilityUpdates: CapabilitySnapshot[];
  /** Card texts and max-ages seen (kept beside the table for R8 diffs and ages). */
  cards: CardRecord[];
}

export interface StepResult extends Decided {
  correlationState: CorrelationState;
}

export interface Decider {
  rulesVersion: string;
  ruleSet: RuleSet;
  initialState(): CorrelationState;
  evolve(state: CorrelationState, event: Observation | Decision): CorrelationState;
  /** The decisions one observation causes; empty for an eventId the correlation already saw. */
  decide(ctx: DecideContext, state: CorrelationState, observation: Observation): Decided;
  /** decide, then fold the observation and its decisions into the correlation state. */
  step(ctx: DecideContext, state: CorrelationState, observation: Observation): StepResult;
}

const nothing = (): Decided => ({ decisions: [], capabilityUpdates: [], cards: [] });

function normalizeOutput(out: RuleOutput | readonly DecisionDraft[]): RuleOutput {
  return Array.isArray(out) ? { decisions: out as readonly DecisionDraft[] } : (out as RuleOutput);
}

export function createDecider(ruleSet: RuleSet): Decider {
  const decide = (ctx: DecideContext, before: CorrelationState, observation: Observation): Decided => {
    if (before.seenEventIds.includes(observation.eventId)) return nothing();
    const state = evolve(before, observation);
    const drafts: DecisionDraft[] = [];
    const capabilityUpdates: CapabilitySnapshot[] = [];
    const cards: CardRecord[] = [];
    for (const rule of ruleSet.rules) {
      const out = normalizeOutput(
        rule.apply({
          observation,
          before,
          state,
          priorCapabilities: ctx.capabilities,
          capabilities: withUpdates(ctx.capabilities, capabilityUpdates, cards),
          policy: ctx.policy,
          emitted: drafts,
        }),
      );
      if (out.decisions) drafts.push(...out.decisions);
      if (out.capabilityUpdates) capabilityUpdates.push(...out.capabilityUpdates);
      if (out.cards) cards.push(...out.cards);
    }
    return { decisions: finalizeDecisions(observation, drafts, ruleSet.rulesVersion), capabilityUpdates, cards };
  };

  return {
    rulesVersion: ruleSet.rulesVersion,
    ruleSet,
    initialState: initialCorrelationState,
    evolve,
    decide,
    step(ctx, state, observation) {
      const decided = decide(ctx, state, observation);
      if (state.seenEventIds.includes(observation.eventId)) return { ...decided, correlationState: state };
      let next = evolve(state, observation);
      for (const d of decided.decisions) next = evolve(next, d);
      return { ...decided, correlationState: next };
    },
  };
}

/** Applies what a step derived to the table the next steps read. */
export function applyCapabilityUpdates(table: CapabilityTable, result: Pick<Decided, "capabilityUpdates" | "cards">): void {
  for (const c of result.cards) table.rememberCard(c);
  for (const s of result.capabilityUpdates) table.apply(s);
}
