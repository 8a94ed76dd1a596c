import { describe, expect, it } from "vitest";
import { classifyRequest, isNewDispatch, protocolVersion, type RequestHead } from "./a2a-request.ts";

const post = (url: string, body: unknown, headers: RequestHead["headers"] = { "a2a-version": "1.0" }) =>
  classifyRequest(
    { method: "POST", url, headers },
    Buffer.from(typeof body === "string" ? body : JSON.stringify(body)),
  );
const get = (url: string, headers: RequestHead["headers"] = { "a2a-version": "1.0" }) =>
  classifyRequest({ method: "GET", url, headers }, Buffer.alloc(0));

const send = (method: string, message: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  jsonrpc: "2.0",
  id: 4,
  method,
  params: { message, ...extra },
});

describe("classifyRequest", () => {
  it("reads a v1.0 JSON-RPC SendMessage as a new dispatch with its messageId and accepted output modes", () => {
    const r = post(
      "/a2a/jsonrpc",
      send(
        "SendMessage",
        { messageId: "m1", role: "ROLE_USER", parts: [] },
        { configuration: { acceptedOutputModes: ["application/json", 3] } },
      ),
    );
    expect(r).toMatchObject({
      kind: "jsonrpc",
      version: "1.0",
      id: 4,
      method: "SendMessage",
      rawMethod: "SendMessage",
      taskId: null,
    });
    expect(r.kind === "jsonrpc" && r.dispatch).toEqual({
      messageId: "m1",
      taskId: null,
      acceptedOutputModes: ["application/json"],
      skillId: null,
      attempt: null,
      correlationId: null,
    });
    expect(isNewDispatch(r)).toBe(true);
  });

  it("maps every v0.3 method name to its v1.0 name", () => {
    const names: Record<string, string> = {
      "message/send": "SendMessage",
      "message/stream": "SendStreamingMessage",
      "tasks/get": "GetTask",
      "tasks/cancel": "CancelTask",
      "tasks/resubscribe": "SubscribeToTask",
      "tasks/pushNotificationConfig/set": "CreateTaskPushNotificationConfig",
      "agent/getAuthenticatedExtendedCard": "GetExtendedAgentCard",
    };
    for (const [v03, v1] of Object.entries(names))
      expect(post("/", { jsonrpc: "2.0", id: 1, method: v03, params: { id: "t" } }, {})).toMatchObject({
        kind: "jsonrpc",
        version: "0.3",
        method: v1,
        rawMethod: v03,
      });
  });

  it("reads the task of GetTask, CancelTask and SubscribeToTask, and of a follow-up message, which is no new dispatch", () => {
    expect(post("/", { jsonrpc: "2.0", id: 1, method: "GetTask", params: { id: "t1" } })).toMatchObject({
      taskId: "t1",
    });
    expect(post("/", { jsonrpc: "2.0", id: 1, method: "tasks/cancel", params: { id: "t2" } }, {})).toMatchObject({
      taskId: "t2",
    });
    expect(post("/", { jsonrpc: "2.0", id: 1, method: "SubscribeToTask", params: { name: "tasks/t3" } })).toMatchObject(
      { taskId: "t3" },
    );
    const followUp = post(
      "/",
      send("message/send", { kind: "message", messageId: "m2", taskId: "t4", role: "user", parts: [] }),
      {},
    );
    expect(followUp).toMatchObject({ taskId: "t4" });
    expect(isNewDispatch(followUp)).toBe(false);
  });

  it("takes skill, attempt and correlation from headers first, then message metadata, then request metadata", () => {
    const fromHeaders = post(
      "/",
      send("SendMessage", { messageId: "m", metadata: { "a2a-ledger.skillId": "meta-skill" } }),
      { "a2a-version": "1.0", "a2a-ledger-skill-id": "answer", "a2a-ledger-attempt": "2" },
    );
    expect(fromHeaders.kind === "jsonrpc" && fromHeaders.dispatch).toMatchObject({ skillId: "answer", attempt: 2 });
    const fromMessage = post(
      "/",
      send(
        "SendMessage",
        { messageId: "m", metadata: { "a2a-ledger.correlationId": "c-msg", "a2a-ledger.attempt": 3 } },
        { metadata: { "a2a-ledger.correlationId": "c-req", "a2a-ledger.skillId": "req-skill" } },
      ),
    );
    expect(fromMessage.kind === "jsonrpc" && fromMessage.dispatch).toMatchObject({
      correlationId: "c-msg",
      skillId: "req-skill",
      attempt: 3,
    });
    const plain = post(
      "/",
      send("SendMessage", { messageId: "m", metadata: { correlationId: "c-plain", skillId: "answer" } }),
    );
    expect(plain.kind === "jsonrpc" && plain.dispatch).toMatchObject({ correlationId: "c-plain", skillId: "answer" });
    const badAttempt = post("/", send("SendMessage", { messageId: "m" }), { "a2a-ledger-attempt": "-1" });
    expect(badAttempt.kind === "jsonrpc" && badAttempt.dispatch?.attempt).toBeNull();
  });

  it("recognises HTTP+JSON routes under any prefix, tenant or v0.3 path", () => {
    expect(post("/a2a/rest/message:send", { message: { messageId: "r1" } })).toMatchObject({
      kind: "rest",
      method: "SendMessage",
      taskId: null,
      readable: true,
    });
    expect(post("/rest/acme/message:stream", { message: { messageId: "r2", taskId: "t9" } })).toMatchObject({
      kind: "rest",
      method: "SendStreamingMessage",
      taskId: "t9",
    });
    expect(get("/a2a/rest/tasks/abc%20d")).toMatchObject({ kind: "rest", method: "GetTask", taskId: "abc d" });
    expect(get("/a2a/rest/v1/tasks/t1?historyLength=2", {})).toMatchObject({
      kind: "rest",
      version: "0.3",
      method: "GetTask",
      taskId: "t1",
    });
    expect(post("/a2a/rest/tasks/t1:cancel", "")).toMatchObject({ kind: "rest", method: "CancelTask", taskId: "t1" });
    expect(get("/a2a/rest/tasks/t1:subscribe")).toMatchObject({
      kind: "rest",
      method: "SubscribeToTask",
      taskId: "t1",
    });
    expect(post("/a2a/rest/tasks/t1:subscribe", "")).toMatchObject({
      kind: "rest",
      method: "SubscribeToTask",
      taskId: "t1",
    });
    expect(get("/a2a/rest/tasks")).toMatchObject({ kind: "rest", method: "ListTasks", taskId: null });
    expect(post("/a2a/rest/message:send", "not json")).toMatchObject({
      kind: "rest",
      method: "SendMessage",
      readable: false,
      dispatch: null,
    });
  });

  it("recognises the card", () => {
    expect(get("/.well-known/agent-card.json")).toEqual({ kind: "card", version: "1.0" });
    expect(get("/.well-known/agent-card.json?x=1", {})).toEqual({ kind: "card", version: "0.3" });
  });

  it("calls bodies that cannot be JSON-RPC requests malformed, and leaves other traffic alone", () => {
    expect(post("/a2a/jsonrpc", '{"jsonrpc":"2.0", broken')).toMatchObject({ kind: "malformed-jsonrpc" });
    expect(post("/a2a/jsonrpc", "\u0000\u0001garbage")).toMatchObject({ kind: "malformed-jsonrpc" });
    expect(post("/a2a/jsonrpc", [{ jsonrpc: "2.0", id: 1, method: "GetTask" }])).toMatchObject({
      kind: "malformed-jsonrpc",
      reason: "a JSON-RPC batch (A2A has none)",
    });
    expect(post("/a2a/jsonrpc", { jsonrpc: "1.0", id: 1, method: "GetTask" })).toMatchObject({
      kind: "malformed-jsonrpc",
    });
    expect(post("/a2a/jsonrpc", { jsonrpc: "2.0", id: 1, method: 42 })).toMatchObject({ kind: "malformed-jsonrpc" });
    expect(post("/a2a/jsonrpc", { jsonrpc: "2.0", id: 1 })).toMatchObject({ kind: "malformed-jsonrpc" });
    expect(post("/a2a/jsonrpc", { hello: "world" })).toMatchObject({ kind: "other" });
    expect(post("/a2a/jsonrpc", { jsonrpc: "2.0", id: 1, method: "Custom/thing" })).toMatchObject({
      kind: "jsonrpc",
      method: null,
      rawMethod: "Custom/thing",
    });
    expect(get("/favicon.ico")).toMatchObject({ kind: "other" });
    expect(classifyRequest({ method: "POST", url: "/x", headers: {} }, Buffer.alloc(0))).toMatchObject({
      kind: "other",
    });
  });
});

describe("protocolVersion", () => {
  it("reads 1.x as v1.0 and anything else, or nothing, as v0.3", () => {
    expect(protocolVersion({ "a2a-version": "1.0" })).toBe("1.0");
    expect(protocolVersion({ "a2a-version": " 1 " })).toBe("1.0");
    expect(protocolVersion({ "a2a-version": "0.3" })).toBe("0.3");
    expect(protocolVersion({ "a2a-version": "2.0" })).toBe("0.3");
    expect(protocolVersion({})).toBe("0.3");
  });
});
