/**
 * Per-correlation differences between two decision streams (a baseline and a candidate), ignoring the
 * rulesVersion stamp. Decisions are compared in the order each stream took them: a correlation differs
 * when its two sequences differ. The difference is told as decisions only the baseline took (removed),
 * only the candidate took (added), and decisions with the same decisionId but other content (changed),
 * plus the first position where the two sequences part.
 */
import { canonicalize } from "@a2a-ledger/core";
import type { Decision } from "@a2a-ledger/schemas";

export interface DecisionChange {
  decisionId: string;
  baseline: Decision;
  candidate: Decision;
  /** Top-level fields whose values differ. */
  fields: string[];
}

export interface FirstDifference {
  /** Position in the correlation's decisions (0-based). */
  index: number;
  /** The baseline's decision there; null when the baseline has no more. */
  baseline: Decision | null;
  /** The candidate's decision there; null when the candidate has no more. */
  candidate: Decision | null;
}

export interface CorrelationDiff {
  correlationId: string;
  /** In the baseline only. */
  removed: Decision[];
  /** In the candidate only. */
  added: Decision[];
  /** In both under one decisionId, with other content. */
  changed: DecisionChange[];
  first: FirstDifference;
}

function withoutVersion(d: Decision): Record<string, unknown> {
  const { rulesVersion: _ignored, ...rest } = d;
  return rest;
}

/** Equal content: the plain JSON text decides the common case, canonical JSON (key order aside) the rest. */
const text = (d: Decision) => JSON.stringify(withoutVersion(d));
const canonical = (value: unknown) => canonicalize(value);
function same(a: Decision, b: Decision): boolean {
  return text(a) === text(b) || canonical(withoutVersion(a)) === canonical(withoutVersion(b));
}

function group(decisions: readonly Decision[]): Map<string, Decision[]> {
  const m = new Map<string, Decision[]>();
  for (const d of decisions) {
    const list = m.get(d.correlationId);
    if (list) list.push(d);
    else m.set(d.correlationId, [d]);
  }
  return m;
}

/** Every correlation whose decisions differ, in order of first appearance (baseline first). */
export function diffDecisions(baseline: readonly Decision[], candidate: readonly Decision[]): CorrelationDiff[] {
  const b = group(baseline);
  const c = group(candidate);
  const ids = new Set([...b.keys(), ...c.keys()]);
  const diffs: CorrelationDiff[] = [];
  for (const id of ids) {
    const diff = diffCorrelation(id, b.get(id) ?? [], c.get(id) ?? []);
    if (diff !== undefined) diffs.push(diff);
  }
  return diffs;
}

/** The difference of one correlation's decisions; undefined when the two sequences are equal. */
export function diffCorrelation(correlationId: string, left: readonly Decision[], right: readonly Decision[]): CorrelationDiff | undefined {
  let index = 0;
  while (index < left.length && index < right.length && same(left[index] as Decision, right[index] as Decision)) index++;
  if (index === left.length && index === right.length) return undefined;
  const first = { index, baseline: left[index] ?? null, candidate: right[index] ?? null };
  const removedAll = without(left, right);
  const addedAll = without(right, left);
  const addedById = new Map<string, Decision>();
  for (const d of addedAll) if (!addedById.has(d.decisionId)) addedById.set(d.decisionId, d);
  const changed: DecisionChange[] = [];
  const removed: Decision[] = [];
  for (const d of removedAll) {
    const other = addedById.get(d.decisionId);
    if (other === undefined) removed.push(d);
    else {
      addedById.delete(d.decisionId);
      changed.push({ decisionId: d.decisionId, baseline: d, candidate: other, fields: changedFields(d, other) });
    }
  }
  const paired = new Set(changed.map((c) => c.candidate));
  const added = addedAll.filter((d) => !paired.has(d));
  return { correlationId, removed, added, changed, first };
}

function changedFields(a: Decision, b: Decision): string[] {
  const x = a as unknown as Record<string, unknown>;
  const y = b as unknown as Record<string, unknown>;
  const keys = [...new Set([...Object.keys(x), ...Object.keys(y)])].filter((k) => k !== "rulesVersion");
  return keys.filter((k) => canonical(x[k] ?? null) !== canonical(y[k] ?? null));
}

/** The decisions of `from` left after taking out one equal decision for each of `take` (multiset difference). */
function without(from: readonly Decision[], take: readonly Decision[]): Decision[] {
  const counts = new Map<string, number>();
  for (const d of take) {
    const k = canonical(withoutVersion(d));
    counts.set(k, (counts.get(k) ?? 0) + 1);
  }
  const rest: Decision[] = [];
  for (const d of from) {
    const k = canonical(withoutVersion(d));
    const n = counts.get(k) ?? 0;
    if (n > 0) counts.set(k, n - 1);
    else rest.push(d);
  }
  return rest;
}

/** Decisions per kind: the decision type, or `ContractViolation:<kind>` for violations. */
export function decisionKind(d: Decision): string {
  return d.type === "ContractViolation" ? `ContractViolation:${d.kind}` : d.type;
}

export function countByKind(decisions: readonly Decision[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const d of decisions) {
    const k = decisionKind(d);
    counts[k] = (counts[k] ?? 0) + 1;
  }
  return counts;
}
