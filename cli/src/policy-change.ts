/**
 * A new version of the trust policy, as `a2a-ledger policy set` plans it from the recorded history:
 * the next version number, and a validFrom late enough that every reconciler has read the version
 * before any event it governs arrives. A reconciler reads the policy topic to its end before each batch,
 * so a version written at time W governs correctly every event whose occurredAt is at least W plus the
 * observers' clock skew; the default margin covers that skew, and a validFrom earlier than the minimum
 * margin is refused (it would re-judge events that may already have been decided under the old version).
 */
import { nextPolicyVersion, toEpochMillis } from "@a2a-ledger/core";
import { parseDuration } from "@a2a-ledger/env";
import type { TrustPolicy } from "@a2a-ledger/schemas";
import type { CliErrorCode } from "./errors.ts";

/** The default: validFrom = now + 60 s. */
export const defaultValidFromMarginMs = 60_000;
/** The least accepted: validFrom at least 5 s after now. */
export const minimumValidFromMarginMs = 5_000;

/** A refusal of the catalogue (errors.ts); `POLICY_CONCURRENT_SET` is found only after writing. */
export type PolicyChangeErrorCode = Exclude<CliErrorCode, "POLICY_CONCURRENT_SET">;

export class PolicyChangeError extends Error {
  override name = "PolicyChangeError";
  constructor(
    readonly code: PolicyChangeErrorCode,
    message: string,
  ) {
    super(`${code}: ${message}`);
  }
}

export interface PolicyChangeRequest {
  /** The comma-separated vendor list as given (empty: trust no vendor). */
  trustedVendors: string;
  /** Epoch ms or ISO-8601 with an offset; default now + defaultValidFromMarginMs. */
  validFrom?: string;
  reason?: string;
  /**
   * default/4's re-probe period and canary bound (`1h`, `24h`, `90m`, …, or `default` for the rules'
   * own); absent: what the highest recorded version says.
   */
  reprobeAfter?: string;
  canaryOutlives?: string;
  /**
   * default/4's fallbacks: `SKILL=DURATION[,SKILL=DURATION…]` (`*` for every skill), or `none`; absent:
   * what the highest recorded version says.
   */
  fallbacks?: string;
  setBy: string;
  now: number;
}

/** The shortest and longest accepted re-probe period or canary bound. */
const durationBounds = { min: 1_000, max: 365 * 86_400_000 };

function durationOf(flag: string, given: string | undefined, latest: number | null | undefined): number | null {
  if (given === undefined) return latest ?? null;
  if (given.trim() === "default") return null;
  const ms = parseDuration(given.trim());
  if (ms === undefined || ms < durationBounds.min || ms > durationBounds.max)
    throw new PolicyChangeError(
      "POLICY_BAD_DURATION",
      `--${flag} ${JSON.stringify(given.slice(0, 40))}: a duration from 1s to 365d (e.g. 90m, 24h, 7d), or default`,
    );
  return ms;
}

const skillIdPattern = /^[^\s,=]{1,200}$/;

/** `SKILL=DURATION[,SKILL=DURATION…]` or `none`, each skill once, sorted by skill; absent: the latest version's. */
export function fallbacksOf(
  given: string | undefined,
  latest: TrustPolicy["fallbacks"] | undefined,
): TrustPolicy["fallbacks"] {
  if (given === undefined) return latest ?? [];
  if (given.trim() === "none") return [];
  const out = new Map<string, number>();
  for (const part of given.split(",")) {
    const at = part.indexOf("=");
    const skillId = part.slice(0, at).trim();
    const duration = part.slice(at + 1).trim();
    const bad = (why: string) =>
      new PolicyChangeError(
        "POLICY_BAD_FALLBACK",
        `--fallback ${JSON.stringify(part.slice(0, 60))}: ${why} (SKILL=DURATION[,SKILL=DURATION…], * for every skill, or none)`,
      );
    if (at < 0 || !skillIdPattern.test(skillId)) throw bad("a skill id without spaces, ',' or '=', then '='");
    if (out.has(skillId)) throw bad(`skill ${skillId} is named twice`);
    const ms = parseDuration(duration);
    if (ms === undefined || ms < durationBounds.min || ms > durationBounds.max) throw bad("a duration from 1s to 365d");
    out.set(skillId, ms);
  }
  return [...out].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([skillId, afterMs]) => ({ skillId, afterMs }));
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what a vendor name must not hold
const controlCharacter = /[\u0000-\u001f]/;

export function vendorList(raw: string): string[] {
  const vendors = [
    ...new Set(
      raw
        .split(",")
        .map((v) => v.trim())
        .filter((v) => v !== ""),
    ),
  ].sort();
  for (const v of vendors)
    if (v.length > 200 || controlCharacter.test(v))
      throw new PolicyChangeError(
        "POLICY_BAD_VENDOR",
        `vendor ${JSON.stringify(v)}: at most 200 characters, no control characters`,
      );
  return vendors;
}

function validFromOf(given: string | undefined, now: number): number {
  if (given === undefined) return now + defaultValidFromMarginMs;
  const parsed = toEpochMillis(/^-?\d+$/.test(given.trim()) ? Number(given.trim()) : given.trim());
  if (!parsed.ok)
    throw new PolicyChangeError("POLICY_BAD_VALID_FROM", `--valid-from ${JSON.stringify(given)}: ${parsed.message}`);
  if (parsed.value < now + minimumValidFromMarginMs) {
    throw new PolicyChangeError(
      "POLICY_VALID_FROM_TOO_EARLY",
      `--valid-from ${new Date(parsed.value).toISOString()} is before now + ${minimumValidFromMarginMs / 1000} s (${new Date(now + minimumValidFromMarginMs).toISOString()}): events before it may already have been decided under the version in force, and a replay would judge them otherwise`,
    );
  }
  return parsed.value;
}

/** The record to write: the highest recorded version plus one. */
export function planPolicyChange(history: readonly TrustPolicy[], request: PolicyChangeRequest): TrustPolicy {
  const reason = request.reason?.trim();
  let latest: TrustPolicy | undefined;
  for (const p of history) if (latest === undefined || p.version > latest.version) latest = p;
  return {
    version: nextPolicyVersion(history),
    validFrom: validFromOf(request.validFrom, request.now),
    trustedVendors: vendorList(request.trustedVendors),
    setAt: request.now,
    setBy: request.setBy,
    reason: reason === undefined || reason === "" ? null : reason,
    reprobeAfterMs: durationOf("reprobe-after", request.reprobeAfter, latest?.reprobeAfterMs),
    canaryOutlivesMs: durationOf("canary-outlives", request.canaryOutlives, latest?.canaryOutlivesMs),
    fallbacks: fallbacksOf(request.fallbacks, latest?.fallbacks),
  };
}
