/**
 * Who may take over an indeterminate task (R6). Eligibility needs verification: only V counts, and only
 * V of the card in force at the time of the loss. Two questions:
 * - resume: V contains the interrupted state the task was in;
 * - restart: V contains TASK_STATE_COMPLETED (the worker verifiably completes tasks) — used when there is
 *   nothing to resume (the task was submitted/working) and by the restart-from-scratch rule set.
 * Both require the dispatch's skill in the card and verified output modes within the dispatch's
 * acceptedOutputModes (empty accepted = anything).
 */
import type { CandidateVerdict, CapabilitySnapshot, TaskState } from "@a2a-ledger/schemas";
import type { CapabilityView } from "../../capabilities.ts";
import { mediaTypeAllowed } from "../../media-type.ts";

export interface Need {
  lostWorkerId: string;
  skillId: string | null;
  acceptedOutputModes: readonly string[];
  /** The state the new worker must verify. */
  state: TaskState;
  at: number;
}

export function verdict(workerId: string, snap: CapabilitySnapshot | undefined, need: Need): CandidateVerdict {
  const no = (reason: string): CandidateVerdict => ({ workerId, eligible: false, reason });
  if (snap === undefined) return no("no card in force");
  if (!snap.verified) return no(`card ${snap.cardHash.slice(0, 12)} not verified by a probe yet`);
  if (need.skillId !== null && !snap.advertisedOutputModes.some((s) => s.skillId === need.skillId))
    return no(`card does not offer skill ${need.skillId}`);
  if (!snap.verifiedStates.includes(need.state))
    return no(`verified states [${snap.verifiedStates.join(", ")}] lack ${need.state}`);
  const accepted = need.acceptedOutputModes;
  const matching =
    accepted.length === 0
      ? snap.verifiedOutputModes
      : snap.verifiedOutputModes.filter((m) => mediaTypeAllowed(m, accepted));
  if (accepted.length > 0 && matching.length === 0) {
    return no(
      `verified output modes [${snap.verifiedOutputModes.join(", ")}] outside accepted [${accepted.join(", ")}]`,
    );
  }
  return { workerId, eligible: true, reason: `verifies ${need.state}; verified output modes [${matching.join(", ")}]` };
}

/** Verdicts for every worker in the table, sorted by workerId; `lost` decides the lost worker's fate. */
export function verdicts(
  view: CapabilityView,
  need: Need,
  lost: "exclude" | "last-resort",
): { all: CandidateVerdict[]; chosen: CandidateVerdict | undefined } {
  const all = view
    .workers()
    .map((w) =>
      w === need.lostWorkerId && lost === "exclude"
        ? { workerId: w, eligible: false, reason: "lost the task in this state" }
        : verdict(w, view.asOf(w, need.at), need),
    );
  const chosen = all.find((v) => v.eligible && v.workerId !== need.lostWorkerId) ?? all.find((v) => v.eligible);
  return { all, chosen };
}
