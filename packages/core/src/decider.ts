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
import type { RuleInput, RuleOutput, RuleSet } from "./rules/rule.ts";

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

export function createDecider(ruleSet: RuleSet): Decider {
  const rules = ruleSet.rules;
  /** The decisions plus the correlation state with the observation folded in (decisions not yet). */
  const run = (ctx: DecideContext, before: CorrelationState, observation: Observation): Decided & { state: CorrelationState } => {
    const state = evolve(before, observation);
    const drafts: DecisionDraft[] = [];
    const capabilityUpdates: CapabilitySnapshot[] = [];
    const cards: CardRecord[] = [];
    const input: RuleInput = { observation, before, state, priorCapabilities: ctx.capabilities, capabilities: ctx.capabilities, policy: ctx.policy, emitted: drafts };
    for (const rule of rules) {
      const out = rule.apply(input);
      if (Array.isArray(out)) {
        for (const d of out as readonly DecisionDraft[]) drafts.push(d);
        continue;
      }
      const o = out as RuleOutput;
      if (o.decisions) for (const d of o.decisions) drafts.push(d);
      if ((o.capabilityUpdates && o.capabilityUpdates.length > 0) || (o.cards && o.cards.length > 0)) {
        if (o.capabilityUpdates) capabilityUpdates.push(...o.capabilityUpdates);
        if (o.cards) cards.push(...o.cards);
        input.capabilities = withUpdates(ctx.capabilities, capabilityUpdates, cards);
      }
    }
    return { decisions: drafts.length === 0 ? [] : finalizeDecisions(observation, drafts, ruleSet.rulesVersion), capabilityUpdates, cards, state };
  };

  return {
    rulesVersion: ruleSet.rulesVersion,
    ruleSet,
    initialState: initialCorrelationState,
    evolve,
    decide(ctx, state, observation) {
      if (state.seenEventIds.includes(observation.eventId)) return nothing();
      const { state: _folded, ...decided } = run(ctx, state, observation);
      return decided;
    },
    step(ctx, state, observation) {
      if (state.seenEventIds.includes(observation.eventId)) return { ...nothing(), correlationState: state };
      const { state: folded, ...decided } = run(ctx, state, observation);
      let next = folded;
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
