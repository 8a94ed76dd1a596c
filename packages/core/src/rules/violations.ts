/** Report a violation once per identity (structured fields, see `reportKey`), across observers and steps. */
import type { CorrelationState } from "../correlation/state.ts";
import { reportKey } from "../correlation/evolve.ts";
import { rememberReportKey, type ViolationDraft } from "../decisions.ts";

export function keyOf(d: ViolationDraft): string {
  return reportKey({ kind: d.kind, workerId: d.workerId ?? null, serverTaskId: d.serverTaskId ?? null, skillId: d.skillId ?? null, observed: d.observed, allowed: d.allowed ?? [], output: d.output ?? null, attempts: d.attempts ?? [] });
}

/** The drafts not reported before for this correlation (nor twice among themselves). */
export function unreported(state: CorrelationState, drafts: readonly ViolationDraft[]): ViolationDraft[] {
  if (drafts.length === 0) return [];
  const seen = new Set<string>();
  const out: ViolationDraft[] = [];
  for (const d of drafts) {
    const key = keyOf(d);
    if (state.reported.has(key) || seen.has(key)) continue;
    seen.add(key);
    rememberReportKey(d, key);
    out.push(d);
  }
  return out;
}
