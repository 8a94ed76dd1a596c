/**
 * One transaction's worth of work for one input partition, without I/O: observations in, the records
 * to write out. State changes are returned, not applied, so an aborted transaction leaves the
 * partition's state as it was.
 */
import { type CapabilityView, type CardRecord, type CorrelationState, type Decider, type PolicyConfig, serializeCorrelationState, withUpdates } from "@a2a-ledger/core";
import type { CapabilitySnapshot, Decision, Observation } from "@a2a-ledger/schemas";
import { PoisonRecordError } from "./errors.ts";

export type BatchItem = { offset: string; observation: Observation } | { offset: string; poison: PoisonRecordError };

export interface BatchOutcome {
  decisions: Decision[];
  /** RedispatchCommanded and ProbeRequested: the dispatcher's work. */
  commands: Decision[];
  capabilityUpdates: CapabilitySnapshot[];
  cards: CardRecord[];
  /** New state of every correlation the batch touched, with its changelog value. */
  states: Map<string, { state: CorrelationState; serialized: string }>;
  /** Offsets of the items that go to the dead-letter topic, with why. */
  poison: { offset: string; error: PoisonRecordError }[];
}

export const isCommand = (d: Decision) => d.type === "RedispatchCommanded" || d.type === "ProbeRequested";

export function processBatch(
  items: readonly BatchItem[],
  deps: { decider: Decider; policy: PolicyConfig; capabilities: CapabilityView; stateOf: (correlationId: string) => CorrelationState | undefined },
): BatchOutcome {
  const out: BatchOutcome = { decisions: [], commands: [], capabilityUpdates: [], cards: [], states: new Map(), poison: [] };
  const touched = new Map<string, CorrelationState>();
  for (const item of items) {
    if ("poison" in item) {
      out.poison.push({ offset: item.offset, error: item.poison });
      continue;
    }
    const { observation } = item;
    const before = touched.get(observation.correlationId) ?? deps.stateOf(observation.correlationId) ?? deps.decider.initialState();
    const capabilities = withUpdates(deps.capabilities, out.capabilityUpdates, out.cards);
    let result: ReturnType<Decider["step"]>;
    try {
      result = deps.decider.step({ capabilities, policy: deps.policy }, before, observation);
    } catch (error) {
      out.poison.push({ offset: item.offset, error: new PoisonRecordError("RECONCILER_RULES_REJECTED", (error as Error).message ?? String(error)) });
      continue;
    }
    touched.set(observation.correlationId, result.correlationState);
    out.capabilityUpdates.push(...result.capabilityUpdates);
    out.cards.push(...result.cards);
    for (const decision of result.decisions) {
      out.decisions.push(decision);
      if (isCommand(decision)) out.commands.push(decision);
    }
  }
  for (const [correlationId, state] of touched) out.states.set(correlationId, { state, serialized: serializeCorrelationState(state) });
  return out;
}
