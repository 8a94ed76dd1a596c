/**
 * The trust policy as recorded data (a2a.policy.v1): versions, each in force from its `validFrom` on.
 * Every reader — the reconciler, the projector, replay — judges an event by `policyAt(history, the
 * event's occurredAt)`, so a replay of history across a change of policy decides what was decided live.
 */
import type { PolicyConfig } from "./policy.ts";

/** One recorded version: what `policyAt` needs of a TrustPolicy record. */
export interface PolicyVersion extends PolicyConfig {
  /** 1, 2, 3, ... (0 is `noRecordedPolicy`). */
  version: number;
  /** Epoch ms: events at or after it are judged by this version, unless a higher one is in force by then. */
  validFrom: number;
}

/** Before any recorded version is in force: version 0, no vendor trusted (every worker under verify). */
export const noRecordedPolicy: PolicyVersion = Object.freeze({
  version: 0,
  validFrom: Number.NEGATIVE_INFINITY,
  trustedVendors: Object.freeze([]) as readonly string[],
});

/** The recorded versions, in any order (the order they arrived in does not matter). */
export interface PolicyHistory {
  versions: readonly PolicyVersion[];
}

/**
 * The version in force at `time`: of the versions whose validFrom is at or before it, the highest
 * version; `noRecordedPolicy` when there is none. A version scheduled later than a higher one is
 * overridden by it from the higher one's validFrom on; order of arrival is irrelevant.
 */
export function policyAt<P extends PolicyVersion>(history: readonly P[], time: number): P | typeof noRecordedPolicy {
  let found: P | undefined;
  for (const p of history) {
    if (p.validFrom <= time && (found === undefined || p.version > found.version)) found = p;
  }
  return found ?? noRecordedPolicy;
}

/**
 * The history with `record` read into it: a record of a version already known replaces it (the topic is
 * keyed by version, and compaction keeps the last record of a key), any other is added.
 */
export function withPolicyVersion<P extends PolicyVersion>(history: readonly P[], record: P): P[] {
  const i = history.findIndex((p) => p.version === record.version);
  if (i < 0) return [...history, record];
  const next = [...history];
  next[i] = record;
  return next;
}

/** The number the next version gets: the highest recorded plus one. */
export function nextPolicyVersion(history: readonly PolicyVersion[]): number {
  let highest = 0;
  for (const p of history) if (p.version > highest) highest = p.version;
  return highest + 1;
}

/** A fold's policy: one fixed, unrecorded vendor list (decisions name no version), or the recorded history. */
export type PolicySource = PolicyConfig | PolicyHistory;

export function isPolicyHistory(source: PolicySource): source is PolicyHistory {
  return "versions" in source;
}
