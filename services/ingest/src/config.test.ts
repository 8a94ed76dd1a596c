import { describe, expect, it } from "vitest";
import { IngestConfigError, configDefaults, loadConfig } from "./config.ts";

describe("loadConfig", () => {
  it("has safe defaults: loopback, the observations topic, no tokens", () => {
    const config = loadConfig({});
    expect(config).toMatchObject({ host: "127.0.0.1", port: configDefaults.port, topic: "a2a.observations.v1", tokens: [], brokers: "127.0.0.1:19092" });
  });

  it("reads every variable", () => {
    const config = loadConfig({
      INGEST_HOST: "0.0.0.0", INGEST_PORT: "9000", KAFKA_BROKERS: "k1:9092,k2:9092", SCHEMA_REGISTRY_URL: "http://r:8081/apis/ccompat/v7/",
      INGEST_TOPIC: "obs", INGEST_MAX_BODY_BYTES: "2048", INGEST_MAX_EVENTS: "10", INGEST_MAX_QUEUED_RECORDS: "100", INGEST_TOKENS: "aaaaaaaaaaaaaaaa, bbbbbbbbbbbbbbbb",
      INGEST_PRODUCE_TIMEOUT_MS: "1500", INGEST_RETRY_AFTER_SECONDS: "2", INGEST_LOG_LEVEL: "warn",
    });
    expect(config).toMatchObject({ host: "0.0.0.0", port: 9000, brokers: "k1:9092,k2:9092", registryUrl: "http://r:8081/apis/ccompat/v7", topic: "obs", maxBodyBytes: 2048, maxEvents: 10, maxQueuedRecords: 100, produceTimeoutMs: 1500, retryAfterSeconds: 2, logLevel: "warn" });
    expect(config.tokens).toEqual([{ token: "aaaaaaaaaaaaaaaa", observers: ["*"] }, { token: "bbbbbbbbbbbbbbbb", observers: ["*"] }]);
  });

  it("reports each bad value with its variable, all at once, and never echoes a token", () => {
    try {
      loadConfig({ INGEST_PORT: "http", INGEST_MAX_EVENTS: "-3", KAFKA_BROKERS: "nohost", INGEST_LOG_LEVEL: "loud", INGEST_TOKENS: "short-secret", INGEST_TOPIC: "bad topic" });
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(IngestConfigError);
      const error = e as IngestConfigError;
      expect(error.problems).toHaveLength(6);
      for (const name of ["INGEST_PORT", "INGEST_MAX_EVENTS", "KAFKA_BROKERS", "INGEST_LOG_LEVEL", "INGEST_TOKENS", "INGEST_TOPIC"]) expect(error.message).toContain(name);
      expect(error.message).not.toContain("short-secret");
    }
  });

  it("refuses a queue smaller than one full batch", () => {
    expect(() => loadConfig({ INGEST_MAX_EVENTS: "100", INGEST_MAX_QUEUED_RECORDS: "50" })).toThrow(/INGEST_MAX_QUEUED_RECORDS/);
  });
});
