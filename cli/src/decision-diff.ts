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

/**
 * Multiset keys of the decisions of correlations that differ, each computed once: the plain JSON text
 * (without rulesVersion) matches most; canonical JSON (RFC 8785, key order aside) is computed only for
 * the decisions the text leaves unmatched — records decoded from Avro and records built by the rules
 * may order the keys of nested records differently.
 */
class Keys {
  private readonly texts = new Map<Decision, string>();
  private readonly canonicals = new Map<Decision, string>();

  text(d: Decision): string {
    let k = this.texts.get(d);
    if (k === undefined) this.texts.set(d, (k = JSON.stringify(withoutVersion(d))));
    return k;
  }

  canonical(d: Decision): string {
    let k = this.canonicals.get(d);
    if (k === undefined) this.canonicals.set(d, (k = canonical(withoutVersion(d))));
    return k;
  }
}

/** Equal JSON values, key order aside; allocates nothing for the common case of equal decisions. */
function equalValues(x: unknown, y: unknown): boolean {
  if (x === y) return true;
  if (typeof x !== "object" || typeof y !== "object" || x === null || y === null) return false;
  if (Array.isArray(x) || Array.isArray(y)) {
    if (!Array.isArray(x) || !Array.isArray(y) || x.length !== y.length) return false;
    for (let i = 0; i < x.length; i++) if (!equalValues(x[i], y[i])) return false;
    return true;
  }
  const a = x as Record<string, unknown>;
  const b = y as Record<string, unknown>;
  let n = 0;
  for (const k in a) {
    if (!Object.hasOwn(a, k)) continue;
    n++;
    if (!Object.hasOwn(b, k) || !equalValues(a[k], b[k])) return false;
  }
  for (const k in b) if (Object.hasOwn(b, k)) n--;
  return n === 0;
}

/** The same decision, whatever rulesVersion stamps it. */
export function sameDecision(a: Decision, b: Decision): boolean {
  const x = a as unknown as Record<string, unknown>;
  const y = b as unknown as Record<string, unknown>;
  let n = 0;
  for (const k in x) {
    if (!Object.hasOwn(x, k) || k === "rulesVersion") continue;
    n++;
    if (!Object.hasOwn(y, k) || !equalValues(x[k], y[k])) return false;
  }
  for (const k in y) if (Object.hasOwn(y, k) && k !== "rulesVersion") n--;
  return n === 0;
}

function withoutVersion(d: Decision): Record<string, unknown> {
  const { rulesVersion: _ignored, ...rest } = d;
  return rest;
}

const canonical = (value: unknown) => canonicalize(value);

function group(decisions: readonly Decision[]): Map<string, Decision[]> {
  const m = new Map<string, Decision[]>();
  for (const d of decisions) {
    const list = m.get(d.correlationId);
    if (list) list.push(d);
    else m.set(d.correlationId, [d]);
  }
  return m;
}

/** Every correlation whose decisions differ, in correlation id order. */
export function diffDecisions(baseline: readonly Decision[], candidate: readonly Decision[]): CorrelationDiff[] {
  const keys = new Keys();
  const b = group(baseline);
  const c = group(candidate);
  // In correlation id order: the same diff whatever order the two sides were folded or read in.
  const ids = [...new Set([...b.keys(), ...c.keys()])].sort();
  const diffs: CorrelationDiff[] = [];
  for (const id of ids) {
    const diff = diffCorrelation(id, b.get(id) ?? [], c.get(id) ?? [], keys);
    if (diff !== undefined) diffs.push(diff);
  }
  return diffs;
}

/** The difference of one correlation's decisions; undefined when the two sequences are equal. */
export function diffCorrelation(
  correlationId: string,
  left: readonly Decision[],
  right: readonly Decision[],
  keys = new Keys(),
): CorrelationDiff | undefined {
  let index = 0;
  while (index < left.length && index < right.length && sameDecision(left[index] as Decision, right[index] as Decision))
    index++;
  if (index === left.length && index === right.length) return undefined;
  const first = { index, baseline: left[index] ?? null, candidate: right[index] ?? null };
  const [removedAll, addedAll] =
    left.length * right.length <= 4_096 ? unmatchedPairwise(left, right) : unmatchedByKeys(left, right, keys);
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
  return keys.filter((k) => !equalValues(x[k] ?? null, y[k] ?? null));
}

/** Both multiset differences, matching each decision with an equal one of the other side (small correlations: no keys built). */
function unmatchedPairwise(left: readonly Decision[], right: readonly Decision[]): [Decision[], Decision[]] {
  const taken = new Array<boolean>(right.length).fill(false);
  const removed: Decision[] = [];
  for (const d of left) {
    let j = 0;
    while (j < right.length && (taken[j] || !sameDecision(d, right[j] as Decision))) j++;
    if (j < right.length) taken[j] = true;
    else removed.push(d);
  }
  return [removed, right.filter((_, j) => !taken[j])];
}

/** Both multiset differences by text keys, then by canonical keys among what the text left unmatched. */
function unmatchedByKeys(left: readonly Decision[], right: readonly Decision[], keys: Keys): [Decision[], Decision[]] {
  const byText = (d: Decision) => keys.text(d);
  const byCanonical = (d: Decision) => keys.canonical(d);
  const leftRest = without(left, right, byText);
  const rightRest = without(right, left, byText);
  return [without(leftRest, rightRest, byCanonical), without(rightRest, leftRest, byCanonical)];
}

/** The decisions of `from` left after taking out one equal decision (by `key`) for each of `take` (multiset difference). */
function without(from: readonly Decision[], take: readonly Decision[], key: (d: Decision) => string): Decision[] {
  const counts = new Map<string, number>();
  for (const d of take) {
    const k = key(d);
    counts.set(k, (counts.get(k) ?? 0) + 1);
  }
  const rest: Decision[] = [];
  for (const d of from) {
    const k = key(d);
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

/**
 * A recorded decision that names no policy version (null: recorded before the trust policy was data)
 * cannot be compared on it: the candidate's decision of the same decisionId is taken with no version
 * either. Every other field, and the version of every decision that names one, is still compared.
 */
export function withRecordedPolicyVersions(recorded: readonly Decision[], candidate: readonly Decision[]): Decision[] {
  const unnamed = new Set<string>();
  for (const d of recorded) if (d.policyVersion === null) unnamed.add(d.decisionId);
  if (unnamed.size === 0) return [...candidate];
  return candidate.map((d) =>
    d.policyVersion !== null && unnamed.has(d.decisionId) ? { ...d, policyVersion: null } : d,
  );
}
