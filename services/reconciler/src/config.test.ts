import { describe, expect, it } from "vitest";
import { loadReconcilerConfig } from "./config.ts";
import { ReconcilerConfigError } from "./errors.ts";

describe("loadReconcilerConfig", () => {
  it("defaults to the ledger's topics, the default rules and no trusted vendor", () => {
    const config = loadReconcilerConfig({});
    expect(config.topics.observations).toBe("a2a.observations.v1");
    expect(config.ruleSet.name).toBe("default");
    expect(config.ruleSet.rulesVersion).toBe("default/2");
    expect(config.policy.trustedVendors).toEqual([]);
    expect(config.groupId).toBe("a2a-ledger-reconciler");
  });
  it("reads trusted vendors, another rule set and a topic suffix", () => {
    const config = loadReconcilerConfig({ A2A_LEDGER_TRUSTED_VENDORS: " Acme , Beta,", A2A_LEDGER_RULES: "restart-from-scratch", A2A_LEDGER_TOPIC_SUFFIX: "blue" });
    expect(config.policy.trustedVendors).toEqual(["Acme", "Beta"]);
    expect(config.ruleSet.name).toBe("restart-from-scratch");
    expect(config.topics.decisions).toBe("a2a.decisions.v1.blue");
  });
  it("runs default/3 when A2A_LEDGER_RULES names it by version", () => {
    expect(loadReconcilerConfig({ A2A_LEDGER_RULES: "default/3" }).ruleSet.rulesVersion).toBe("default/3");
  });
  it("names the variable and the choices for an unknown rule set", () => {
    expect(() => loadReconcilerConfig({ A2A_LEDGER_RULES: "lenient" })).toThrow(ReconcilerConfigError);
    expect(() => loadReconcilerConfig({ A2A_LEDGER_RULES: "lenient" })).toThrow(/A2A_LEDGER_RULES="lenient": expected one of default, restart-from-scratch/);
  });
  it("refuses out-of-range numbers and illegal names", () => {
    expect(() => loadReconcilerConfig({ A2A_LEDGER_RECONCILER_MAX_BATCH: "0" })).toThrow(/MAX_BATCH="0"/);
    expect(() => loadReconcilerConfig({ A2A_LEDGER_RECONCILER_SESSION_TIMEOUT_MS: "100" })).toThrow(/SESSION_TIMEOUT_MS/);
    expect(() => loadReconcilerConfig({ A2A_LEDGER_TOPIC_SUFFIX: "a b" })).toThrow(/TOPIC_SUFFIX/);
    expect(() => loadReconcilerConfig({ A2A_LEDGER_RECONCILER_GROUP: "g/1" })).toThrow(/RECONCILER_GROUP/);
  });
});
