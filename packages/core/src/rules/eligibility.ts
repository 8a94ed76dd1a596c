/**
 * Who may take over an indeterminate task (R6). Only verified capabilities count, per (card, skill), as
 * of the loss: the card in force lists the task's skill, a probe of that skill verified every state the
 * need names, and (when the dispatch accepted particular media types) at least one media type the probe
 * saw emitted is acceptable. The worker that lost the task is never a target; under default/3 neither
 * is a worker that lost an earlier task of the same correlation (`earlierLosers`), so a task lost twice
 * does not go back and forth between the workers that lost it. Ties are broken by workerId in ascending
 * code-unit order: deterministic, and independent of locale and arrival order.
 */
import type { CandidateVerdict, CapabilitySnapshot, TaskState } from "@a2a-ledger/schemas";
import type { CapabilityView } from "../capabilities.ts";
import { mediaTypeAllowed } from "../media-type.ts";
import { cardOffersSkill, verifiedSkill } from "../verification.ts";

export interface Need {
  lostWorkerId: string;
  skillId: string | null;
  acceptedOutputModes: readonly string[];
  /** The states the new worker must have verified for the skill. */
  states: readonly TaskState[];
  at: number;
  /** Workers (other than lostWorkerId) that lost a task of this correlation, with the attempts they lost: never targets. */
  earlierLosers?: ReadonlyMap<string, readonly number[]>;
}

const skillName = (skillId: string | null): string => (skillId === null ? "(no skill)" : skillId);

export function verdict(workerId: string, snap: CapabilitySnapshot | undefined, need: Need): CandidateVerdict {
  const no = (reason: string): CandidateVerdict => ({ workerId, eligible: false, reason });
  if (snap === undefined) return no("no card in force");
  if (!cardOffersSkill(snap, need.skillId)) return no(`the card in force does not offer skill ${skillName(need.skillId)}`);
  const v = verifiedSkill(snap, need.skillId);
  if (v === undefined) return no(`skill ${skillName(need.skillId)} of card ${snap.cardHash.slice(0, 12)} not verified by a probe yet`);
  const missing = need.states.filter((s) => !v.states.includes(s));
  if (missing.length > 0) return no(`verified states [${v.states.join(", ")}] of skill ${skillName(need.skillId)} lack ${missing.join(", ")}`);
  const accepted = need.acceptedOutputModes;
  const matching = accepted.length === 0 ? v.outputModes : v.outputModes.filter((m) => mediaTypeAllowed(m, accepted));
  if (accepted.length > 0 && matching.length === 0) return no(`verified output modes [${v.outputModes.join(", ")}] outside accepted [${accepted.join(", ")}]`);
  return { workerId, eligible: true, reason: `verifies ${need.states.join(", ")} for skill ${skillName(need.skillId)}; verified output modes [${matching.join(", ")}]` };
}

export interface Verdicts {
  /** Every known worker's verdict, in workerId order. */
  all: CandidateVerdict[];
  /** The first eligible one. */
  chosen: CandidateVerdict | undefined;
  /** Earlier losers whose capabilities would have made them eligible (what a block names). */
  passedOver: string[];
}

/** Every known worker's verdict, in workerId order, and the chosen one (the first eligible). */
export function verdicts(view: CapabilityView, need: Need): Verdicts {
  const passedOver: string[] = [];
  const all = view.workers().map((w): CandidateVerdict => {
    if (w === need.lostWorkerId) return { workerId: w, eligible: false, reason: "lost the task: never a target under verify" };
    const v = verdict(w, view.asOf(w, need.at), need);
    const lost = need.earlierLosers?.get(w);
    if (lost === undefined) return v;
    if (v.eligible) passedOver.push(w);
    return { workerId: w, eligible: false, reason: `lost the task at attempt ${lost.join(", ")} of this correlation: never a target again` };
  });
  return { all, chosen: all.find((v) => v.eligible), passedOver };
}
