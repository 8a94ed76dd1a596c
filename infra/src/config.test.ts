import { describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "./config.ts";

describe("loadConfig", () => {
  it("defaults to the native stack's ports and a data folder in the repository", () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      kafkaPort: 19092,
      controllerPort: 19093,
      registryPort: 18081,
      externalBrokers: undefined,
    });
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

  it("sizes new correlation-keyed topics with A2A_LEDGER_PARTITIONS (default 6) and names a bad value", () => {
    expect(loadConfig({}).partitions).toBe(6);
    expect(loadConfig({ A2A_LEDGER_PARTITIONS: "24" }).partitions).toBe(24);
    expect(() => loadConfig({ A2A_LEDGER_PARTITIONS: "0" })).toThrow(ConfigError);
    expect(() => loadConfig({ A2A_LEDGER_PARTITIONS: "lots" })).toThrow(
      /A2A_LEDGER_PARTITIONS="lots": expected a whole number from 1 to 1024/,
    );
  });

  it("needs the registry with an external cluster", () => {
    expect(() => loadConfig({ KAFKA_BROKERS: "kafka:9092" })).toThrow(/SCHEMA_REGISTRY_URL is not/);
  });

  it("checks the shape of external endpoints", () => {
    expect(() => loadConfig({ KAFKA_BROKERS: "kafka", SCHEMA_REGISTRY_URL: "http://r" })).toThrow(/not host:port/);
    expect(() => loadConfig({ KAFKA_BROKERS: "kafka:9092", SCHEMA_REGISTRY_URL: "registry" })).toThrow(/not an http/);
    expect(
      loadConfig({ KAFKA_BROKERS: "a:1,b:2", SCHEMA_REGISTRY_URL: "http://r/apis/ccompat/v7" }).externalBrokers,
    ).toBe("a:1,b:2");
  });
});

describe("the secured mode's configuration", () => {
  it("is off by default and on with A2A_LEDGER_KAFKA_SECURITY=secured, its SSL listeners on their own ports", () => {
    expect(loadConfig({}).security).toBe("plaintext");
    const secured = loadConfig({
      A2A_LEDGER_KAFKA_SECURITY: "secured",
      A2A_LEDGER_KAFKA_PORT: "25000",
      A2A_LEDGER_KAFKA_CONTROLLER_PORT: "25001",
      A2A_LEDGER_KAFKA_SSL_PORT: "25010",
      A2A_LEDGER_REGISTRY_PORT: "25020",
    });
    expect(secured).toMatchObject({ security: "secured", sslPort: 25010 });
    expect(loadConfig({ A2A_LEDGER_KAFKA_PORT: "30000" }).sslPort).toBe(30010);
  });

  it("refuses an unknown mode and an SSL port that collides with another", () => {
    expect(() => loadConfig({ A2A_LEDGER_KAFKA_SECURITY: "tls" })).toThrow(
      /A2A_LEDGER_KAFKA_SECURITY="tls" must be plaintext or secured/,
    );
    expect(() => loadConfig({ A2A_LEDGER_KAFKA_SECURITY: "secured", A2A_LEDGER_KAFKA_SSL_PORT: "19093" })).toThrow(
      /must differ/,
    );
    expect(() =>
      loadConfig({
        A2A_LEDGER_KAFKA_SECURITY: "secured",
        A2A_LEDGER_REGISTRY_PORT: "30000",
        A2A_LEDGER_KAFKA_SSL_PORT: "30002",
      }),
    ).toThrow(/must differ/);
  });
});
