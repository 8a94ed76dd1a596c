/**
 * One transaction's worth of work for one input partition, without I/O: the core's one fold
 * (`foldBatch`) over the decodable observations, poison passed through. State changes are returned,
 * not applied, so an aborted transaction leaves the partition's state as it was.
 */
import {
  type CapabilityView,
  type CardRecord,
  type Decider,
  foldBatch,
  type LedgerState,
  type PolicySource,
  type StreamRetention,
} from "@a2a-ledger/core";
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
  states: Map<string, { state: LedgerState; serialized: Uint8Array }>;
  /** Correlations that left the state by retention (a changelog tombstone each). */
  expired: Set<string>;
  /** Offsets of the items that go to the dead-letter topic, with why. */
  poison: { offset: string; error: PoisonRecordError }[];
}

export const isCommand = (d: Decision) => d.type === "RedispatchCommanded" || d.type === "ProbeRequested";

export function processBatch(
  items: readonly BatchItem[],
  deps: {
    decider: Decider;
    policy: PolicySource;
    capabilities: CapabilityView;
    stateOf: (correlationId: string) => LedgerState | undefined;
    blocked?: Iterable<string>;
    recheck?: boolean;
    /** The partition's retention; the fold advances it (rebuild it with the states if the batch is not committed). */
    retention?: StreamRetention;
  },
): BatchOutcome {
  const observations: Observation[] = [];
  const offsets: string[] = [];
  const poison: BatchOutcome["poison"] = [];
  for (const item of items) {
    if ("poison" in item) poison.push({ offset: item.offset, error: item.poison });
    else {
      observations.push(item.observation);
      offsets.push(item.offset);
    }
  }
  const folded = foldBatch(
    {
      decider: deps.decider,
      policy: deps.policy,
      capabilities: deps.capabilities,
      stateOf: deps.stateOf,
      blocked: deps.blocked,
      recheck: deps.recheck,
      ...(deps.retention === undefined ? {} : { retention: deps.retention }),
    },
    observations,
  );
  for (const r of folded.rejected)
    poison.push({
      offset: offsets[r.index] as string,
      error: new PoisonRecordError("RECONCILER_RULES_REJECTED", r.error.message),
    });
  for (const l of folded.late)
    poison.push({
      offset: offsets[l.index] as string,
      error: new PoisonRecordError(
        "RECONCILER_OBSERVATION_TOO_LATE",
        `occurredAt ${new Date(l.observation.occurredAt).toISOString()}, correlation ${l.observation.correlationId}`,
      ),
    });
  // A correlation whose every observation in this batch was rejected (or too late) keeps its stored state.
  const rejected = new Set([...folded.rejected, ...folded.late].map((r) => r.index));
  const advanced = new Set(observations.filter((_, i) => !rejected.has(i)).map((o) => o.correlationId));
  for (const d of folded.decisions) advanced.add(d.correlationId);
  const states: BatchOutcome["states"] = new Map();
  for (const [correlationId, state] of folded.states)
    if (advanced.has(correlationId)) states.set(correlationId, { state, serialized: deps.decider.serialize(state) });
  poison.sort((a, b) => (BigInt(a.offset) < BigInt(b.offset) ? -1 : 1));
  return {
    decisions: folded.decisions,
    commands: folded.decisions.filter(isCommand),
    capabilityUpdates: folded.capabilityUpdates,
    cards: folded.cards,
    states,
    expired: folded.expired,
    poison,
  };
}
