/**
 * The build is what a deployment runs: ingest from services/ingest/dist (`npm run build`) under plain
 * node — no tsx, no loader flag, no `development` export condition, so an import of any TypeScript file
 * would fail — serves the API and writes an accepted observation to Kafka.
 */
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { compiledEnv } from "@a2a-ledger/env";
import { spawnService, stopChild } from "@a2a-ledger/env/testing";
import { describe, expect, it, onTestFinished } from "vitest";
import { observation } from "./observations.ts";
import { createTopic, endpoints, kafkaAt, readTopic, withAdmin } from "./stack.ts";

const main = fileURLToPath(new URL("../dist/main.js", import.meta.url));

describe("ingest from its build", () => {
  it("starts from dist/main.js under plain node and answers 202 to an observation that lands on the topic", async () => {
    expect(existsSync(main), `${main} is missing: run \`npm run build\` first`).toBe(true);
    const kafka = kafkaAt();
    const topic = await withAdmin(kafka, (admin) => createTopic(admin, "compiled", 1));
    const env: NodeJS.ProcessEnv = {
      ...compiledEnv(process.env),
      KAFKA_BROKERS: endpoints.brokers,
      SCHEMA_REGISTRY_URL: endpoints.registryUrl,
      A2A_LEDGER_INGEST_TOPIC: topic,
      A2A_LEDGER_INGEST_HOST: "127.0.0.1",
      A2A_LEDGER_INGEST_PORT: "0",
      A2A_LEDGER_INGEST_TOKENS: "",
    };
    let url: string | undefined;
    const { child } = await spawnService("ingest (compiled)", process.execPath, [main], {
      env,
      startTimeoutMs: 90_000,
      ready: (entry) => {
        const listening = typeof entry.msg === "string" ? /^Server listening at (\S+)$/.exec(entry.msg) : null;
        if (listening !== null) url = listening[1];
        return entry.msg === "ingest ready for observations";
      },
    });
    onTestFinished(() => stopChild(child, 5_000));
    expect(child.spawnargs).toEqual([process.execPath, main]);
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);

    const response = await fetch(`${url}/v1/observations`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(observation("compiled", 2, "c-compiled")),
    });
    expect(response.status).toBe(202);
    expect(await response.json()).toEqual({ accepted: 1 });
    const records = await readTopic(kafka, topic, 1);
    expect(records.map((r) => r.key)).toEqual(["c-compiled"]);
  });
});
