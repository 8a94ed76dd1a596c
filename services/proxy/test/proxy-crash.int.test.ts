/**
 * Fault scenario 6: a recording proxy, its own process, is killed (SIGKILL) while it holds observations
 * it has not sent (the ledger unreachable), and started again on the same spool. Every observation it had
 * answered traffic for reaches the observations topic, no eventId with two payloads; and the correlation
 * memory survives: a GetTask after the restart that answers TaskNotFound lands in the task's correlation.
 *
 * Traffic comes from the real @a2a-js/sdk client to a real @a2a-js/sdk worker (W1, in this process);
 * the topic is read back by the oracle (`@a2a-ledger/kafka/oracle`: plain kafkajs, the registry client).
 */
import { fileURLToPath } from "node:url";
import { TaskNotFoundError } from "@a2a-js/sdk/errors";
import {
  killHard,
  metricValue,
  readyOnMessage,
  spawnService,
  stopChild,
  type ChildService,
} from "@a2a-ledger/env/testing";
import { endpointsFromEnv } from "@a2a-ledger/kafka";
import { copiesByEventId, readTopic, type OracleRecord } from "@a2a-ledger/kafka/oracle";
import { clientFor, userMessage } from "@a2a-ledger/mesh-agents";
import { blockingJson } from "./http.ts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ledgerTopic, type Ledger, type LedgerTopic } from "./ledger.ts";
import { deadPort } from "./misbehaving-workers.ts";
import { freshSpoolDir } from "./proxy.ts";
import { startTappedAgent, type TappedAgent } from "./tapped-agent.ts";

const proxyMain = fileURLToPath(new URL("../src/main.ts", import.meta.url));
const endpoints = endpointsFromEnv();

let topic: LedgerTopic;
let ledger: Ledger | undefined;
let agent: TappedAgent;
let ingestPort: number;
const spoolDir = freshSpoolDir();
const running: ChildService[] = [];

async function startProxy(): Promise<{ service: ChildService; url: string }> {
  const service = await spawnService("proxy", process.execPath, ["--import", "tsx", proxyMain], {
    env: {
      ...process.env,
      A2A_LEDGER_PROXY_WORKER_ID: "W1",
      A2A_LEDGER_PROXY_UPSTREAM_URL: agent.url,
      A2A_LEDGER_PROXY_PORT: "0",
      A2A_LEDGER_PROXY_REWRITE_CARD_URLS: "true",
      A2A_LEDGER_PROXY_INGEST_URL: `http://127.0.0.1:${ingestPort}`,
      A2A_LEDGER_PROXY_SPOOL_DIR: spoolDir,
      A2A_LEDGER_PROXY_FLUSH_DELAY_MS: "0",
      A2A_LEDGER_PROXY_LOG_LEVEL: "info",
    },
    ready: readyOnMessage("listening"),
  });
  running.push(service);
  return { service, url: String(service.readyEntry.url) };
}

const metrics = async (url: string) => (await fetch(`${url}/metrics`)).text();
const sumOf = (text: string, name: string): number =>
  text
    .split("\n")
    .filter((line) => line.startsWith(`${name}{`) || line.startsWith(`${name} `))
    .reduce((sum, line) => sum + Number(line.slice(line.lastIndexOf(" ") + 1)), 0);

beforeAll(async () => {
  topic = await ledgerTopic("crash");
  agent = await startTappedAgent("w1");
  ingestPort = await deadPort();
});
afterAll(async () => {
  for (const s of running) await stopChild(s.child, 5_000);
  await agent?.close();
  await ledger?.stop();
  await topic?.remove();
});

describe("a recording proxy killed with unsent observations (scenario 6)", () => {
  it("loses none of them, repeats none with another payload, and still knows the task's correlation after its restart", async () => {
    const first = await startProxy();
    const client = await clientFor(first.url);
    const configuration = blockingJson;

    // A task under a named correlation that waits for input: the one W1 will lose.
    const waiting = await client.sendMessage({
      tenant: "",
      message: userMessage("need-input crash draft", {
        messageId: "crash-wait",
        metadata: { "a2a-ledger.correlationId": "order-6" },
      }),
      configuration,
      metadata: undefined,
    });
    const lostTask = "id" in waiting ? waiting.id : "";
    expect(lostTask).not.toBe("");
    // Polled without naming the correlation: the proxy's memory attributes it.
    await client.getTask({ tenant: "", id: lostTask, historyLength: undefined });
    // Completed dispatches, named and unnamed, and a stream with three artifact chunks.
    const completed: string[] = [];
    for (let i = 0; i < 4; i++) {
      const done = await client.sendMessage({
        tenant: "",
        message: userMessage(`question ${i}`, {
          messageId: `crash-done-${i}`,
          ...(i % 2 === 0 ? { metadata: { "a2a-ledger.correlationId": `order-done-${i}` } } : {}),
        }),
        configuration,
        metadata: undefined,
      });
      completed.push("id" in done ? done.id : "");
    }
    let streamedTask = "";
    for await (const event of client.sendMessageStream({
      tenant: "",
      message: userMessage("stream chunks=3", {
        messageId: "crash-stream",
        metadata: { "a2a-ledger.correlationId": "order-stream" },
      }),
      configuration,
      metadata: undefined,
    })) {
      if (event.payload?.$case === "task") streamedTask ||= event.payload.value.id;
    }

    // Everything was answered; nothing reached the ledger, which is down.
    const before = await metrics(first.url);
    const answeredFor = sumOf(before, "a2a_proxy_observations_total");
    expect(answeredFor).toBeGreaterThan(15);
    expect(metricValue(before, "a2a_proxy_observations_sent_total")).toBe(0);
    expect(metricValue(before, "a2a_proxy_buffer_observations")).toBe(answeredFor);

    await killHard(first.service.child);
    expect(first.service.child.signalCode).toBe("SIGKILL");
    // W1 restarts too, and forgets the waiting task.
    agent.restart();
    ledger = await topic.start(ingestPort);

    const second = await startProxy();
    expect(second.service.readyEntry.replayed).toBe(answeredFor);
    // A client that does not name the correlation asks for the lost task through the restarted proxy.
    const fresh = await clientFor(second.url);
    await expect(fresh.getTask({ tenant: "", id: lostTask, historyLength: undefined })).rejects.toBeInstanceOf(
      TaskNotFoundError,
    );

    let after = "";
    for (let i = 0; i < 100; i++) {
      after = await metrics(second.url);
      if (
        metricValue(after, "a2a_proxy_buffer_observations") === 0 &&
        metricValue(after, "a2a_proxy_observations_sent_total") >= answeredFor + 1
      )
        break;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    const recordedAfter = sumOf(after, "a2a_proxy_observations_total");
    expect(metricValue(after, "a2a_proxy_spool_replayed_total")).toBe(answeredFor);
    expect(metricValue(after, "a2a_proxy_observations_sent_total")).toBe(answeredFor + recordedAfter);

    const records = await readTopic({
      brokers: endpoints.brokers,
      registryUrl: endpoints.registryUrl,
      topic: topic.topic,
      atLeast: answeredFor + recordedAfter,
    });
    const copies = copiesByEventId(records);
    expect(copies.size).toBe(answeredFor + recordedAfter);
    for (const [eventId, c] of copies) {
      expect(c.payloads.size, `eventId ${eventId} carries one payload`).toBe(1);
      expect(c.copies, `eventId ${eventId} stays within the retry bound`).toBeLessThanOrEqual(2);
    }
    for (const r of records) expect(r.key).toBe(r.value?.["correlationId"]);

    const seen = (type: string, where: (v: Record<string, unknown>) => boolean) =>
      records
        .filter((r) => r.type === type)
        .map((r) => r.value as Record<string, unknown>)
        .filter(where);
    // Every dispatch that was answered, under its correlation.
    const dispatches = seen("TaskDispatched", () => true).map((v) => [v["messageId"], v["correlationId"]]);
    expect(dispatches).toEqual(
      expect.arrayContaining([
        ["crash-wait", "order-6"],
        ["crash-done-0", "order-done-0"],
        ["crash-done-1", completed[1]],
        ["crash-done-2", "order-done-2"],
        ["crash-done-3", completed[3]],
        ["crash-stream", "order-stream"],
      ]),
    );
    expect(dispatches).toHaveLength(6);
    expect(
      seen("TaskStateObserved", (v) => v["serverTaskId"] === lostTask).map((v) => [
        v["correlationId"],
        v["state"],
        v["via"],
      ]),
    ).toEqual([
      ["order-6", "TASK_STATE_INPUT_REQUIRED", "SEND_RESPONSE"],
      ["order-6", "TASK_STATE_INPUT_REQUIRED", "GET"],
    ]);
    for (const [i, id] of completed.entries())
      expect(
        seen("TaskStateObserved", (v) => v["serverTaskId"] === id).map((v) => v["state"]),
        `dispatch ${i}`,
      ).toEqual(["TASK_STATE_COMPLETED"]);
    expect(
      seen("ArtifactEmitted", (v) => v["serverTaskId"] === streamedTask).map((v) => [
        v["correlationId"],
        v["append"],
        v["lastChunk"],
      ]),
    ).toEqual([
      ["order-stream", false, false],
      ["order-stream", true, false],
      ["order-stream", true, true],
    ]);
    // The loss after the restart lands in the task's correlation, not in one keyed by the server task id.
    expect(
      seen("TaskNotFoundObserved", () => true).map((v) => [v["correlationId"], v["serverTaskId"], v["method"]]),
    ).toEqual([["order-6", lostTask, "GetTask"]]);
    expect(records.every((r: OracleRecord) => r.value?.["observer"] === "proxy:W1")).toBe(true);
  });
});
