/**
 * A(W) and V(W) as default/2 keeps them. A card fetch opens an unverified snapshot of that card; a
 * probe of the card in force verifies *one skill* of it (V is per card and skill: a probe of skill X
 * verifies nothing about skill Y); a parked canary lost after a restart revokes the interrupted states
 * of every skill and marks the card not durable (R9). A probe that verifies nothing new changes nothing,
 * so repeated probes do not grow the table. The flat `verifiedStates`/`verifiedOutputModes` of a
 * snapshot stay the union over its skills.
 */
import type {
  AgentCardObserved,
  CapabilitySnapshot,
  Observation,
  ProbeCompleted,
  TaskState,
  VerifiedSkill,
} from "@a2a-ledger/schemas";
import type { CardRecord, CapabilityView } from "./capabilities.ts";
import { interpretCard } from "./card.ts";
import type { PolicyConfig, Policy } from "./policy.ts";
import { isInterrupted, sortStates } from "./task-state.ts";

/**
 * V of one skill of the card in force; undefined when no probe verified that skill. A snapshot verified
 * before V was kept per skill (written by default/1: verified, no skills) counts for every skill until
 * the card is probed again.
 */
export function verifiedSkill(snap: CapabilitySnapshot, skillId: string | null): VerifiedSkill | undefined {
  for (const s of snap.verifiedSkills) if (s.skillId === skillId) return s;
  if (snap.verified && snap.verifiedSkills.length === 0)
    return { skillId, states: snap.verifiedStates, outputModes: snap.verifiedOutputModes };
  return undefined;
}

/** Whether the card in force lists the skill (a dispatch without a skill uses the card's defaults). */
export function cardOffersSkill(snap: CapabilitySnapshot, skillId: string | null): boolean {
  if (skillId === null) return true;
  for (const s of snap.advertisedOutputModes) if (s.skillId === skillId) return true;
  return false;
}

/**
 * Trust or verify, with the ledger's own evidence: a listed vendor whose card claims a durable task
 * store is trusted, unless this card was shown not to be durable (a lost canary, or a probe that saw
 * tasks lost on restart): then it is under verify, whatever the list says.
 */
export function policyOf(config: PolicyConfig, snap: CapabilitySnapshot | undefined): Policy {
  if (snap === undefined || snap.vendor === null || snap.taskStore !== "durable" || snap.durable === false)
    return "verify";
  return config.trustedVendors.includes(snap.vendor) ? "trust" : "verify";
}

function parseCardText(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

/** A(W) from a card fetch, verified in nothing yet. */
export function snapshotOfCard(obs: AgentCardObserved): CapabilitySnapshot {
  const a = interpretCard(parseCardText(obs.card));
  return {
    workerId: obs.workerId,
    validFrom: obs.occurredAt,
    causeEventId: obs.eventId,
    cardHash: obs.cardHash,
    vendor: a.vendor,
    taskStore: a.taskStore,
    advertisedStates: a.states,
    advertisedOutputModes: a.skills,
    defaultOutputModes: a.defaultOutputModes,
    verified: false,
    verifiedStates: [],
    verifiedOutputModes: [],
    durable: null,
    cardUrl: obs.cardUrl,
    card: obs.card,
    cacheMaxAgeSeconds: obs.cacheMaxAgeSeconds,
    verifiedSkills: [],
    signature: obs.signature,
  };
}

const union = (a: readonly string[], b: readonly string[]): string[] => [...new Set([...a, ...b])].sort();

function mergeDurable(a: boolean | null, b: boolean | null): boolean | null {
  if (a === false || b === false) return false;
  if (a === true || b === true) return true;
  return null;
}

function withSkills(
  current: CapabilitySnapshot,
  skills: VerifiedSkill[],
  durable: boolean | null,
  cause: { eventId: string; occurredAt: number },
): CapabilitySnapshot {
  const revoked =
    durable === false ? skills.map((s) => ({ ...s, states: s.states.filter((st) => !isInterrupted(st)) })) : skills;
  let states: TaskState[] = [];
  let modes: string[] = [];
  for (const s of revoked) {
    states = [...states, ...s.states];
    modes = union(modes, s.outputModes);
  }
  return {
    ...current,
    validFrom: cause.occurredAt,
    causeEventId: cause.eventId,
    verified: current.verified || skills.length > 0,
    verifiedSkills: revoked,
    verifiedStates: sortStates(states),
    verifiedOutputModes: modes,
    durable,
  };
}

const hasInterruptedState = (skill: VerifiedSkill): boolean => skill.states.some(isInterrupted);

const sameSkills = (a: readonly VerifiedSkill[], b: readonly VerifiedSkill[]): boolean =>
  JSON.stringify(a) === JSON.stringify(b);

/** V after a probe of the card in force: the probed skill gains the states reached and re-observed and the media types emitted. */
export function snapshotOfProbe(current: CapabilitySnapshot, probe: ProbeCompleted): CapabilitySnapshot | undefined {
  const reobservable = new Set(probe.reobservable);
  const reached = probe.statesObserved.filter((s) => reobservable.has(s));
  const skills = current.verifiedSkills.map((s) => ({ ...s }));
  const existing = skills.find((s) => s.skillId === probe.skillId);
  if (existing === undefined)
    skills.push({
      skillId: probe.skillId,
      states: sortStates(reached),
      outputModes: [...new Set(probe.emittedModes)].sort(),
    });
  else {
    existing.states = sortStates([...existing.states, ...reached]);
    existing.outputModes = union(existing.outputModes, probe.emittedModes);
  }
  skills.sort((a, b) => ((a.skillId ?? "") < (b.skillId ?? "") ? -1 : (a.skillId ?? "") > (b.skillId ?? "") ? 1 : 0));
  const next = withSkills(current, skills, mergeDurable(current.durable, probe.durable), probe);
  return current.verified && next.durable === current.durable && sameSkills(next.verifiedSkills, current.verifiedSkills)
    ? undefined
    : next;
}

/** default/4's earn-back: V of the card with `skills` (its interrupted states restored), and the card durable. */
export function snapshotEarnedBack(
  current: CapabilitySnapshot,
  skills: VerifiedSkill[],
  cause: { eventId: string; occurredAt: number },
): CapabilitySnapshot {
  return withSkills(current, skills, true, cause);
}

/** R9: the card's interrupted states are revoked from every skill, and the card is not durable. */
export function snapshotRevokingInterrupted(
  current: CapabilitySnapshot,
  cause: { eventId: string; occurredAt: number },
): CapabilitySnapshot | undefined {
  // Already not durable, and no skill has an interrupted state left to revoke: nothing would change (the
  // case of every later loss under a revoked card), so no snapshot is built only to be compared away.
  if (current.durable === false && !current.verifiedSkills.some(hasInterruptedState)) return undefined;
  const next = withSkills(current, current.verifiedSkills, false, cause);
  return current.durable === false && sameSkills(next.verifiedSkills, current.verifiedSkills) ? undefined : next;
}

export interface Derived {
  snapshots: CapabilitySnapshot[];
  cards: CardRecord[];
}

const none: Derived = { snapshots: [], cards: [] };

/** What a card fetch or a probe adds to the table (nothing for other observations, or for a probe of a card not in force). */
export function derive(
  view: CapabilityView,
  obs: Extract<Observation, { type: "AgentCardObserved" | "ProbeCompleted" }>,
): Derived {
  const current = view.asOf(obs.workerId, obs.occurredAt);
  if (obs.type === "AgentCardObserved") {
    const record: CardRecord = {
      cardHash: obs.cardHash,
      cardUrl: obs.cardUrl,
      card: obs.card,
      cacheMaxAgeSeconds: obs.cacheMaxAgeSeconds,
    };
    if (current !== undefined && current.cardHash === obs.cardHash)
      return view.card(obs.cardHash) === undefined ? { snapshots: [], cards: [record] } : none;
    return { snapshots: [snapshotOfCard(obs)], cards: [record] };
  }
  if (current === undefined || current.cardHash !== obs.cardHash) return none;
  const next = snapshotOfProbe(current, obs);
  return next === undefined ? none : { snapshots: [next], cards: [] };
}
