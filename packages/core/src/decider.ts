/**
 * The decider, in Emmett's shape — initialState, decide, evolve — run as `step`: the decisions one
 * observation causes, with the correlation state advanced past the observation and those decisions.
 * One engine runs every rule set; the rule set's model says how its state is kept (correlation/2 for
 * default/2, correlation/1 for default/1). Per-correlation state is opaque outside the core.
 * The capability table is read through `ctx.capabilities`; the snapshots a step derives are returned,
 * not written, so the caller publishes and applies them.
 */
import {
  type CapabilitySnapshot,
  type Decision,
  type Observation,
  type ObservationType,
  observationTypes,
} from "@a2a-ledger/schemas";
import { CapabilityLayer, type CapabilityView, type CardRecord } from "./capabilities.ts";
import { correlationModel } from "./correlation/model.ts";
import { finalizeDecisions, type DecisionDraft } from "./decisions.ts";
import type { Activity } from "./retention.ts";
import type { RuleSet } from "./rule-set.ts";
import type { RuleOutput } from "./rules/rule.ts";
import { checkRuleOrder } from "./rules/rule-order.ts";
import type { DecideContext, LedgerState, StateModel } from "./state-model.ts";
import { v1Model } from "./v1/model.ts";

export type { DecideContext, LedgerState } from "./state-model.ts";

/** A state handed to a decider of another model. */
export class StateModelError extends Error {
  override name = "StateModelError";
}

export interface Decided {
  decisions: readonly Decision[];
  /** New capability snapshots (publish to a2a.capabilities.v1, apply to the table). */
  capabilityUpdates: readonly CapabilitySnapshot[];
  /** Card texts and max-ages seen (kept beside the table for R8 diffs and ages). */
  cards: readonly CardRecord[];
}

export interface StepResult extends Decided {
  /** The state after the step. It may be the given state object, updated in place: keep using the returned one. */
  state: LedgerState;
}

export interface Decider {
  rulesVersion: string;
  ruleSet: RuleSet;
  initialState(): LedgerState;
  /**
   * What the rules decide on `observation`, given the correlation's state before it: the decisions, and
   * the capability snapshots and cards derived (nothing for an eventId the correlation already saw).
   * The state is not changed.
   */
  decide(ctx: DecideContext, state: LedgerState, observation: Observation): Decided;
  /**
   * The state after one event: an observation, or a decision taken on it. The only way a state changes;
   * it may change the given state in place (default/2's model does, for speed): keep using the returned one.
   */
  evolve(state: LedgerState, event: Observation | Decision): LedgerState;
  /**
   * decide, then evolve by the observation and by each decision taken on it, in that order: no decisions
   * for an eventId the correlation already saw, and no change but its last event's time (retention).
   */
  step(ctx: DecideContext, state: LedgerState, observation: Observation): StepResult;
  /**
   * A blocked correlation re-examined against the capabilities (see R6's recoverBlocked): the re-dispatch
   * it now gets, with the state advanced past it; no decisions when it is not blocked or still has no worker.
   * `trigger`: the correlation's own observation just stepped, when it (not a capability change) asks.
   */
  reexamine(ctx: DecideContext, state: LedgerState, trigger?: Observation): StepResult;
  /**
   * A blocked correlation whose fallback the stream time passed at `at` (default/4, rules/fallback.ts):
   * the restart from scratch it gets (or the block saying none is possible), with the state advanced past
   * it; no decisions and the fallback spent when its loss no longer stands; unchanged when none is pending.
   */
  fallBack(ctx: DecideContext, state: LedgerState, at: number): StepResult;
  /** Whether the correlation waits for a worker to become eligible (what `reexamine` may change). */
  isBlocked(state: LedgerState): boolean;
  /** What retention reads of the state; undefined when it never expires (no event yet, or a model that keeps all). */
  activity(state: LedgerState): Activity | undefined;
  /** A copy that later steps on the original do not affect. */
  clone(state: LedgerState): LedgerState;
  serialize(state: LedgerState): Uint8Array;
  /** Reads a changelog value; throws on bytes that are not a state of this decider's model (or one it migrates). */
  deserialize(bytes: Uint8Array): LedgerState;
}

type EngineRule<I> = { on?: readonly ObservationType[]; apply(input: I): RuleOutput };

/** The rules that decide on each observation type, in rule-set order. */
function rulesByType<I>(rules: readonly EngineRule<I>[]): Map<ObservationType, EngineRule<I>[]> {
  return new Map(
    observationTypes.map((type) => [type, rules.filter((r) => r.on === undefined || r.on.includes(type))]),
  );
}

/** A re-examination's outcome: a decision, the block examined as of a time (a fact `evolve` applies), or nothing. */
type Recover<S> = (
  state: S,
  capabilities: CapabilityView,
  trigger?: Observation,
) =>
  | { cause: { eventId: string; occurredAt: number }; decision: DecisionDraft }
  | { stillBlockedAsOf: number }
  | undefined;

/** A due fallback's outcome: a decision, the fallback spent (a fact `evolve` applies), or nothing pending. */
type FallBack<S> = (
  state: S,
  capabilities: CapabilityView,
  at: number,
) => { cause: { eventId: string; occurredAt: number }; decision: DecisionDraft } | { spent: true } | undefined;

function engine<S extends LedgerState, I extends { capabilities: CapabilityView }>(
  ruleSet: RuleSet,
  rules: readonly EngineRule<I>[],
  model: StateModel<S, I>,
  recover: Recover<S> | undefined,
  fallback: FallBack<S> | undefined = undefined,
): Decider {
  const byType = rulesByType(rules);
  const lossAgain =
    ruleSet.model === "correlation/2" && ruleSet.lossesAfterSighting === true ? model.lossAgain : undefined;
  /** An observation already folded: its eventId is remembered (and it is not a task's next loss, where the rule set asks). */
  const duplicate = (state: S, observation: Observation): boolean =>
    model.isDuplicate(state, observation.eventId) && !(lossAgain?.(state, observation) ?? false);
  // One rule input and one drafts array serve every decision in turn (steps are synchronous, rules keep neither).
  let previous: I | undefined;
  const drafts: DecisionDraft[] = [];
  // Shared by every step that derives nothing; frozen, so a caller that writes to it fails loudly.
  const none: readonly never[] = Object.freeze([]);
  const own = (state: LedgerState): S => {
    if (!model.owns(state))
      throw new StateModelError(
        `rules ${ruleSet.rulesVersion} (model ${ruleSet.model}) were given a state of another model`,
      );
    return state;
  };
  // What the last `decideOn` derived besides its decisions, read by its caller right after it (steps are
  // synchronous): kept here rather than returned in one more object per observation.
  let derivedUpdates: readonly CapabilitySnapshot[] = none;
  let derivedCards: readonly CardRecord[] = none;
  let decidedInput: I | undefined;
  /**
   * The rules on one observation: its decisions, with the snapshots and cards derived in `derivedUpdates`
   * and `derivedCards`, and what the rules saw in `decidedInput` (which `commit` may reuse: default/1's evolved state).
   */
  const decideOn = (ctx: DecideContext, state: S, observation: Observation): readonly Decision[] => {
    if (drafts.length !== 0) drafts.length = 0;
    let updates: readonly CapabilitySnapshot[] = none;
    let cards: readonly CardRecord[] = none;
    let layer: CapabilityLayer | undefined;
    const input = model.input(state, observation, ctx, drafts, previous);
    previous = input;
    for (const rule of byType.get(observation.type) ?? rules) {
      const out = rule.apply(input);
      for (const d of out.decisions) drafts.push(d);
      if (out.capabilityUpdates.length === 0 && out.cards.length === 0) continue;
      if (layer === undefined) {
        layer = new CapabilityLayer(ctx.capabilities);
        input.capabilities = layer;
      }
      for (const c of out.cards) layer.rememberCard(c);
      for (const s of out.capabilityUpdates) layer.apply(s);
      cards = [...cards, ...out.cards];
      updates = [...updates, ...out.capabilityUpdates];
    }
    derivedUpdates = updates;
    derivedCards = cards;
    decidedInput = input;
    return drafts.length === 0 ? none : finalizeDecisions(observation, drafts, ruleSet.rulesVersion);
  };
  return {
    rulesVersion: ruleSet.rulesVersion,
    ruleSet,
    initialState: () => model.initialState(),
    clone: (state) => model.clone(own(state)),
    serialize: (state) => model.serialize(own(state)),
    deserialize: (bytes) => model.deserialize(bytes),
    isBlocked: (state) => model.isBlocked(own(state)),
    activity: (state) => model.activity?.(own(state)),
    reexamine(ctx, given, trigger) {
      const state = own(given);
      const found = recover?.(state, ctx.capabilities, trigger);
      if (found === undefined) return { decisions: none, capabilityUpdates: none, cards: none, state };
      if ("stillBlockedAsOf" in found) {
        // Nothing lifted: the block stands examined as of the observation the state now holds (see recoverBlocked).
        const examined = model.blockExamined === undefined ? state : model.blockExamined(state, found.stillBlockedAsOf);
        return { decisions: none, capabilityUpdates: none, cards: none, state: examined };
      }
      const correlationId = model.correlationIdOf(state);
      const decisions = finalizeDecisions(
        { ...found.cause, correlationId },
        [found.decision],
        ruleSet.rulesVersion,
        () => correlationId,
      );
      return { decisions, capabilityUpdates: none, cards: none, state: model.apply(state, decisions) };
    },
    fallBack(ctx, given, at) {
      const state = own(given);
      // Nothing to restart (or a rule set without fallbacks reading a state that names one): spent, so the
      // correlation is due again only at its expiry.
      const found = fallback?.(state, ctx.capabilities, at) ?? { spent: true as const };
      if ("spent" in found) {
        const spent = model.fallbackSpent === undefined ? state : model.fallbackSpent(state);
        return { decisions: none, capabilityUpdates: none, cards: none, state: spent };
      }
      const correlationId = model.correlationIdOf(state);
      // Named apart from the block and any re-examination of the same loss: one fallback per loss.
      const decisions = finalizeDecisions(
        { ...found.cause, correlationId },
        [found.decision],
        ruleSet.rulesVersion,
        () => "fallback",
      );
      return { decisions, capabilityUpdates: none, cards: none, state: model.apply(state, decisions) };
    },
    decide(ctx, given, observation) {
      const state = own(given);
      if (duplicate(state, observation)) return { decisions: none, capabilityUpdates: none, cards: none };
      const decisions = decideOn(ctx, state, observation);
      return { decisions, capabilityUpdates: derivedUpdates, cards: derivedCards };
    },
    evolve: (state, event) => model.evolve(own(state), event),
    step(ctx, given, observation) {
      const state = own(given);
      if (duplicate(state, observation))
        return {
          decisions: none,
          capabilityUpdates: none,
          cards: none,
          state: model.seenAgain === undefined ? state : model.seenAgain(state, observation),
        };
      const decisions = decideOn(ctx, state, observation);
      return {
        decisions,
        capabilityUpdates: derivedUpdates,
        cards: derivedCards,
        state: model.commit(state, decidedInput as I, observation, decisions),
      };
    },
  };
}

export function createDecider(ruleSet: RuleSet): Decider {
  if (ruleSet.model === "correlation/1") return engine(ruleSet, ruleSet.rules, v1Model, undefined);
  // The declared rule order holds for every rule set, shipped or custom, before it decides anything.
  checkRuleOrder(ruleSet.rulesVersion, ruleSet.rules);
  const recover = ruleSet.recover;
  const fallback = ruleSet.fallback;
  return engine(
    ruleSet,
    ruleSet.rules,
    correlationModel,
    recover === undefined
      ? undefined
      : (state, capabilities, trigger) =>
          recover({ state, capabilities, ...(trigger !== undefined ? { trigger } : {}) }),
    fallback === undefined ? undefined : (state, capabilities, at) => fallback({ state, capabilities, at }),
  );
}
