import { ConfigError } from "@a2a-ledger/env";
import { describe, expect, it } from "vitest";
import { ruleSetNames } from "@a2a-ledger/core";
import { loadReconcilerConfig } from "./config.ts";
import { defaultMaxCorrelations } from "./correlation-budget.ts";

describe("loadReconcilerConfig", () => {
  it("defaults to the ledger's topics, the default rules and no trusted vendor", () => {
    const config = loadReconcilerConfig({});
    expect(config.topics.observations).toBe("a2a.observations.v1");
    expect(config.ruleSet.name).toBe("default");
    expect(config.ruleSet.rulesVersion).toBe("default/4");
    expect(config.policy.trustedVendors).toEqual([]);
    expect(config.groupId).toBe("a2a-ledger-reconciler");
  });
  it("reads trusted vendors, another rule set and a topic suffix", () => {
    const config = loadReconcilerConfig({
      A2A_LEDGER_TRUSTED_VENDORS: " Acme , Beta,",
      A2A_LEDGER_RULES: "restart-from-scratch",
      A2A_LEDGER_TOPIC_SUFFIX: "blue",
    });
    expect(config.policy.trustedVendors).toEqual(["Acme", "Beta"]);
    expect(config.ruleSet.name).toBe("restart-from-scratch");
    expect(config.topics.decisions).toBe("a2a.decisions.v1.blue");
  });
  it("runs default/3 when A2A_LEDGER_RULES names it by version", () => {
    expect(loadReconcilerConfig({ A2A_LEDGER_RULES: "default/3" }).ruleSet.rulesVersion).toBe("default/3");
  });
  it("names the variable and the choices for an unknown rule set", () => {
    expect(() => loadReconcilerConfig({ A2A_LEDGER_RULES: "lenient" })).toThrow(ConfigError);
    expect(() => loadReconcilerConfig({ A2A_LEDGER_RULES: "lenient" })).toThrow(
      /A2A_LEDGER_RULES="lenient": expected one of default, restart-from-scratch/,
    );
  });
  it("refuses out-of-range numbers and illegal names", () => {
    expect(() => loadReconcilerConfig({ A2A_LEDGER_RECONCILER_MAX_BATCH: "0" })).toThrow(/MAX_BATCH="0"/);
    expect(() => loadReconcilerConfig({ A2A_LEDGER_RECONCILER_SESSION_TIMEOUT_MS: "100" })).toThrow(
      /SESSION_TIMEOUT_MS/,
    );
    expect(() => loadReconcilerConfig({ A2A_LEDGER_TOPIC_SUFFIX: "a b" })).toThrow(/TOPIC_SUFFIX/);
    expect(() => loadReconcilerConfig({ A2A_LEDGER_RECONCILER_GROUP: "g/1" })).toThrow(/RECONCILER_GROUP/);
  });
  it("lists every problem at once, each naming its variable", () => {
    let error: unknown;
    try {
      loadReconcilerConfig({
        A2A_LEDGER_RULES: "lenient",
        A2A_LEDGER_RECONCILER_MAX_BATCH: "0",
        A2A_LEDGER_RECONCILER_METRICS_PORT: "80",
        A2A_LEDGER_TOPIC_SUFFIX: "a b",
        KAFKA_BROKERS: "nohost",
      });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).problems).toEqual([
      'KAFKA_BROKERS entry "nohost" is not host:port',
      `A2A_LEDGER_RULES="lenient": expected one of ${ruleSetNames.join(", ")}`,
      "A2A_LEDGER_TOPIC_SUFFIX=\"a b\": letters, digits, '.', '_' and '-' only",
      'A2A_LEDGER_RECONCILER_METRICS_PORT="80" must be an integer from 1024 to 65535',
      'A2A_LEDGER_RECONCILER_MAX_BATCH="0" must be an integer from 1 to 100000',
    ]);
  });
  it("holds a memory budget of live correlations: half the heap at 8 KiB each unless set", () => {
    expect(loadReconcilerConfig({}).maxCorrelations).toBe(defaultMaxCorrelations());
    expect(loadReconcilerConfig({ A2A_LEDGER_RECONCILER_MAX_CORRELATIONS: "250000" }).maxCorrelations).toBe(250_000);
    expect(() => loadReconcilerConfig({ A2A_LEDGER_RECONCILER_MAX_CORRELATIONS: "0" })).toThrow(
      /A2A_LEDGER_RECONCILER_MAX_CORRELATIONS="0" must be an integer from 1/,
    );
  });
  it("reads a metrics port only when one is set", () => {
    expect(loadReconcilerConfig({}).metricsPort).toBeUndefined();
    expect(loadReconcilerConfig({ A2A_LEDGER_RECONCILER_METRICS_PORT: "9464" }).metricsPort).toBe(9464);
  });
});
