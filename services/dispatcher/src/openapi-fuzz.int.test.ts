/**
 * schemathesis (schemathesisRun of @a2a-ledger/env/testing) against the dispatcher as its own process on
 * the shared Kafka and registry, consuming the commands topic of a throwaway topic set: no schema-valid
 * request is rejected (positive_data_acceptance), no answer is a 5xx (not_a_server_error), and other
 * methods on its paths get 405 with Allow (unsupported_method).
 */
import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { readyOnMessage, schemathesisRun, spawnService, stopChild, type ChildService } from "@a2a-ledger/env/testing";
import { createKafka, endpointsFromEnv, ensureTopics, suffixedTopicNames, topicSpecs } from "@a2a-ledger/kafka";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { dispatcherMain } from "../test/live-mesh.ts";

const suffix = `fuzz-${randomUUID().slice(0, 8)}`;
const topics = suffixedTopicNames(suffix);
const dir = mkdtempSync(join(tmpdir(), "dispatcher-fuzz-"));
const kafka = createKafka({ brokers: endpointsFromEnv().brokers, clientId: "dispatcher-fuzz-test" });
const admin = kafka.admin();
let dispatcher: ChildService;
let url: string;

beforeAll(async () => {
  await admin.connect();
  await ensureTopics(admin, topicSpecs(topics));
  dispatcher = await spawnService("dispatcher", process.execPath, ["--import", "tsx", dispatcherMain], {
    env: {
      ...process.env,
      A2A_LEDGER_TOPIC_SUFFIX: suffix,
      A2A_LEDGER_DISPATCHER_PORT: "0",
      A2A_LEDGER_DISPATCHER_JOURNAL_PATH: join(dir, "journal.sqlite"),
      A2A_LEDGER_DISPATCHER_LOG_LEVEL: "info",
      A2A_LEDGER_DISPATCHER_SESSION_TIMEOUT_MS: "6000",
    },
    startTimeoutMs: 60_000,
    ready: readyOnMessage("listening"),
  });
  url = String(dispatcher.readyEntry.url);
  // Healthy once its consumer runs.
  const deadline = Date.now() + 60_000;
  while ((await fetch(`${url}/healthz`)).status !== 200) {
    if (Date.now() > deadline)
      throw new Error(`the dispatcher did not become healthy:\n${dispatcher.output().slice(-4_000)}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}, 120_000);
afterAll(async () => {
  if (dispatcher !== undefined) await stopChild(dispatcher.child);
  await admin.deleteTopics({ topics: Object.values(topics) }).catch(() => undefined);
  await admin.disconnect();
  rmSync(dir, { recursive: true, force: true });
});

describe("the dispatcher's OpenAPI document against the running process (schemathesis)", () => {
  it("finds no schema-valid request rejected, no 5xx, and 405 with Allow for undeclared methods", async () => {
    const result = await schemathesisRun(url, "dispatcher", {
      checks: "not_a_server_error,positive_data_acceptance,unsupported_method",
      phases: "examples,coverage,fuzzing",
      maxExamples: 10,
    });
    expect(result.code, result.output.slice(-8_000)).toBe(0);
    expect(result.operations).toEqual(expect.arrayContaining(["GET /metrics", "GET /healthz"]));
  }, 200_000);
});
