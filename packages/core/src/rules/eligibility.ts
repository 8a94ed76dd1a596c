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
import { isInterrupted } from "../task-state.ts";
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
  /** Workers the asker will not take (route's `exclude`): never targets. */
  excluded?: ReadonlySet<string>;
}

const completed: TaskState = "TASK_STATE_COMPLETED";

/**
 * What taking over a task asks of a worker, from the task's last state (null: a new task): an
 * interrupted state is resumed on a worker that verifies it; after SUBMITTED or WORKING there is
 * nothing to resume, so the task restarts on a worker that verifies that state and COMPLETED; nothing
 * seen (null, UNSPECIFIED) or COMPLETED: a worker that verifies COMPLETED.
 */
export function takeOverNeed(lastState: TaskState | null): { resume: boolean; states: TaskState[] } {
  if (lastState !== null && isInterrupted(lastState)) return { resume: true, states: [lastState] };
  if (lastState === null || lastState === "TASK_STATE_UNSPECIFIED" || lastState === completed)
    return { resume: false, states: [completed] };
  return { resume: false, states: [lastState, completed] };
}

const skillName = (skillId: string | null): string => (skillId === null ? "(no skill)" : skillId);

export function verdict(workerId: string, snap: CapabilitySnapshot | undefined, need: Need): CandidateVerdict {
  const no = (reason: string): CandidateVerdict => ({ workerId, eligible: false, reason });
  if (snap === undefined) return no("no card in force");
  if (!cardOffersSkill(snap, need.skillId))
    return no(`the card in force does not offer skill ${skillName(need.skillId)}`);
  const v = verifiedSkill(snap, need.skillId);
  if (v === undefined)
    return no(`skill ${skillName(need.skillId)} of card ${snap.cardHash.slice(0, 12)} not verified by a probe yet`);
  const missing = need.states.filter((s) => !v.states.includes(s));
  if (missing.length > 0)
    return no(
      `verified states [${v.states.join(", ")}] of skill ${skillName(need.skillId)} lack ${missing.join(", ")}`,
    );
  const accepted = need.acceptedOutputModes;
  const matching = accepted.length === 0 ? v.outputModes : v.outputModes.filter((m) => mediaTypeAllowed(m, accepted));
  if (accepted.length > 0 && matching.length === 0)
    return no(`verified output modes [${v.outputModes.join(", ")}] outside accepted [${accepted.join(", ")}]`);
  return {
    workerId,
    eligible: true,
    reason: `verifies ${need.states.join(", ")} for skill ${skillName(need.skillId)}; verified output modes [${matching.join(", ")}]`,
  };
}

export interface Verdicts {
  /** Every known worker's verdict, in workerId order. */
  all: CandidateVerdict[];
  /** The eligible ones, best first (see `rank`). */
  ranked: CandidateVerdict[];
  /** The first of `ranked`: the worker R6 commands. */
  chosen: CandidateVerdict | undefined;
  /** Earlier losers whose capabilities would have made them eligible (what a block names). */
  passedOver: string[];
}

const byWorkerId = (a: CandidateVerdict, b: CandidateVerdict): number =>
  a.workerId < b.workerId ? -1 : a.workerId > b.workerId ? 1 : 0;

/** The ranking R6 and route share: the eligible verdicts, ties (all of them) broken by workerId in ascending code-unit order. */
export function rank(all: readonly CandidateVerdict[]): CandidateVerdict[] {
  return all.filter((v) => v.eligible).sort(byWorkerId);
}

/** The workers in code-unit order: as given when they already are (every view's `workers()` says so), else sorted. */
function inOrder(workers: readonly string[]): readonly string[] {
  for (let i = 1; i < workers.length; i++)
    if ((workers[i - 1] as string) >= (workers[i] as string)) return [...workers].sort();
  return workers;
}

/**
 * Every known worker's verdict, in workerId order, the eligible ones ranked, and the chosen one (the
 * first ranked). R6 and `route` (route.ts) both decide through this one function.
 */
export function verdicts(view: CapabilityView, need: Need): Verdicts {
  const passedOver: string[] = [];
  const all = inOrder(view.workers()).map((w): CandidateVerdict => {
    if (w === need.lostWorkerId)
      return { workerId: w, eligible: false, reason: "lost the task: never a target under verify" };
    if (need.excluded?.has(w) === true) return { workerId: w, eligible: false, reason: "excluded by the request" };
    const v = verdict(w, view.asOf(w, need.at), need);
    const lost = need.earlierLosers?.get(w);
    if (lost === undefined) return v;
    if (v.eligible) passedOver.push(w);
    return {
      workerId: w,
      eligible: false,
      reason: `lost the task at attempt ${lost.join(", ")} of this correlation: never a target again`,
    };
  });
  const ranked = rank(all);
  return { all, ranked, chosen: ranked[0], passedOver };
}
