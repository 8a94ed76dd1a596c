/** Report a violation once per identity (structured fields, see `reportKey`), across observers and steps. */
import type { CorrelationState } from "../correlation/state.ts";
import { reportKey } from "../correlation/evolve.ts";
import type { ViolationDraft } from "../decisions.ts";
import type { ViolationKind } from "@a2a-ledger/schemas";

/**
 * Violation kinds that record someone else's mistake seen at a worker, not the worker's breach of its
 * card: CLIENT_UNKNOWN_TASK (default/3), a TaskNotFound for a task id no observer saw. A worker's own
 * record (its violation count, its page) leaves them out.
 */
export const clientViolationKinds: readonly ViolationKind[] = ["CLIENT_UNKNOWN_TASK"];

/** Whether a violation of this kind counts against the worker it names. */
export function attributedToWorker(kind: ViolationKind): boolean {
  return !clientViolationKinds.includes(kind);
}

export function keyOf(d: ViolationDraft): string {
  return reportKey({
    kind: d.kind,
    workerId: d.workerId ?? null,
    serverTaskId: d.serverTaskId ?? null,
    skillId: d.skillId ?? null,
    observed: d.observed,
    allowed: d.allowed ?? [],
    output: d.output ?? null,
    attempts: d.attempts ?? [],
  });
}

/** The drafts not reported before for this correlation (nor twice among themselves). */
export function unreported(state: CorrelationState, drafts: readonly ViolationDraft[]): ViolationDraft[] {
  if (drafts.length === 0) return [];
  // One draft (what nearly every rule reports) cannot repeat among the drafts: no Set to tell them apart.
  if (drafts.length === 1) {
    const only = drafts[0] as ViolationDraft;
    return state.reported.has(keyOf(only)) ? [] : [only];
  }
  const seen = new Set<string>();
  const out: ViolationDraft[] = [];
  for (const d of drafts) {
    const key = keyOf(d);
    if (state.reported.has(key) || seen.has(key)) continue;
    seen.add(key);
    out.push(d);
  }
  return out;
}
