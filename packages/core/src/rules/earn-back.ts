/**
 * default/4: a revocation can be earned back by evidence of the same strength as the one that revoked.
 *
 * R9 (a lost canary) and R9 for tasks (a lost real task) revoke a card's interrupted states and mark it
 * not durable. Two rules lead back:
 *
 * - **Re-probe** (`reprobeRevoked`, id `R7-reprobe`): while a card stands revoked, its first fetch in each
 *   period of the policy's `reprobeAfterMs` after the revocation commands a probe (ProbeRequested,
 *   reason `revoked`). The schedule is paced by the worker's card fetches (orchestrators and proxies
 *   re-fetch cards as their cache expires); a fetch is the first of its period when the correlation's
 *   previous event lies before the period began, so replay commands exactly what live commanded.
 * - **Earn back** (`earnBack`, id `R9-earn-back`): a parked canary of that card re-observed by GetTask in
 *   the interrupted state it was parked in, at least the policy's `canaryOutlivesMs` after it was parked
 *   and after the revocation, has outlived a restart of its worker (the bound is the operator's word for
 *   how often a worker restarts at least). The card becomes durable again (a new snapshot, announced with
 *   CapabilitiesVerified, `durable: true`), with the interrupted states its skills had verified before the
 *   revocation; later probes verify more as usual. Only a canary's re-observation counts, never a real
 *   task's: a canary is the prober's own task, parked to test exactly this.
 *
 * A new card and its probe return the states as before.
 */
import type { CapabilitySnapshot, TaskState, VerifiedSkill } from "@a2a-ledger/schemas";
import type { CapabilityView } from "../capabilities.ts";
import { canaryOf } from "../correlation/state.ts";
import { earnBackOf } from "../policy.ts";
import { isInterrupted, sortStates } from "../task-state.ts";
import { snapshotEarnedBack } from "../verification.ts";
import { decided, noOutput, type RuleInput, type RuleOutput } from "./rule.ts";

/** A card that stands revoked at `at`: the snapshot in force, when the revocation began, and V just before it. */
export interface Revocation {
  current: CapabilitySnapshot;
  revokedAt: number;
  /** The last snapshot of the same card before the revocation (undefined when the table no longer holds it). */
  before: CapabilitySnapshot | undefined;
}

/** The revocation of `workerId`'s card in force at `at`, if that card stands revoked (durable: false). */
export function revocationOf(view: CapabilityView, workerId: string, at: number): Revocation | undefined {
  const current = view.asOf(workerId, at);
  if (current === undefined || current.durable !== false) return undefined;
  const history = view.historyOf(workerId);
  let i = history.lastIndexOf(current);
  if (i < 0) i = history.findIndex((s) => s.validFrom === current.validFrom && s.cardHash === current.cardHash);
  let revokedAt = current.validFrom;
  let before: CapabilitySnapshot | undefined;
  for (let j = i; j >= 0; j--) {
    const s = history[j] as CapabilitySnapshot;
    if (s.cardHash !== current.cardHash) break;
    if (s.durable !== false) {
      before = s;
      break;
    }
    revokedAt = s.validFrom;
  }
  return { current, revokedAt, before };
}

/** The re-probe: a revoked card's first fetch in each period after its revocation commands a probe. */
export function reprobeRevoked(input: RuleInput): RuleOutput {
  const obs = input.observation;
  if (obs.type !== "AgentCardObserved") return noOutput;
  const revoked = revocationOf(input.priorCapabilities, obs.workerId, obs.occurredAt);
  if (revoked === undefined || revoked.current.cardHash !== obs.cardHash) return noOutput;
  const { reprobeAfterMs } = earnBackOf(input.policy);
  const period = Math.floor((obs.occurredAt - revoked.revokedAt) / reprobeAfterMs);
  if (period < 1) return noOutput;
  const periodStart = revoked.revokedAt + period * reprobeAfterMs;
  const previous = input.state.lastEventAt;
  if (previous !== null && previous >= periodStart) return noOutput;
  return decided([
    {
      type: "ProbeRequested",
      workerId: obs.workerId,
      cardHash: obs.cardHash,
      cardUrl: obs.cardUrl,
      reason: "revoked",
    },
  ]);
}

/** V of the current card with each skill's interrupted states from before the revocation restored. */
function restoredSkills(current: CapabilitySnapshot, before: CapabilitySnapshot | undefined): VerifiedSkill[] {
  const interruptedBefore = new Map<string | null, TaskState[]>();
  for (const s of before?.verifiedSkills ?? []) interruptedBefore.set(s.skillId, s.states.filter(isInterrupted));
  return current.verifiedSkills.map((s) => ({
    ...s,
    states: sortStates([...s.states, ...(interruptedBefore.get(s.skillId) ?? [])]),
  }));
}

/** The earn-back: a canary that outlived a restart makes its card durable again. */
export function earnBack(input: RuleInput): RuleOutput {
  const obs = input.observation;
  if (obs.type !== "TaskStateObserved" || obs.via !== "GET") return noOutput;
  const canary = canaryOf(input.state, obs.workerId, obs.serverTaskId);
  if (canary === undefined || canary.lost || obs.state !== canary.state) return noOutput;
  const revoked = revocationOf(input.capabilities, obs.workerId, obs.occurredAt);
  if (revoked === undefined || revoked.current.cardHash !== canary.cardHash) return noOutput;
  const { canaryOutlivesMs } = earnBackOf(input.policy);
  if (obs.occurredAt - Math.max(canary.parkedAt, revoked.revokedAt) < canaryOutlivesMs) return noOutput;
  const { current } = revoked;
  const skills = restoredSkills(current, revoked.before);
  const earned = snapshotEarnedBack(current, skills, obs);
  return {
    decisions: [
      {
        type: "CapabilitiesVerified",
        workerId: obs.workerId,
        cardHash: earned.cardHash,
        states: earned.verifiedStates,
        outputModes: skills.map((k) => ({ skillId: k.skillId ?? "*", outputModes: k.outputModes })),
        durable: true,
        skills,
        causeEventIds: [canary.probeEventId, obs.eventId],
      },
    ],
    capabilityUpdates: [earned],
    cards: [],
  };
}
