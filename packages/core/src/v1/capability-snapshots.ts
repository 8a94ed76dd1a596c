/**
 * Deriving capability snapshots from observations: a card fetch gives A(W) (unverified), a probe of the
 * card in force gives V(W), a parked canary lost on restart revokes the interrupted states from V(W) (R9).
 */
import type { CapabilitySnapshot, Observation, ProbeCompleted, TaskState } from "@a2a-ledger/schemas";
import { snapshotOfCard } from "../verification.ts";
import type { CapabilityView, CardRecord } from "../capabilities.ts";
import { isInterrupted, sortStates } from "../task-state.ts";

function mergeDurable(a: boolean | null, b: boolean | null): boolean | null {
  if (a === false || b === false) return false;
  if (a === true || b === true) return true;
  return null;
}

/**
 * V(W) after a probe of `current`'s card: states both reached and re-observed by a fresh client,
 * media types actually emitted, durability. Several probes of one card (one per skill) accumulate.
 * A probe that saw tasks not survive a restart (durable=false) verifies no interrupted state.
 */
export function snapshotFromProbe(current: CapabilitySnapshot, probe: ProbeCompleted): CapabilitySnapshot {
  const reobservable = new Set(probe.reobservable);
  const reached = probe.statesObserved.filter((s) => reobservable.has(s));
  const durable = mergeDurable(current.verified ? current.durable : null, probe.durable);
  let states: TaskState[] = sortStates([...(current.verified ? current.verifiedStates : []), ...reached]);
  if (durable === false) states = states.filter((s) => !isInterrupted(s));
  const modes = [...new Set([...(current.verified ? current.verifiedOutputModes : []), ...probe.emittedModes])].sort();
  return {
    ...current,
    validFrom: probe.occurredAt,
    causeEventId: probe.eventId,
    verified: true,
    verifiedStates: states,
    verifiedOutputModes: modes,
    durable,
  };
}

/** R9: a parked canary was lost, so the worker does not keep interrupted tasks. */
export function snapshotRevokingInterrupted(
  current: CapabilitySnapshot,
  cause: { eventId: string; occurredAt: number },
): CapabilitySnapshot {
  return {
    ...current,
    validFrom: cause.occurredAt,
    causeEventId: cause.eventId,
    verifiedStates: current.verifiedStates.filter((s) => !isInterrupted(s)),
    durable: false,
  };
}

export interface DerivedCapabilities {
  snapshots: CapabilitySnapshot[];
  cards: CardRecord[];
}

/**
 * The capability snapshots a card or probe observation adds to the table (empty for other observations):
 * a card whose hash differs from the card in force opens a new unverified snapshot; a probe of the card
 * in force verifies it. A probe of any other card (stale, or before its card was seen) changes nothing.
 */
export function deriveCapabilities(view: CapabilityView, obs: Observation): DerivedCapabilities {
  if (obs.type === "AgentCardObserved") {
    const record: CardRecord = {
      cardHash: obs.cardHash,
      cardUrl: obs.cardUrl,
      card: obs.card,
      cacheMaxAgeSeconds: obs.cacheMaxAgeSeconds,
    };
    const current = view.asOf(obs.workerId, obs.occurredAt);
    if (current !== undefined && current.cardHash === obs.cardHash) return { snapshots: [], cards: [record] };
    return { snapshots: [snapshotOfCard(obs)], cards: [record] };
  }
  if (obs.type === "ProbeCompleted") {
    const current = view.asOf(obs.workerId, obs.occurredAt);
    if (current === undefined || current.cardHash !== obs.cardHash) return { snapshots: [], cards: [] };
    return { snapshots: [snapshotFromProbe(current, obs)], cards: [] };
  }
  return { snapshots: [], cards: [] };
}
