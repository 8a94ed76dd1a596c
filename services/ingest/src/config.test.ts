import { describe, expect, it } from "vitest";
import { describeRenamedSettings } from "@a2a-ledger/env/testing";
import { ConfigError } from "@a2a-ledger/env";
import { configDefaults, loadConfig } from "./config.ts";

describe("loadConfig", () => {
  it("has safe defaults: loopback, the observations topic, no tokens", () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      host: "127.0.0.1",
      port: configDefaults.port,
      topic: "a2a.observations.v1",
      tokens: [],
      brokers: "127.0.0.1:19092",
    });
  });

  it("reads every variable", () => {
    const config = loadConfig({
      A2A_LEDGER_INGEST_HOST: "0.0.0.0",
      A2A_LEDGER_INGEST_PORT: "9000",
      KAFKA_BROKERS: "k1:9092,k2:9092",
      SCHEMA_REGISTRY_URL: "http://r:8081/apis/ccompat/v7/",
      A2A_LEDGER_INGEST_TOPIC: "obs",
      A2A_LEDGER_INGEST_MAX_BODY_BYTES: "2048",
      A2A_LEDGER_INGEST_MAX_EVENTS: "10",
      A2A_LEDGER_INGEST_MAX_QUEUED_RECORDS: "100",
      A2A_LEDGER_INGEST_TOKENS: "aaaaaaaaaaaaaaaa, bbbbbbbbbbbbbbbb",
      A2A_LEDGER_INGEST_PRODUCE_TIMEOUT_MS: "1500",
      A2A_LEDGER_INGEST_RETRY_AFTER_SECONDS: "2",
      A2A_LEDGER_INGEST_LOG_LEVEL: "warn",
    });
    expect(config).toMatchObject({
      host: "0.0.0.0",
      port: 9000,
      brokers: "k1:9092,k2:9092",
      registryUrl: "http://r:8081/apis/ccompat/v7",
      topic: "obs",
      maxBodyBytes: 2048,
      maxEvents: 10,
      maxQueuedRecords: 100,
      produceTimeoutMs: 1500,
      retryAfterSeconds: 2,
      logLevel: "warn",
    });
    expect(config.tokens).toEqual([
      { token: "aaaaaaaaaaaaaaaa", observers: ["*"] },
      { token: "bbbbbbbbbbbbbbbb", observers: ["*"] },
    ]);
  });

  it("reports each bad value with its variable, all at once, and never echoes a token", () => {
    try {
      loadConfig({
        A2A_LEDGER_INGEST_PORT: "http",
        A2A_LEDGER_INGEST_MAX_EVENTS: "-3",
        KAFKA_BROKERS: "nohost",
        A2A_LEDGER_INGEST_LOG_LEVEL: "loud",
        A2A_LEDGER_INGEST_TOKENS: "short-secret",
        A2A_LEDGER_INGEST_TOPIC: "bad topic",
      });
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(ConfigError);
      expect((e as ConfigError).code).toBe("INGEST_CONFIG_INVALID");
      const error = e as ConfigError;
      expect(error.problems).toHaveLength(6);
      for (const name of [
        "A2A_LEDGER_INGEST_PORT",
        "A2A_LEDGER_INGEST_MAX_EVENTS",
        "KAFKA_BROKERS",
        "A2A_LEDGER_INGEST_LOG_LEVEL",
        "A2A_LEDGER_INGEST_TOKENS",
        "A2A_LEDGER_INGEST_TOPIC",
      ])
        expect(error.message).toContain(name);
      expect(error.message).not.toContain("short-secret");
    }
  });

  it("reads the rate limit and its window; 0 switches it off, a negative or fractional value is refused", () => {
    expect(loadConfig({})).toMatchObject({
      rateLimit: configDefaults.rateLimit,
      rateLimitWindowMs: configDefaults.rateLimitWindowMs,
    });
    expect(
      loadConfig({ A2A_LEDGER_INGEST_RATE_LIMIT: "0", A2A_LEDGER_INGEST_RATE_LIMIT_WINDOW_MS: "1000" }),
    ).toMatchObject({ rateLimit: 0, rateLimitWindowMs: 1000 });
    expect(() => loadConfig({ A2A_LEDGER_INGEST_RATE_LIMIT: "-1" })).toThrow(/A2A_LEDGER_INGEST_RATE_LIMIT\b/);
    expect(() => loadConfig({ A2A_LEDGER_INGEST_RATE_LIMIT_WINDOW_MS: "1.5" })).toThrow(
      /A2A_LEDGER_INGEST_RATE_LIMIT_WINDOW_MS/,
    );
  });

  it("refuses a queue smaller than one full batch", () => {
    expect(() =>
      loadConfig({ A2A_LEDGER_INGEST_MAX_EVENTS: "100", A2A_LEDGER_INGEST_MAX_QUEUED_RECORDS: "50" }),
    ).toThrow(/A2A_LEDGER_INGEST_MAX_QUEUED_RECORDS/);
  });
});

describeRenamedSettings({ service: "INGEST", load: loadConfig });
