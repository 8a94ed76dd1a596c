/**
 * One transaction's worth of work for one input partition, without I/O: the partition ledger's fold
 * (`PartitionLedger.foldPending` of the core) over the decodable observations, poison passed through.
 * State changes are returned, not applied: the caller commits them to the ledger (`folded`) once its
 * transaction committed, or drops the ledger.
 */
import {
  type CapabilityView,
  type CardRecord,
  type Decider,
  type LedgerFold,
  type LedgerState,
  type PartitionLedger,
  type PolicySource,
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
  /** The ledger's pending fold: `ledger.commit(folded)` after the transaction committed. */
  folded: LedgerFold;
}

export const isCommand = (d: Decision) => d.type === "RedispatchCommanded" || d.type === "ProbeRequested";

export function processBatch(
  items: readonly BatchItem[],
  deps: {
    decider: Decider;
    /** The partition's ledger: its states, blocked correlations and retention. */
    ledger: PartitionLedger;
    policy: PolicySource;
    capabilities: CapabilityView;
    /** Re-examine the partition's blocked correlations first (`ledger.recheckDue`). */
    recheck?: boolean;
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
  const folded = deps.ledger.foldPending(
    { policy: deps.policy, capabilities: deps.capabilities, recheck: deps.recheck === true },
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
  // The ledger's fold holds only the correlations the batch advanced (see LedgerFold).
  const states: BatchOutcome["states"] = new Map();
  for (const [correlationId, state] of folded.states)
    states.set(correlationId, { state, serialized: deps.decider.serialize(state) });
  poison.sort((a, b) => (BigInt(a.offset) < BigInt(b.offset) ? -1 : 1));
  return {
    decisions: folded.decisions,
    commands: folded.decisions.filter(isCommand),
    capabilityUpdates: folded.capabilityUpdates,
    cards: folded.cards,
    states,
    expired: folded.expired,
    poison,
    folded,
  };
}
