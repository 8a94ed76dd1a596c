/**
 * Schema ids live in Kafka (kafkasql storage): a record written before a registry restart decodes
 * after it, under the same schema id. Runs a private registry instance started by the project's
 * launcher, with its own journal topic, so the shared registry is never disturbed.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { endpointsFromEnv } from "@a2a-ledger/kafka";
import { Serde, schemaIdOf } from "@a2a-ledger/schemas/serde";
import { sampleObservation } from "@a2a-ledger/schemas/testing";
import { loadConfig } from "./config.ts";
import { startRegistry, stopRegistry } from "./native-registry.ts";

const config = loadConfig({
  ...process.env,
  A2A_LEDGER_DATA_DIR: mkdtempSync(join(tmpdir(), "registry-restart-")),
  A2A_LEDGER_REGISTRY_PORT: "18091",
  KAFKA_BROKERS: "",
  SCHEMA_REGISTRY_URL: "",
});
const instance = {
  name: "registry-restart",
  port: 18091,
  brokers: endpointsFromEnv().brokers,
  journalTopic: `kafkasql-journal-restart-test-${process.pid}`,
};

afterAll(async () => {
  await stopRegistry(config, instance.name);
});

describe("registry restart", () => {
  it("decodes a record written before the restart, with the same schema id", async () => {
    const url = await startRegistry(config, instance);
    const before = new Serde(url);
    await before.registerAll();
    const record = sampleObservation("TaskStateObserved");
    const bytes = await before.encode(record);
    const idBefore = schemaIdOf(bytes);

    expect(await stopRegistry(config, instance.name)).toBe(true);
    await expect(fetch(`${url}/subjects`)).rejects.toThrow();
    await startRegistry(config, instance);

    const after = new Serde(url);
    expect((await after.decode(bytes)).record).toEqual(record);
    expect(schemaIdOf(await after.encode(record))).toBe(idBefore);
    expect((await after.registerAll()).get("TaskStateObserved")).toBe(idBefore);
  }, 420_000);
});
