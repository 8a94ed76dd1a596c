import type { TrustPolicy } from "@a2a-ledger/schemas";
import { trustPolicy } from "@a2a-ledger/schemas/testing";
import { describe, expect, it } from "vitest";
import { defaultValidFromMarginMs, planPolicyChange, PolicyChangeError } from "./policy-change.ts";

const now = Date.UTC(2026, 11, 2, 0, 0, 0);
const recorded = (version: number, validFrom: number): TrustPolicy => trustPolicy({ version, validFrom, setBy: "x" });
const code = (f: () => unknown) => {
  try {
    f();
  } catch (e) {
    return e instanceof PolicyChangeError ? e.code : String(e);
  }
  return "no error";
};

describe("policy set: planning a new version", () => {
  it("numbers it one above the highest recorded and makes it valid from now plus the margin by default", () => {
    // given versions 1 and 3 recorded / when a change without --valid-from / then version 4 from now + 60 s
    const plan = planPolicyChange([recorded(3, 0), recorded(1, 0)], {
      trustedVendors: " Beta,Acme,, Acme ",
      setBy: "ops@host",
      now,
    });
    expect(plan).toEqual({
      version: 4,
      validFrom: now + defaultValidFromMarginMs,
      trustedVendors: ["Acme", "Beta"],
      setAt: now,
      setBy: "ops@host",
      reason: null,
      reprobeAfterMs: null,
      canaryOutlivesMs: null,
      fallbacks: [],
    });
  });

  it("is version 1 on an empty topic, and an empty list trusts nobody", () => {
    expect(planPolicyChange([], { trustedVendors: "", setBy: "ops", now, reason: "  revoke all  " })).toMatchObject({
      version: 1,
      trustedVendors: [],
      reason: "revoke all",
    });
  });

  it("takes --valid-from as ISO-8601 with an offset or epoch milliseconds", () => {
    expect(
      planPolicyChange([], { trustedVendors: "A", setBy: "ops", now, validFrom: "2026-12-02T02:00:00+01:00" })
        .validFrom,
    ).toBe(now + 3_600_000);
    expect(
      planPolicyChange([], { trustedVendors: "A", setBy: "ops", now, validFrom: String(now + 7_000) }).validFrom,
    ).toBe(now + 7_000);
  });

  it("refuses a validFrom in the past or within the minimum margin, and one that is no time", () => {
    expect(
      code(() => planPolicyChange([], { trustedVendors: "A", setBy: "ops", now, validFrom: String(now - 1) })),
    ).toBe("POLICY_VALID_FROM_TOO_EARLY");
    expect(
      code(() => planPolicyChange([], { trustedVendors: "A", setBy: "ops", now, validFrom: String(now + 4_999) })),
    ).toBe("POLICY_VALID_FROM_TOO_EARLY");
    expect(
      planPolicyChange([], { trustedVendors: "A", setBy: "ops", now, validFrom: String(now + 5_000) }).validFrom,
    ).toBe(now + 5_000);
    expect(code(() => planPolicyChange([], { trustedVendors: "A", setBy: "ops", now, validFrom: "tomorrow" }))).toBe(
      "POLICY_BAD_VALID_FROM",
    );
  });

  it("refuses a vendor name with control characters", () => {
    expect(code(() => planPolicyChange([], { trustedVendors: "A,B\u0007", setBy: "ops", now }))).toBe(
      "POLICY_BAD_VENDOR",
    );
  });

  it("takes default/4's re-probe period and canary bound as durations, keeps the latest version's when left out, and resets them with default", () => {
    const set = (history: TrustPolicy[], o: { reprobeAfter?: string; canaryOutlives?: string }) =>
      planPolicyChange(history, { trustedVendors: "A", setBy: "ops", now, ...o });
    const first = set([], { reprobeAfter: "90m", canaryOutlives: "7d" });
    expect(first).toMatchObject({ reprobeAfterMs: 90 * 60_000, canaryOutlivesMs: 7 * 86_400_000 });
    expect(set([first], {})).toMatchObject({ reprobeAfterMs: 90 * 60_000, canaryOutlivesMs: 7 * 86_400_000 });
    expect(set([first], { canaryOutlives: "default" })).toMatchObject({
      reprobeAfterMs: 90 * 60_000,
      canaryOutlivesMs: null,
    });
    expect(set([], {})).toMatchObject({ reprobeAfterMs: null, canaryOutlivesMs: null });
    for (const bad of ["soon", "0s", "999ms", "366d", "-1h", "1.5h"])
      expect(
        code(() => set([], { reprobeAfter: bad })),
        bad,
      ).toBe("POLICY_BAD_DURATION");
  });

  it("takes default/4's fallbacks as SKILL=DURATION pairs, carries them over, and none clears them", () => {
    const set = (history: TrustPolicy[], o: { fallbacks?: string }) =>
      planPolicyChange(history, { trustedVendors: "A", setBy: "ops", now, ...o });
    const first = set([], { fallbacks: " translate=2h , summarize=30m,*=1d" });
    expect(first.fallbacks).toEqual([
      { skillId: "*", afterMs: 86_400_000 },
      { skillId: "summarize", afterMs: 30 * 60_000 },
      { skillId: "translate", afterMs: 2 * 3_600_000 },
    ]);
    expect(set([first], {}).fallbacks).toEqual(first.fallbacks);
    expect(set([first], { fallbacks: "none" }).fallbacks).toEqual([]);
    for (const bad of ["summarize", "=1h", "summarize=soon", "summarize=0s", "a=1h,a=2h", "two words=1h", "x=366d"])
      expect(
        code(() => set([], { fallbacks: bad })),
        bad,
      ).toBe("POLICY_BAD_FALLBACK");
  });
});
