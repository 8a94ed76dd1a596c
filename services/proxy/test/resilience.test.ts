/**
 * The proxy survives what goes wrong around it: a client that goes away mid-stream, a worker that hangs,
 * answers garbage or is down, malformed and oversized requests, answers it cannot read, and a ledger that
 * does not take observations (fail-open here; fail-closed with a real ledger in ledger-outage.int.test.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { endToEnd, jsonRpc, rawRequest, v1 } from "./http.ts";
import { deadPort, garbageWorker, hangingWorker, scriptedWorker } from "./misbehaving-workers.ts";
import { CapturingSender, drained, metric, startProxy, testConfig, type TestProxy } from "./proxy.ts";
import { startTappedAgent, type TappedAgent } from "./tapped-agent.ts";

const send = (text: string, messageId = `m-${Math.random()}`) =>
  jsonRpc("SendMessage", { message: { messageId, role: "ROLE_USER", parts: [{ text }] } });
const stream = (text: string, messageId = `s-${Math.random()}`) =>
  jsonRpc("SendStreamingMessage", { message: { messageId, role: "ROLE_USER", parts: [{ text }] } });
const errorReason = (body: Buffer): unknown => {
  const parsed = JSON.parse(body.toString()) as {
    error: { data?: { reason: string }[]; details?: { reason: string }[] };
  };
  return (parsed.error.data ?? parsed.error.details)?.[0]?.reason;
};

let agent: TappedAgent;
let proxy: TestProxy;
const sender = new CapturingSender();

beforeAll(async () => {
  agent = await startTappedAgent("w1");
  proxy = await startProxy(testConfig({ upstreamUrl: agent.url, maxBodyBytes: 4096, maxRecordedBytes: 2048 }), sender);
});
afterAll(async () => {
  await proxy?.close();
  await agent?.close();
});

describe("a client that disconnects mid-stream", () => {
  it("is let go: the worker's stream is closed, what was seen is recorded, and the proxy serves on", async () => {
    const before = await metric(proxy.url, "a2a_proxy_client_disconnects_total");
    const abandonedBefore = agent.abandoned.length;
    const cut = await rawRequest(`${proxy.url}/a2a/jsonrpc`, {
      headers: { ...v1, "A2A-Ledger-Correlation-Id": "gone-1" },
      body: stream("slow chunks=3 delay-ms=1500", "gone-msg"),
      onChunk: () => true,
    });
    expect(cut.status).toBe(200);
    await expect.poll(() => metric(proxy.url, "a2a_proxy_client_disconnects_total")).toBe(before + 1);
    // The proxy closed its side of the worker's stream too: the worker saw its client go.
    await expect.poll(() => agent.abandoned.length).toBe(abandonedBefore + 1);
    expect(await metric(proxy.url, "a2a_proxy_upstream_errors_total", { code: "PROXY_UPSTREAM_UNREACHABLE" })).toBe(0);
    await drained(proxy.app);
    expect(sender.sent.filter((o) => o.correlationId === "gone-1").map((o) => o.type)).toEqual(
      expect.arrayContaining(["TaskDispatched", "TaskStateObserved"]),
    );
    const next = await rawRequest(`${proxy.url}/a2a/jsonrpc`, { headers: v1, body: stream("again chunks=2") });
    expect(next.status).toBe(200);
    expect(next.body.toString().match(/^data: /gm)?.length).toBe(5);
  });
});

describe("a worker that hangs", () => {
  let hanging: Awaited<ReturnType<typeof hangingWorker>>;
  let p: TestProxy;
  beforeAll(async () => {
    hanging = await hangingWorker();
    p = await startProxy(testConfig({ upstreamUrl: hanging.url, upstreamTimeoutMs: 300 }), new CapturingSender());
  });
  afterAll(async () => {
    await p?.close();
    await hanging?.close();
  });

  it("is answered 504 after the upstream timeout, in the JSON-RPC shape with the request's id", async () => {
    const started = Date.now();
    const r = await rawRequest(`${p.url}/a2a/jsonrpc`, { headers: v1, body: jsonRpc("GetTask", { id: "t" }, "req-9") });
    expect(Date.now() - started).toBeLessThan(3_000);
    expect(r.status).toBe(504);
    const body = JSON.parse(r.body.toString()) as { id: unknown; error: { code: number } };
    expect(body.id).toBe("req-9");
    expect(body.error.code).toBe(-32603);
    expect(errorReason(r.body)).toBe("PROXY_UPSTREAM_TIMEOUT");
    expect(await metric(p.url, "a2a_proxy_upstream_errors_total", { code: "PROXY_UPSTREAM_TIMEOUT" })).toBe(1);
  });

  it("is answered 504 in the HTTP+JSON shape to an HTTP+JSON client", async () => {
    const r = await rawRequest(`${p.url}/a2a/rest/tasks/t`, { headers: { "A2A-Version": "1.0" } });
    expect(r.status).toBe(504);
    expect(endToEnd(r.rawHeaders)).toContainEqual(["content-type", "application/a2a+json"]);
    expect(JSON.parse(r.body.toString())).toMatchObject({ error: { code: 504, status: "DEADLINE_EXCEEDED" } });
  });
});

describe("a worker that falls silent", () => {
  it("in the middle of an answer has it cut off after the timeout, but a quiet stream is left alone", async () => {
    const worker = await scriptedWorker((req, res) => {
      if (req.url === "/stalls") {
        res.writeHead(200, { "content-type": "application/json", "content-length": "100" });
        res.write('{"jsonrpc":"2.0",');
        return;
      }
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.write('data: {"first":true}\n\n');
      setTimeout(() => res.end('data: {"second":true}\n\n'), 800);
    });
    const p = await startProxy(testConfig({ upstreamUrl: worker.url, upstreamTimeoutMs: 300 }), new CapturingSender());
    try {
      const started = Date.now();
      await expect(
        rawRequest(`${p.url}/stalls`, { headers: v1, body: jsonRpc("GetTask", { id: "t" }) }),
      ).rejects.toThrow();
      expect(Date.now() - started).toBeLessThan(3_000);
      const quiet = await rawRequest(`${p.url}/quiet`, { headers: v1, body: jsonRpc("SubscribeToTask", { id: "t" }) });
      expect(quiet.body.toString()).toBe('data: {"first":true}\n\ndata: {"second":true}\n\n');
    } finally {
      await p.close();
      await worker.close();
    }
  });
});

describe("a worker that is down", () => {
  it("is answered 502 in the client's protocol shape, records no dispatch, and is reached once it is back", async () => {
    const port = await deadPort();
    const capture = new CapturingSender();
    const p = await startProxy(testConfig({ upstreamUrl: `http://127.0.0.1:${port}` }), capture);
    try {
      const rpc = await rawRequest(`${p.url}/a2a/jsonrpc`, {
        headers: v1,
        body: jsonRpc(
          "SendMessage",
          { message: { messageId: "down-1", role: "ROLE_USER", parts: [{ text: "x" }] } },
          5,
        ),
      });
      expect(rpc.status).toBe(502);
      expect(JSON.parse(rpc.body.toString())).toMatchObject({ jsonrpc: "2.0", id: 5, error: { code: -32603 } });
      expect(errorReason(rpc.body)).toBe("PROXY_UPSTREAM_UNREACHABLE");
      const card = await rawRequest(`${p.url}/.well-known/agent-card.json`);
      expect(card.status).toBe(502);
      expect(JSON.parse(card.body.toString())).toMatchObject({ error: { code: 502, status: "UNAVAILABLE" } });
      await drained(p.app);
      expect(capture.sent).toEqual([]);
      expect(await metric(p.url, "a2a_proxy_upstream_errors_total", { code: "PROXY_UPSTREAM_UNREACHABLE" })).toBe(2);
    } finally {
      await p.close();
    }
  });

  it("answering something that is not HTTP is a 502 too", async () => {
    const garbage = await garbageWorker();
    const p = await startProxy(testConfig({ upstreamUrl: garbage.url }), new CapturingSender());
    try {
      const r = await rawRequest(`${p.url}/a2a/rest/tasks/t`, { headers: { "A2A-Version": "1.0" } });
      expect(r.status).toBe(502);
      expect(errorReason(r.body)).toBe("PROXY_UPSTREAM_BAD_RESPONSE");
    } finally {
      await p.close();
      await garbage.close();
    }
  });
});

describe("malformed and hostile requests", () => {
  it("a malformed JSON-RPC body is forwarded as it is, answered by the worker, and counted as unrecorded", async () => {
    for (const body of ['{"jsonrpc":"2.0", "method": "SendMessage", broken', Buffer.from([0xff, 0xfe, 0x00, 0x7b])]) {
      const before = await metric(proxy.url, "a2a_proxy_unrecorded_total", { reason: "malformed_jsonrpc" });
      const sentBefore = sender.sent.length;
      const direct = await rawRequest(`${agent.url}/a2a/jsonrpc`, { headers: v1, body });
      const proxied = await rawRequest(`${proxy.url}/a2a/jsonrpc`, { headers: v1, body });
      expect(agent.last("/a2a/jsonrpc").requestBody.equals(Buffer.isBuffer(body) ? body : Buffer.from(body))).toBe(
        true,
      );
      expect(proxied.status).toBe(direct.status);
      expect(proxied.body.equals(direct.body)).toBe(true);
      expect(JSON.parse(proxied.body.toString())).toMatchObject({ error: { code: -32700 } });
      expect(await metric(proxy.url, "a2a_proxy_unrecorded_total", { reason: "malformed_jsonrpc" })).toBe(before + 1);
      await drained(proxy.app);
      expect(sender.sent.length).toBe(sentBefore);
    }
  });

  it("a method A2A does not have is forwarded, answered by the worker, and records nothing", async () => {
    const sentBefore = sender.sent.length;
    const body = jsonRpc("tasks/teleport", { id: "t" });
    const direct = await rawRequest(`${agent.url}/a2a/jsonrpc`, { headers: v1, body });
    const proxied = await rawRequest(`${proxy.url}/a2a/jsonrpc`, { headers: v1, body });
    expect(proxied.body.equals(direct.body)).toBe(true);
    expect(JSON.parse(proxied.body.toString())).toMatchObject({ error: { code: -32601 } });
    await drained(proxy.app);
    expect(sender.sent.length).toBe(sentBefore);
  });

  it("a body over the proxy's limit is refused with 413 and never reaches the worker", async () => {
    const count = agent.exchanges.length;
    const r = await rawRequest(`${proxy.url}/a2a/jsonrpc`, { headers: v1, body: send("x".repeat(5000)) });
    expect(r.status).toBe(413);
    expect(errorReason(r.body)).toBe("PROXY_BODY_TOO_LARGE");
    expect(agent.exchanges.length).toBe(count);
  });

  it("an unusable correlation header is ignored: the task id becomes the correlation id", async () => {
    const r = await rawRequest(`${proxy.url}/a2a/jsonrpc`, {
      headers: { ...v1, "A2A-Ledger-Correlation-Id": "has spaces and\ttabs" },
      body: send("hello", "hostile-corr"),
    });
    const taskId = (JSON.parse(r.body.toString()) as { result: { task: { id: string } } }).result.task.id;
    await drained(proxy.app);
    const dispatch = sender.ofType("TaskDispatched").find((d) => d.messageId === "hostile-corr");
    expect(dispatch?.correlationId).toBe(taskId);
  });
});

describe("answers the proxy cannot read", () => {
  it("are relayed unchanged and counted: a non-JSON answer, one over the recording limit, an oversized stream event", async () => {
    const big = "y".repeat(4000);
    const worker = await scriptedWorker((req, res) => {
      if (req.url === "/text") return void res.end("plain words, not JSON");
      if (req.url === "/big")
        return void res.end(
          JSON.stringify({
            jsonrpc: "2.0",
            id: 1,
            result: { task: { id: "t-big", status: { state: "TASK_STATE_COMPLETED" }, metadata: { big } } },
          }),
        );
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.end(
        `data: {"jsonrpc":"2.0","id":1,"result":{"statusUpdate":{"taskId":"t-ev","status":{"state":"TASK_STATE_WORKING"},"metadata":{"big":"${big}"}}}}\n\ndata: {"jsonrpc":"2.0","id":1,"result":{"statusUpdate":{"taskId":"t-ev","status":{"state":"TASK_STATE_COMPLETED"}}}}\n\n`,
      );
    });
    const capture = new CapturingSender();
    const p = await startProxy(testConfig({ upstreamUrl: worker.url, maxRecordedBytes: 2048 }), capture);
    try {
      const text = await rawRequest(`${p.url}/text`, { headers: v1, body: jsonRpc("GetTask", { id: "t-text" }) });
      expect(text.body.toString()).toBe("plain words, not JSON");
      const large = await rawRequest(`${p.url}/big`, { headers: v1, body: jsonRpc("GetTask", { id: "t-big" }) });
      expect(large.body.toString()).toContain(big);
      const events = await rawRequest(`${p.url}/stream`, {
        headers: v1,
        body: jsonRpc("SubscribeToTask", { id: "t-ev" }),
      });
      expect(events.body.toString()).toContain(big);
      await drained(p.app);
      expect(await metric(p.url, "a2a_proxy_unrecorded_total", { reason: "body_too_large" })).toBe(1);
      expect(await metric(p.url, "a2a_proxy_unrecorded_total", { reason: "oversized_event" })).toBe(1);
      expect(capture.sent.map((o) => o.type === "TaskStateObserved" && [o.serverTaskId, o.state])).toEqual([
        ["t-ev", "TASK_STATE_COMPLETED"],
      ]);
    } finally {
      await p.close();
      await worker.close();
    }
  });
});

describe("a ledger that does not take observations, fail-open", () => {
  it("forwards every request and counts each dropped observation in /metrics", async () => {
    const port = await deadPort();
    const p = await startProxy(
      testConfig({
        upstreamUrl: agent.url,
        ingestUrl: `http://127.0.0.1:${port}`,
        failMode: "open",
        bufferMax: 3,
        shutdownGraceMs: 0,
      }),
    );
    try {
      for (let i = 0; i < 4; i++)
        expect((await rawRequest(`${p.url}/a2a/jsonrpc`, { headers: v1, body: send(`open ${i}`) })).status).toBe(200);
      const offered = (
        await Promise.all(
          ["TaskDispatched", "TaskStateObserved", "ArtifactEmitted"].map((type) =>
            metric(p.url, "a2a_proxy_observations_total", { type }),
          ),
        )
      ).reduce((a, b) => a + b, 0);
      expect(offered).toBe(12);
      expect(await metric(p.url, "a2a_proxy_observations_dropped_total", { reason: "buffer_full" })).toBe(offered - 3);
      expect(await metric(p.url, "a2a_proxy_buffer_observations")).toBe(3);
      expect((await rawRequest(`${p.url}/readyz`)).status).toBe(200);
    } finally {
      await p.close();
    }
  });
});
