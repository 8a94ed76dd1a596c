/** Trust or verify (DESIGN §4): trust only a listed vendor whose card claims a durable task store. */
export interface PolicyConfig {
  /** Vendors (provider.organization) the operator trusts. */
  trustedVendors: readonly string[];
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
