/** The correlation/2 state model for the engine: rules see the state before the observation; the fold updates it in place. */
import type { DecisionDraft } from "../decisions.ts";
import type { StateModel } from "../state-model.ts";
import type { RuleInput } from "../rules/rule.ts";
import { decodeState, encodeState } from "./codec.ts";
import { evolve, evolveDecision, evolveObservation, isDuplicate } from "./evolve.ts";
import { type CorrelationState, cloneState, initialState, latestAttempt, taskOf } from "./state.ts";

export const correlationModel: StateModel<CorrelationState, RuleInput> = {
  owns: (state): state is CorrelationState => "model" in state && state.model === 2,
  initialState,
  isDuplicate,
  lossAgain(state, observation) {
    if (observation.type !== "TaskNotFoundObserved") return false;
    const task = taskOf(state, observation.workerId, observation.serverTaskId);
    // A copy of the loss itself is older than the sighting that came after it.
    return (
      task !== undefined &&
      !task.lost &&
      !task.terminal &&
      task.last !== null &&
      task.last.occurredAt < observation.occurredAt
    );
  },
  input(state, observation, ctx, emitted: readonly DecisionDraft[], previous) {
    if (previous === undefined)
      return {
        observation,
        state,
        priorCapabilities: ctx.capabilities,
        capabilities: ctx.capabilities,
        policy: ctx.policy,
        emitted,
      };
    previous.observation = observation;
    previous.state = state;
    previous.priorCapabilities = ctx.capabilities;
    previous.capabilities = ctx.capabilities;
    previous.policy = ctx.policy;
    previous.emitted = emitted;
    return previous;
  },
  commit(state, _input, observation, decisions) {
    evolveObservation(state, observation);
    for (const d of decisions) evolveDecision(state, d);
    return state;
  },
  apply(state, decisions) {
    for (const d of decisions) evolveDecision(state, d);
    return state;
  },
  evolve,
  blockExamined: (state, asOf) => evolve(state, { type: "BlockExamined", asOf }),
  fallbackSpent: (state) => evolve(state, { type: "FallbackSpent" }),
  isBlocked: (state) => state.status === "blocked",
  seenAgain(state, observation) {
    if (state.lastEventAt === null || observation.occurredAt > state.lastEventAt) {
      state.lastEventAt = observation.occurredAt;
      state.lastEventId = observation.eventId;
    }
    return state;
  },
  activity: (state) =>
    state.lastEventAt === null
      ? undefined
      : {
          correlationId: state.correlationId ?? "",
          lastEventAt: state.lastEventAt,
          lastEventId: state.lastEventId,
          // An outcome, or nothing ever dispatched (a card fetch's or a probe's own correlation): no work to watch.
          finished:
            state.status === "terminal" ||
            state.status === "failed" ||
            state.status === "reconciled" ||
            state.attempts.length === 0,
          status: state.status,
          workerId: latestAttempt(state)?.workerId ?? null,
          fallbackAt: state.status === "blocked" ? state.fallbackAt : null,
        },
  correlationIdOf: (state) => state.correlationId ?? "",
  clone: cloneState,
  serialize: encodeState,
  deserialize: decodeState,
};
