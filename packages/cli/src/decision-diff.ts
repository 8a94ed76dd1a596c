/** Per-correlation differences between two replays, ignoring the rulesVersion stamp. */
import type { Decision } from "@a2a-ledger/schemas";

export interface CorrelationDiff {
  correlationId: string;
  /** In the baseline only. */
  removed: Decision[];
  /** In the candidate only. */
  added: Decision[];
}

const comparable = (d: Decision): string => {
  const { rulesVersion: _ignored, ...rest } = d;
  return JSON.stringify(rest);
};

function group(decisions: readonly Decision[]): Map<string, Decision[]> {
  const m = new Map<string, Decision[]>();
  for (const d of decisions) {
    const list = m.get(d.correlationId);
    if (list) list.push(d);
    else m.set(d.correlationId, [d]);
  }
  return m;
}

/** Multiset difference per correlation, in order of first appearance. */
export function diffDecisions(baseline: readonly Decision[], candidate: readonly Decision[]): CorrelationDiff[] {
  const b = group(baseline);
  const c = group(candidate);
  const ids = [...new Set([...b.keys(), ...c.keys()])];
  const diffs: CorrelationDiff[] = [];
  for (const id of ids) {
    const left = b.get(id) ?? [];
    const right = c.get(id) ?? [];
    const removed = without(left, right);
    const added = without(right, left);
    if (removed.length > 0 || added.length > 0) diffs.push({ correlationId: id, removed, added });
  }
  return diffs;
}

/** The decisions of `from` left after taking out one equal decision for each of `take` (multiset difference). */
function without(from: readonly Decision[], take: readonly Decision[]): Decision[] {
  const counts = new Map<string, number>();
  for (const d of take) counts.set(comparable(d), (counts.get(comparable(d)) ?? 0) + 1);
  const rest: Decision[] = [];
  for (const d of from) {
    const k = comparable(d);
    const n = counts.get(k) ?? 0;
    if (n > 0) counts.set(k, n - 1);
    else rest.push(d);
  }
  return rest;
}
