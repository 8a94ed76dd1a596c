import { describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "./config.ts";

describe("loadConfig", () => {
  it("defaults to the native stack's ports and a data folder in the repository", () => {
    const config = loadConfig({});
    expect(config).toMatchObject({ kafkaPort: 19092, controllerPort: 19093, registryPort: 18081, externalBrokers: undefined });
    expect(config.dataDir).toMatch(/\.a2a-ledger$/);
    expect(config.cacheDir).toMatch(/\.cache\/a2a-ledger$/);
  });

  it("names the variable and the value of a bad port", () => {
    expect(() => loadConfig({ A2A_LEDGER_KAFKA_PORT: "80" })).toThrow(ConfigError);
    expect(() => loadConfig({ A2A_LEDGER_KAFKA_PORT: "nine" })).toThrow(/A2A_LEDGER_KAFKA_PORT="nine"/);
  });

  it("refuses two services on one port", () => {
    expect(() => loadConfig({ A2A_LEDGER_REGISTRY_PORT: "19092" })).toThrow(/must differ/);
  });

  it("needs the registry with an external cluster", () => {
    expect(() => loadConfig({ KAFKA_BROKERS: "kafka:9092" })).toThrow(/SCHEMA_REGISTRY_URL is not/);
  });

  it("checks the shape of external endpoints", () => {
    expect(() => loadConfig({ KAFKA_BROKERS: "kafka", SCHEMA_REGISTRY_URL: "http://r" })).toThrow(/not host:port/);
    expect(() => loadConfig({ KAFKA_BROKERS: "kafka:9092", SCHEMA_REGISTRY_URL: "registry" })).toThrow(/not an http/);
    expect(loadConfig({ KAFKA_BROKERS: "a:1,b:2", SCHEMA_REGISTRY_URL: "http://r/apis/ccompat/v7" }).externalBrokers).toBe("a:1,b:2");
  });
});
