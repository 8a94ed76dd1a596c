/**
 * Fail-closed against the real ledger: while ingest is down the proxy keeps observations in its bounded
 * buffer; once the buffer is full new dispatches are answered 503 (and never reach the worker) while
 * other traffic goes on; when ingest comes back the buffer is sent with its original eventIds, nothing
 * lost, and dispatches are admitted again.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { jsonRpc, rawRequest, v1 } from "./http.ts";
import { ledgerTopic, type Ledger, type LedgerTopic } from "./ledger.ts";
import { deadPort } from "./misbehaving-workers.ts";
import { drained, metric, startProxy, testConfig, type TestProxy } from "./proxy.ts";
import { startTappedAgent, type TappedAgent } from "./tapped-agent.ts";

let topic: LedgerTopic;
let ledger: Ledger | undefined;
let agent: TappedAgent;
let proxy: TestProxy;
let port: number;

beforeAll(async () => {
  topic = await ledgerTopic("outage");
  agent = await startTappedAgent("w1");
  port = await deadPort();
  proxy = await startProxy(
    testConfig({ upstreamUrl: agent.url, ingestUrl: `http://127.0.0.1:${port}`, bufferMax: 6, retryAfterSeconds: 2 }),
  );
});
afterAll(async () => {
  await proxy?.close();
  await agent?.close();
  await ledger?.stop();
  await topic?.remove();
});

const dispatch = (messageId: string) =>
  rawRequest(`${proxy.url}/a2a/jsonrpc`, {
    headers: { ...v1, "A2A-Ledger-Correlation-Id": `outage-${messageId}` },
    body: jsonRpc(
      "SendMessage",
      { message: { messageId, role: "ROLE_USER", parts: [{ text: "need-input wait" }] } },
      messageId,
    ),
  });

describe("the ledger unreachable past the buffer (fail-closed)", () => {
  it("refuses new dispatches with 503, keeps the rest flowing, and loses nothing once the ledger is back", async () => {
    // Each dispatch that stops in INPUT_REQUIRED is two observations: the dispatch and the state.
    const first = await dispatch("out-1");
    const second = await dispatch("out-2");
    const third = await dispatch("out-3");
    expect([first.status, second.status, third.status]).toEqual([200, 200, 200]);
    expect(proxy.app.buffer.length).toBe(6);

    const refused = await dispatch("out-4");
    expect(refused.status).toBe(503);
    expect(refused.rawHeaders.map((h) => h.toLowerCase())).toContain("retry-after");
    expect(JSON.parse(refused.body.toString())).toMatchObject({
      id: "out-4",
      error: { code: -32603, data: [{ reason: "PROXY_LEDGER_UNAVAILABLE" }] },
    });
    expect(agent.exchanges.some((e) => e.requestBody.toString().includes('"out-4"'))).toBe(false);
    expect(await metric(proxy.url, "a2a_proxy_fail_closed_rejections_total")).toBe(1);
    expect((await rawRequest(`${proxy.url}/readyz`)).status).toBe(503);

    // Traffic about tasks already dispatched is still forwarded and recorded.
    const taskId = (JSON.parse(first.body.toString()) as { result: { task: { id: string } } }).result.task.id;
    const polled = await rawRequest(`${proxy.url}/a2a/jsonrpc`, {
      headers: v1,
      body: jsonRpc("GetTask", { id: taskId }),
    });
    expect(polled.status).toBe(200);
    expect(proxy.app.buffer.length).toBe(7);
    await expect.poll(() => metric(proxy.url, "a2a_proxy_ledger_reachable"), { timeout: 10_000 }).toBe(0);

    // The ledger comes back on the address the proxy knows.
    ledger = await topic.start(port);
    await drained(proxy.app, 60_000);
    expect((await rawRequest(`${proxy.url}/readyz`)).status).toBe(200);
    expect((await dispatch("out-5")).status).toBe(200);
    await drained(proxy.app, 30_000);

    const records = await ledger.records(9);
    const ids = records.map((r) => r.observation.eventId);
    expect(new Set(ids).size).toBe(9);
    expect(
      records
        .filter((r) => r.observation.type === "TaskDispatched")
        .map((r) => r.observation.correlationId)
        .sort(),
    ).toEqual(["outage-out-1", "outage-out-2", "outage-out-3", "outage-out-5"]);
    expect(
      records
        .filter((r) => r.observation.type === "TaskStateObserved" && r.observation.correlationId === "outage-out-1")
        .map((r) => r.observation.type === "TaskStateObserved" && r.observation.via),
    ).toEqual(["SEND_RESPONSE", "GET"]);
    expect(await metric(proxy.url, "a2a_proxy_observations_dropped_total", { reason: "overflow" })).toBe(0);
  });
});
