/** Trust or verify (DESIGN §4): trust only a listed vendor whose card claims a durable task store. */
export interface PolicyConfig {
  /** Vendors (provider.organization) the operator trusts. */
  trustedVendors: readonly string[];
  /**
   * default/4: a card whose interrupted states were revoked is probed again on its first fetch in each
   * period of this length after the revocation (null or absent: `defaultReprobeAfterMs`).
   */
  reprobeAfterMs?: number | null;
  /**
   * default/4: how long a parked canary must stay observable in its interrupted state, after it was
   * parked and after the revocation, to show it outlived a restart of its worker and earn the revoked
   * states back (null or absent: `defaultCanaryOutlivesMs`).
   */
  canaryOutlivesMs?: number | null;
  /**
   * default/4: per skill (`*`: every skill, and a task with none), how long a blocked task waits before it
   * restarts from scratch (absent or empty: never; an operator resolves it).
   */
  fallbacks?: readonly { skillId: string; afterMs: number }[];
}

/** How long a blocked task of `skillId` waits before its fallback under `config`: its skill's, else `*`'s; undefined: none. */
export function fallbackAfter(config: PolicyConfig, skillId: string | null): number | undefined {
  const fallbacks = config.fallbacks ?? [];
  return (
    (skillId === null ? undefined : fallbacks.find((f) => f.skillId === skillId)?.afterMs) ??
    fallbacks.find((f) => f.skillId === "*")?.afterMs
  );
}

/** One hour between re-probes of a revoked card. */
export const defaultReprobeAfterMs = 60 * 60_000;
/** One day: a worker restarted at least daily (a deploy, a node rotation) has restarted while its canary waited. */
export const defaultCanaryOutlivesMs = 24 * 60 * 60_000;

/** The re-probe period and the canary's bound in force under `config`. */
export function earnBackOf(config: PolicyConfig): { reprobeAfterMs: number; canaryOutlivesMs: number } {
  return {
    reprobeAfterMs: config.reprobeAfterMs ?? defaultReprobeAfterMs,
    canaryOutlivesMs: config.canaryOutlivesMs ?? defaultCanaryOutlivesMs,
  };
}

export type Policy = "trust" | "verify";

export const defaultPolicyConfig: PolicyConfig = { trustedVendors: [] };

export function policyFor(
  config: PolicyConfig,
  claim: { vendor: string | null; taskStore: string } | undefined,
): Policy {
  if (claim === undefined || claim.vendor === null) return "verify";
  return claim.taskStore === "durable" && config.trustedVendors.includes(claim.vendor) ? "trust" : "verify";
}
