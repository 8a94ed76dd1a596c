/**
 * Proxy transparency against the real workers: the same requests straight to a worker and through the
 * proxy give the same answers. Where the answer is the worker's for the same state (cards, GetTask,
 * errors) the bodies are byte-identical; where the worker makes new ids and timestamps on every call
 * (SendMessage, streams) the proxied client gets byte for byte what the worker wrote for its request
 * (a tap in the worker sees it), and the two answers differ only in those ids and timestamps.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { clientFor, spawnPyAgent, userMessage, type AgentProcess } from "@a2a-ledger/mesh-agents";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { endToEnd, jsonRpc, rawRequest, v03, v1, type RawRequest, type RawResponse } from "./http.ts";
import { CapturingSender, drained, startProxy, testConfig, type TestProxy } from "./proxy.ts";
import { startTappedAgent, type TappedAgent } from "./tapped-agent.ts";

let agent: TappedAgent;
let proxy: TestProxy;
let rewriting: TestProxy;
const sender = new CapturingSender();

beforeAll(async () => {
  agent = await startTappedAgent("w1");
  proxy = await startProxy(testConfig({ upstreamUrl: agent.url }), sender);
  rewriting = await startProxy(testConfig({ upstreamUrl: agent.url, rewriteCardUrls: true }), new CapturingSender());
});
afterAll(async () => {
  await proxy?.close();
  await rewriting?.close();
  await agent?.close();
});

const uuid = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;
const isoTime = /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z/g;
const masked = (body: Buffer): string => body.toString("utf8").replace(uuid, "<id>").replace(isoTime, "<time>");

/** Headers whose value follows the body (the worker's ETag of a JSON answer is a hash of it). */
const bodyDerived = new Set(["etag", "content-length"]);
const headerNames = (r: RawResponse) => endToEnd(r.rawHeaders).map(([n, v]) => (bodyDerived.has(n) ? n : `${n}: ${v}`));

interface Compared {
  direct: RawResponse;
  proxied: RawResponse;
}

/** The same request straight and through the proxy; asserts that the proxied exchange is the worker's, byte for byte. */
async function compare(path: string, request: RawRequest, via: TestProxy = proxy): Promise<Compared> {
  const direct = await rawRequest(`${agent.url}${path}`, request);
  const proxied = await rawRequest(`${via.url}${path}`, request);
  const seen = agent.last(path);
  expect(seen.requestBody.equals(Buffer.from(request.body ?? ""))).toBe(true);
  expect(proxied.status).toBe(seen.status);
  expect(proxied.status).toBe(direct.status);
  return { direct, proxied };
}

function identical({ direct, proxied }: Compared): void {
  expect(proxied.body.equals(direct.body)).toBe(true);
  expect(endToEnd(proxied.rawHeaders)).toEqual(endToEnd(direct.rawHeaders));
}

function sameButFresh({ direct, proxied }: Compared): void {
  // The proxied client got exactly the bytes the worker wrote for the proxied request…
  expect(proxied.body.equals(agent.last().body)).toBe(true);
  // …and that answer is the direct one but for the ids and times the worker makes anew on every call.
  expect(masked(proxied.body)).toBe(masked(direct.body));
  expect(headerNames(proxied)).toEqual(headerNames(direct));
}

async function newTask(text: string): Promise<string> {
  const r = await rawRequest(`${agent.url}/a2a/jsonrpc`, {
    headers: v1,
    body: jsonRpc("SendMessage", {
      message: { messageId: `m-${Math.random()}`, role: "ROLE_USER", parts: [{ text }] },
    }),
  });
  return (JSON.parse(r.body.toString()) as { result: { task: { id: string } } }).result.task.id;
}

describe("the Agent Card", () => {
  it("passes unchanged, headers included, when card URLs are not rewritten (v1.0 and v0.3 shapes)", async () => {
    identical(await compare("/.well-known/agent-card.json", { headers: { "A2A-Version": "1.0" } }));
    identical(await compare("/.well-known/agent-card.json", {}));
  });

  it("differs only in the rewritten interface URLs when rewriting is configured", async () => {
    const { direct, proxied } = await compare(
      "/.well-known/agent-card.json",
      { headers: { "A2A-Version": "1.0" } },
      rewriting,
    );
    const text = proxied.body.toString("utf8");
    expect(text).toContain(`"url":"${rewriting.url}/a2a/jsonrpc"`);
    expect(text.split(rewriting.url).join(agent.url)).toBe(direct.body.toString("utf8"));
    const withoutLength = (r: RawResponse) => endToEnd(r.rawHeaders).filter(([n]) => n !== "content-length");
    expect(withoutLength(proxied)).toEqual(withoutLength(direct));
    expect(endToEnd(proxied.rawHeaders)).toContainEqual(["content-length", String(proxied.body.length)]);
  });

  it("passes 304 Not Modified for a matching If-None-Match", async () => {
    const first = await rawRequest(`${proxy.url}/.well-known/agent-card.json`, { headers: { "A2A-Version": "1.0" } });
    const etag = endToEnd(first.rawHeaders).find(([n]) => n === "etag")?.[1] ?? "";
    identical(
      await compare("/.well-known/agent-card.json", { headers: { "A2A-Version": "1.0", "If-None-Match": etag } }),
    );
    expect(
      (
        await rawRequest(`${proxy.url}/.well-known/agent-card.json`, {
          headers: { "A2A-Version": "1.0", "If-None-Match": etag },
        })
      ).status,
    ).toBe(304);
  });
});

describe("JSON-RPC v1.0 (A2A-Version: 1.0)", () => {
  it("GetTask, and its TaskNotFound, are byte-identical", async () => {
    const id = await newTask("need-input waiting");
    identical(await compare("/a2a/jsonrpc", { headers: v1, body: jsonRpc("GetTask", { id }) }));
    identical(await compare("/a2a/jsonrpc", { headers: v1, body: jsonRpc("GetTask", { id: "no-such-task" }, 7) }));
  });

  it("SendMessage is the worker's answer byte for byte", async () => {
    sameButFresh(
      await compare("/a2a/jsonrpc", {
        headers: v1,
        body: jsonRpc("SendMessage", { message: { messageId: "tm-1", role: "ROLE_USER", parts: [{ text: "hello" }] } }),
      }),
    );
  });

  it("SendStreamingMessage is relayed event by event, as the worker writes it, without waiting for the end", async () => {
    const body = jsonRpc("SendStreamingMessage", {
      message: { messageId: "tm-2", role: "ROLE_USER", parts: [{ text: "slowly chunks=3 delay-ms=1500" }] },
    });
    const compared = await compare("/a2a/jsonrpc", { headers: v1, body });
    sameButFresh(compared);
    const { proxied } = compared;
    expect(proxied.chunks.length).toBeGreaterThan(1);
    // The task and WORKING events arrive before the worker's 1.5 s delay is over, the rest after it: a
    // buffering proxy would deliver them all at once, however slow or fast the machine.
    const [first, last] = [proxied.chunks[0]!.at, proxied.chunks[proxied.chunks.length - 1]!.at];
    expect(last - first).toBeGreaterThanOrEqual(1000);
    expect(last).toBeGreaterThanOrEqual(1400);
  });
});

describe("JSON-RPC v0.3 method names", () => {
  it("message/send and tasks/get without the A2A-Version header pass unchanged (the worker's legacy mode answers)", async () => {
    sameButFresh(
      await compare("/a2a/jsonrpc", {
        headers: v03,
        body: jsonRpc("message/send", {
          message: { kind: "message", messageId: "tm-3", role: "user", parts: [{ kind: "text", text: "hi" }] },
        }),
      }),
    );
    const id = await newTask("need-input v03");
    identical(await compare("/a2a/jsonrpc", { headers: v03, body: jsonRpc("tasks/get", { id }) }));
    identical(await compare("/a2a/jsonrpc", { headers: v03, body: jsonRpc("tasks/get", { id: "gone" }) }));
  });

  it("message/stream passes unchanged", async () => {
    sameButFresh(
      await compare("/a2a/jsonrpc", {
        headers: v03,
        body: jsonRpc("message/stream", {
          message: { kind: "message", messageId: "tm-4", role: "user", parts: [{ kind: "text", text: "hi chunks=2" }] },
        }),
      }),
    );
  });

  it("a method of the other version is the worker's error, unchanged (v1.0 name without the header, v0.3 name with it)", async () => {
    identical(await compare("/a2a/jsonrpc", { headers: v03, body: jsonRpc("GetTask", { id: "x" }) }));
    identical(await compare("/a2a/jsonrpc", { headers: v1, body: jsonRpc("tasks/get", { id: "x" }) }));
  });
});

describe("HTTP+JSON", () => {
  it("GET /tasks/{id} and its 404 are byte-identical, v1.0 and v0.3 paths", async () => {
    const id = await newTask("need-input rest");
    identical(await compare(`/a2a/rest/tasks/${id}`, { headers: { "A2A-Version": "1.0" } }));
    identical(await compare("/a2a/rest/tasks/nope", { headers: { "A2A-Version": "1.0" } }));
    identical(await compare("/a2a/rest/v1/tasks/nope", {}));
  });

  it("POST /message:send and /message:stream are the worker's answers byte for byte", async () => {
    sameButFresh(
      await compare("/a2a/rest/message:send", {
        headers: v1,
        body: JSON.stringify({ message: { messageId: "tm-5", role: "ROLE_USER", parts: [{ text: "rest" }] } }),
      }),
    );
    sameButFresh(
      await compare("/a2a/rest/message:stream", {
        headers: v1,
        body: JSON.stringify({ message: { messageId: "tm-6", role: "ROLE_USER", parts: [{ text: "rest chunks=2" }] } }),
      }),
    );
  });
});

describe("the @a2a-js/sdk client through the proxy", () => {
  it("works end to end when the card's URLs point at the proxy, and every call passes through it", async () => {
    const before = sender.sent.length;
    const viaRewriting = new CapturingSender();
    const p = await startProxy(testConfig({ upstreamUrl: agent.url, rewriteCardUrls: true }), viaRewriting);
    try {
      const client = await clientFor(p.url, "JSONRPC");
      const result = await client.sendMessage({
        tenant: "",
        message: userMessage("need-input via sdk"),
        configuration: undefined,
        metadata: undefined,
      });
      const taskId = "id" in result ? result.id : "";
      const got = await client.getTask({ tenant: "", id: taskId, historyLength: undefined });
      expect(got.id).toBe(taskId);
      await drained(p.app);
      expect(viaRewriting.ofType("TaskStateObserved").map((o) => [o.serverTaskId, o.via])).toEqual([
        [taskId, "SEND_RESPONSE"],
        [taskId, "GET"],
      ]);
      expect(sender.sent.length).toBe(before);
    } finally {
      await p.close();
    }
  });
});

describe("W3 (Python a2a-sdk) through the proxy", () => {
  let w3: AgentProcess;
  let p: TestProxy;
  beforeAll(async () => {
    w3 = await spawnPyAgent({ db: join(mkdtempSync(join(tmpdir(), "w3-proxy-")), "w3.sqlite") });
    p = await startProxy(
      testConfig({ upstreamUrl: w3.url, workerId: "W3", observer: "proxy:W3" }),
      new CapturingSender(),
    );
  });
  afterAll(async () => {
    await p?.close();
    await w3?.stop();
  });

  it("passes the card, GetTask and TaskNotFound byte-identical, and a stream event by event", async () => {
    const same = async (path: string, request: RawRequest) => {
      const direct = await rawRequest(`${w3.url}${path}`, request);
      const proxied = await rawRequest(`${p.url}${path}`, request);
      expect(proxied.status).toBe(direct.status);
      expect(proxied.body.equals(direct.body)).toBe(true);
      expect(endToEnd(proxied.rawHeaders)).toEqual(endToEnd(direct.rawHeaders));
    };
    await same("/.well-known/agent-card.json", { headers: { "A2A-Version": "1.0" } });
    const created = await rawRequest(`${w3.url}/a2a/jsonrpc`, {
      headers: v1,
      body: jsonRpc("SendMessage", {
        message: { messageId: "py-1", role: "ROLE_USER", parts: [{ text: "need-input py" }] },
      }),
    });
    const id = (JSON.parse(created.body.toString()) as { result: { task: { id: string } } }).result.task.id;
    await same("/a2a/jsonrpc", { headers: v1, body: jsonRpc("GetTask", { id }) });
    await same("/a2a/jsonrpc", { headers: v1, body: jsonRpc("GetTask", { id: "missing" }) });
    await same(`/a2a/rest/tasks/missing`, { headers: { "A2A-Version": "1.0" } });
    const stream = await rawRequest(`${p.url}/a2a/jsonrpc`, {
      headers: v1,
      body: jsonRpc("SendStreamingMessage", {
        message: { messageId: "py-2", role: "ROLE_USER", parts: [{ text: "py chunks=3 delay-ms=1000" }] },
      }),
    });
    expect(stream.chunks.length).toBeGreaterThan(1);
    // Streamed as the worker writes (the task at once, the artifact after its 1 s delay), not buffered to
    // the end, which would deliver every chunk at about the same moment: however slow the machine.
    expect(stream.chunks[stream.chunks.length - 1]!.at - stream.chunks[0]!.at).toBeGreaterThanOrEqual(500);
    expect(stream.body.toString().match(/^data: /gm)?.length).toBe(6);
  });
});
