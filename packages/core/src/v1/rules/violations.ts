/** Helpers shared by the contract rules: emit a violation once per identity. */
import type { ViolationDraft } from "../../decisions.ts";
import { violationKey } from "../../decisions.ts";
import type { CorrelationState } from "../correlation-state.ts";

/** Drops violations already reported for this correlation (or twice in this batch). */
export function unreported(state: CorrelationState, drafts: readonly ViolationDraft[]): ViolationDraft[] {
  const seen = new Set(state.reported);
  const out: ViolationDraft[] = [];
  for (const d of drafts) {
    const key = violationKey(d);
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(d);
  }
  return out;
}
