/** The frozen correlation/1 state model (default/1): immutable states, rules see the state before and after the observation. */
import type { StateModel } from "../state-model.ts";
import {
  type CorrelationState,
  deserializeCorrelationState,
  initialCorrelationState,
  serializeCorrelationState,
} from "./correlation-state.ts";
import { evolve } from "./evolve.ts";
import type { RuleInput } from "./rules/rule.ts";

const encoder = new TextEncoder();
const decoder = new TextDecoder();

export const v1Model: StateModel<CorrelationState, RuleInput> = {
  owns: (state): state is CorrelationState => "version" in state && state.version === 1,
  initialState: initialCorrelationState,
  isDuplicate: (state, eventId) => state.seenEventIds.includes(eventId),
  input: (before, observation, ctx, emitted) => ({
    observation,
    before,
    state: evolve(before, observation),
    priorCapabilities: ctx.capabilities,
    capabilities: ctx.capabilities,
    policy: ctx.policy,
    emitted,
  }),
  commit(_before, input, _observation, decisions) {
    let next = input.state;
    for (const d of decisions) next = evolve(next, d);
    return next;
  },
  apply(state, decisions) {
    let next = state;
    for (const d of decisions) next = evolve(next, d);
    return next;
  },
  evolve,
  // default/1 does not re-examine blocked correlations.
  isBlocked: () => false,
  correlationIdOf: (state) => state.correlationId ?? "",
  // States are never mutated: sharing them is safe.
  clone: (state) => state,
  serialize: (state) => encoder.encode(serializeCorrelationState(state)),
  deserialize: (bytes) => deserializeCorrelationState(decoder.decode(bytes)),
};
