import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { endpointsFromEnv } from "@a2a-ledger/kafka";
import { catalogue } from "@a2a-ledger/schemas";
import { loadConfig } from "./config.ts";
import { startKafka, stopKafka } from "./native-kafka.ts";
import { brokerAnswers } from "./readiness.ts";
import { applyProjectSetup } from "./stack.ts";

describe("the stack the project started", () => {
  it("answers /subjects with every subject of the catalogue after setup", async () => {
    const { brokers, registryUrl } = endpointsFromEnv();
    const setup = await applyProjectSetup(brokers, registryUrl);
    expect(setup.subjects).toBe(catalogue().length);
    const subjects = (await (await fetch(`${registryUrl}/subjects`)).json()) as string[];
    for (const { subject } of catalogue()) expect(subjects).toContain(subject);
  });
});

describe("the native Kafka launcher", () => {
  it("starts a broker that answers metadata, keeps its data across a restart, and stops it", async () => {
    const config = loadConfig({
      ...process.env,
      A2A_LEDGER_DATA_DIR: mkdtempSync(join(tmpdir(), "kafka-launcher-")),
      A2A_LEDGER_KAFKA_PORT: "29192",
      A2A_LEDGER_KAFKA_CONTROLLER_PORT: "29193",
      A2A_LEDGER_REGISTRY_PORT: "28181",
      A2A_LEDGER_KAFKA_NODES: "1",
      KAFKA_BROKERS: "",
      SCHEMA_REGISTRY_URL: "",
    });
    try {
      const brokers = await startKafka(config);
      expect(brokers).toBe("127.0.0.1:29192");
      const { createKafka } = await import("@a2a-ledger/kafka");
      const admin = createKafka({ brokers, clientId: "launcher-test" }).admin();
      await admin.connect();
      await admin.createTopics({ waitForLeaders: true, topics: [{ topic: "survives-restart", numPartitions: 1 }] });
      await admin.disconnect();

      expect(await stopKafka(config)).toBe(true);
      expect(await brokerAnswers(brokers).catch(() => false)).toBe(false);
      await startKafka(config);
      const again = createKafka({ brokers, clientId: "launcher-test" }).admin();
      await again.connect();
      expect(await again.listTopics()).toContain("survives-restart");
      await again.disconnect();
    } finally {
      await stopKafka(config);
    }
  }, 180_000);
});
