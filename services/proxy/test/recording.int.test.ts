/**
 * What the proxy records lands on Kafka through the real ingest service: a story against W1 (cards,
 * dispatches with and without a correlation id, GetTask, a chunked stream, a v0.3 call, a restart and
 * the TaskNotFound that follows), read back from the topic and decoded with the registry's schemas.
 */
import { clientFor, userMessage } from "@a2a-ledger/mesh-agents";
import type { Observation } from "@a2a-ledger/schemas";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { jsonRpc, rawRequest, v03, v1, blockingJson } from "./http.ts";
import { ledgerTopic, type Ledger, type LedgerTopic } from "./ledger.ts";
import { drained, metric, startProxy, testConfig, type TestProxy } from "./proxy.ts";
import { startTappedAgent, type TappedAgent } from "./tapped-agent.ts";

let topic: LedgerTopic;
let ledger: Ledger;
let agent: TappedAgent;
let proxy: TestProxy;

beforeAll(async () => {
  topic = await ledgerTopic("recording");
  ledger = await topic.start();
  agent = await startTappedAgent("w1");
  proxy = await startProxy(testConfig({ upstreamUrl: agent.url, ingestUrl: ledger.url, rewriteCardUrls: true }));
});
afterAll(async () => {
  await proxy?.close();
  await agent?.close();
  await ledger?.stop();
  await topic?.remove();
});

type Of<T extends Observation["type"]> = Extract<Observation, { type: T }>;

describe("recording through the real ingest service onto Kafka", () => {
  it("records the story with the right types, correlation ids, states, channels and media types", async () => {
    // 1. An orchestrator reads the card through the proxy and dispatches, naming its correlation in the message metadata.
    const client = await clientFor(proxy.url);
    const waiting = await client.sendMessage({
      tenant: "",
      message: userMessage("need-input draft", {
        messageId: "msg-A",
        metadata: { "a2a-ledger.correlationId": "corr-A", "a2a-ledger.skillId": "answer" },
      }),
      configuration: blockingJson,
      metadata: undefined,
    });
    const taskA = "id" in waiting ? waiting.id : "";
    // 2. It polls without naming the correlation: the proxy remembers it per task.
    await client.getTask({ tenant: "", id: taskA, historyLength: undefined });
    // 3. A streamed dispatch under a correlation header, with the artifact in three chunks.
    const streamed = await rawRequest(`${proxy.url}/a2a/jsonrpc`, {
      headers: { ...v1, "A2A-Ledger-Correlation-Id": "corr-B" },
      body: jsonRpc("SendStreamingMessage", {
        message: { messageId: "msg-B", role: "ROLE_USER", parts: [{ text: "stream chunks=3" }] },
      }),
    });
    const taskB = /"id":"([^"]+)"/.exec(streamed.body.toString())?.[1] ?? "";
    // 4. A v0.3 client without any correlation id: the task id becomes it.
    const legacy = await rawRequest(`${proxy.url}/a2a/jsonrpc`, {
      headers: v03,
      body: jsonRpc("message/send", {
        message: { kind: "message", messageId: "msg-C", role: "user", parts: [{ kind: "text", text: "legacy" }] },
      }),
    });
    const taskC = (JSON.parse(legacy.body.toString()) as { result: { id: string } }).result.id;
    // 5. W1 restarts and loses task A: GetTask over JSON-RPC and HTTP+JSON answer TaskNotFound.
    agent.restart();
    await rawRequest(`${proxy.url}/a2a/jsonrpc`, { headers: v1, body: jsonRpc("GetTask", { id: taskA }) });
    await rawRequest(`${proxy.url}/a2a/rest/tasks/${taskA}`, { headers: { "A2A-Version": "1.0" } });

    await drained(proxy.app, 30_000);
    const sent = await metric(proxy.url, "a2a_proxy_observations_sent_total");
    const records = await ledger.records(sent);
    expect(records).toHaveLength(sent);
    for (const r of records) expect(r.key).toBe(r.observation.correlationId);
    const all = records.map((r) => r.observation);
    const ofType = <T extends Observation["type"]>(type: T, correlationId: string): Of<T>[] =>
      all.filter((o): o is Of<T> => o.type === type && o.correlationId === correlationId);
    expect(new Set(all.map((o) => o.eventId)).size).toBe(all.length);
    expect(all.every((o) => o.observer === "proxy:W1" && o.workerId === "W1")).toBe(true);

    const card = all.find((o): o is Of<"AgentCardObserved"> => o.type === "AgentCardObserved");
    expect(card).toMatchObject({
      correlationId: "card:W1",
      cardUrl: `${agent.url}/.well-known/agent-card.json`,
      cacheMaxAgeSeconds: 3600,
    });
    expect(card?.etag).toMatch(/^W\//);
    expect(JSON.parse(card?.card ?? "{}").supportedInterfaces[0].url).toBe(`${agent.url}/a2a/jsonrpc`);

    expect(ofType("TaskDispatched", "corr-A")).toMatchObject([
      { messageId: "msg-A", skillId: "answer", acceptedOutputModes: ["application/json"], attempt: 1 },
    ]);
    expect(ofType("TaskStateObserved", "corr-A").map((o) => [o.serverTaskId, o.state, o.via])).toEqual([
      [taskA, "TASK_STATE_INPUT_REQUIRED", "SEND_RESPONSE"],
      [taskA, "TASK_STATE_INPUT_REQUIRED", "GET"],
    ]);
    expect(ofType("TaskNotFoundObserved", "corr-A").map((o) => [o.serverTaskId, o.method, o.errorCode])).toEqual([
      [taskA, "GetTask", "-32001"],
      [taskA, "GetTask", "404"],
    ]);

    expect(ofType("TaskDispatched", "corr-B")).toMatchObject([
      { messageId: "msg-B", skillId: null, acceptedOutputModes: [] },
    ]);
    expect(ofType("TaskStateObserved", "corr-B").map((o) => [o.serverTaskId, o.state, o.via])).toEqual([
      [taskB, "TASK_STATE_SUBMITTED", "STREAM"],
      [taskB, "TASK_STATE_WORKING", "STREAM"],
      [taskB, "TASK_STATE_COMPLETED", "STREAM"],
    ]);
    expect(
      ofType("ArtifactEmitted", "corr-B").map((o) => [
        o.artifactId,
        o.name,
        o.append,
        o.lastChunk,
        o.parts.map((p) => [p.kind, p.mediaType]),
      ]),
    ).toEqual([
      [`${taskB}-result`, "result", false, false, [["TEXT", "application/json"]]],
      [`${taskB}-result`, "result", true, false, [["TEXT", "application/json"]]],
      [`${taskB}-result`, "result", true, true, [["TEXT", "application/json"]]],
    ]);

    expect(ofType("TaskDispatched", taskC)).toMatchObject([{ messageId: "msg-C" }]);
    expect(ofType("TaskStateObserved", taskC).map((o) => [o.state, o.rawState, o.via])).toEqual([
      ["TASK_STATE_COMPLETED", "completed", "SEND_RESPONSE"],
    ]);
    expect(
      ofType("ArtifactEmitted", taskC).map((o) => [o.lastChunk, o.parts.map((p) => [p.kind, p.mediaType])]),
    ).toEqual([[null, [["DATA", null]]]]);
  });

  it("records a task lost, seen again and lost again as two losses, and the same loss polled twice as one", async () => {
    const client = await clientFor(proxy.url);
    const sent = await client.sendMessage({
      tenant: "",
      message: userMessage("need-input draft", {
        messageId: "msg-L",
        metadata: { "a2a-ledger.correlationId": "corr-L" },
      }),
      configuration: blockingJson,
      metadata: undefined,
    });
    const task = "id" in sent ? sent.id : "";
    const getTask = () =>
      rawRequest(`${proxy.url}/a2a/jsonrpc`, { headers: v1, body: jsonRpc("GetTask", { id: task }) });
    // The worker loses the task, is asked twice, then a replica that kept it answers, then it is lost again.
    agent.restart();
    await getTask();
    await getTask();
    agent.recover();
    expect((await getTask()).body.toString()).toContain("TASK_STATE_INPUT_REQUIRED");
    agent.restart();
    await getTask();

    await drained(proxy.app, 30_000);
    const records = await ledger.records(await metric(proxy.url, "a2a_proxy_observations_sent_total"));
    const lost = records
      .map((r) => r.observation)
      .filter((o) => o.type === "TaskNotFoundObserved" && o.correlationId === "corr-L")
      .map((o) => o.eventId);
    expect(lost).toHaveLength(3);
    const [first, again, second] = lost;
    expect(again).toBe(first);
    expect(second).not.toBe(first);
  });

  it("records the A2A TCK's invalid dispatches (a message without messageId) under a correlation of their own, none refused by the ledger", async () => {
    const sentBefore = await metric(proxy.url, "a2a_proxy_observations_sent_total");
    // The TCK's requests, byte for byte in shape: v0.3 message/send with a message missing every required
    // field (tests/mandatory/protocol/test_message_send_method.py), the same as a v1.0 SendMessage, and one
    // posted to the card's base URL instead of the JSON-RPC endpoint.
    const legacy = await rawRequest(`${proxy.url}/a2a/jsonrpc`, {
      headers: v03,
      body: jsonRpc("message/send", { message: { kind: "message" } }, "tck-1"),
    });
    const current = await rawRequest(`${proxy.url}/a2a/jsonrpc`, {
      headers: v1,
      body: jsonRpc("SendMessage", { message: { role: "ROLE_USER", parts: [{ text: "no id" }] } }, "tck-2"),
    });
    const misrouted = await rawRequest(`${proxy.url}/`, {
      headers: v03,
      body: jsonRpc("message/send", { message: { role: "user", parts: [{ kind: "text", text: "no id" }] } }, "tck-3"),
    });
    // The worker's own answers, forwarded as they were: errors, no task.
    expect(JSON.parse(legacy.body.toString())).toMatchObject({ id: "tck-1", error: { code: expect.any(Number) } });
    expect(JSON.parse(current.body.toString())).toMatchObject({ id: "tck-2", error: { code: expect.any(Number) } });
    expect(misrouted.status).toBe(404);

    await drained(proxy.app, 30_000);
    expect(await metric(proxy.url, "a2a_proxy_observations_dropped_total", { reason: "rejected" })).toBe(0);
    const sent = await metric(proxy.url, "a2a_proxy_observations_sent_total");
    expect(sent - sentBefore).toBe(3);
    const records = await ledger.records(sent);
    const dispatches = records
      .map((r) => r.observation)
      .filter((o): o is Of<"TaskDispatched"> => o.type === "TaskDispatched" && o.messageId === "");
    expect(dispatches).toHaveLength(3);
    for (const d of dispatches)
      expect(d.correlationId).toMatch(/^message-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    expect(new Set(dispatches.map((d) => d.correlationId)).size).toBe(3);
  });
});
