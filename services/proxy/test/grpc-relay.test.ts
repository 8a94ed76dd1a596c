/**
 * The gRPC relay in front of a real @a2a-js/sdk worker (W1 with its gRPC binding), on the wire: answers
 * relayed byte for byte (messages, trailers, errors), hostile input forwarded or refused cleanly with
 * nothing invalid recorded, and the proxy's own refusals as gRPC statuses.
 */
import http2 from "node:http2";
import { Role, TaskState, type Message, type SendMessageRequest } from "@a2a-js/sdk";
import { A2AService } from "@a2a-js/sdk/server/grpc";
import { clientFor, startJsAgent, type RunningJsAgent } from "@a2a-ledger/mesh-agents";
import { TaskNotFoundError } from "@a2a-js/sdk/errors";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { frameMessage } from "../src/grpc/grpc-frames.ts";
import { errorInfoReasons } from "../src/grpc/grpc-status.ts";
import { comparable, rawCall, rawSocket, type RawAnswer } from "./grpc-wire.ts";
import { CapturingSender, drained, metric, startProxy, testConfig, type TestProxy } from "./proxy.ts";

const path = (method: string) => `/lf.a2a.v1.A2AService/${method}`;
const message = (text: string, taskId = ""): Message => ({
  messageId: `m-${Math.random().toString(36).slice(2)}`,
  contextId: "",
  taskId,
  role: Role.ROLE_USER,
  parts: [{ content: { $case: "text", value: text }, metadata: undefined, filename: "", mediaType: "text/plain" }],
  metadata: undefined,
  extensions: [],
  referenceTaskIds: [],
});
const sendRequest = (text: string): SendMessageRequest => ({
  tenant: "",
  message: message(text),
  configuration: undefined,
  metadata: undefined,
});
const getTaskBody = (id: string) =>
  frameMessage(A2AService.getTask.requestSerialize({ tenant: "", id, historyLength: undefined }));

let w1: RunningJsAgent;
let sender: CapturingSender;
let proxy: TestProxy;
let relay: string;

beforeAll(async () => {
  w1 = await startJsAgent({ kind: "w1", grpcPort: 0 });
  sender = new CapturingSender();
  proxy = await startProxy(
    testConfig({
      upstreamUrl: w1.url,
      rewriteCardUrls: true,
      grpcPort: 0,
      maxRecordedBytes: 4096,
      maxBodyBytes: 64 * 1024,
    }),
    sender,
  );
  relay = proxy.app.grpcTarget() ?? "";
});
afterAll(async () => {
  await proxy?.close();
  await w1?.close();
});

/** The same raw call directly and through the relay. */
async function both(
  p: string,
  body: Buffer | Buffer[],
  metadata: Record<string, string> = {},
): Promise<{ direct: RawAnswer; relayed: RawAnswer }> {
  const direct = await rawCall(w1.grpcTarget ?? "", p, body, metadata);
  const relayed = await rawCall(relay, p, body, metadata);
  return { direct, relayed };
}

function expectSameAnswer(direct: RawAnswer, relayed: RawAnswer): void {
  expect(comparable(relayed.headers)).toEqual(comparable(direct.headers));
  // The relay adds no header of its own: a date only where the worker sent one.
  expect("date" in relayed.headers).toBe("date" in direct.headers);
  expect(relayed.trailersOnly).toBe(direct.trailersOnly);
  expect(relayed.data.equals(direct.data)).toBe(true);
  expect(comparable(relayed.trailers)).toEqual(comparable(direct.trailers));
  expect(relayed.rstCode).toBe(direct.rstCode);
}

async function newTask(text = "need-input draft a report"): Promise<string> {
  const answer = await rawCall(
    w1.grpcTarget ?? "",
    path("SendMessage"),
    frameMessage(A2AService.sendMessage.requestSerialize(sendRequest(text))),
  );
  const decoded = A2AService.sendMessage.responseDeserialize(answer.data.subarray(5));
  if (decoded.payload?.$case !== "task") throw new Error("expected a task");
  return decoded.payload.value.id;
}

const recordedSince = (n: number) => sender.sent.slice(n);

/** A trailers-only answer of the proxy's own, with its gRPC status and the catalogue code as ErrorInfo reason. */
function expectRefused(answer: RawAnswer, grpcStatus: string, reason: string): void {
  expect(answer.trailersOnly).toBe(true);
  expect(answer.headers.date).toBeUndefined();
  expect(answer.headers["grpc-status"]).toBe(grpcStatus);
  expect(errorInfoReasons(String(answer.headers["grpc-status-details-bin"]))).toEqual([reason]);
}

/** How many tasks W1 holds: what shows whether a request reached it. */
async function w1Tasks(): Promise<number> {
  const client = await clientFor(w1.url, "GRPC");
  return (
    await client.listTasks({
      tenant: "",
      contextId: "",
      status: TaskState.TASK_STATE_UNSPECIFIED,
      pageToken: "",
      statusTimestampAfter: undefined,
      pageSize: 100,
    })
  ).totalSize;
}

/** The error code of the first GOAWAY frame among HTTP/2 frames received, or null. */
function goAwayCode(frames: Buffer): number | null {
  for (let at = 0; at + 9 <= frames.length; ) {
    const length = frames.readUIntBE(at, 3);
    if (frames[at + 3] === 0x07 && at + 9 + 8 <= frames.length) return frames.readUInt32BE(at + 9 + 4);
    at += 9 + length;
  }
  return null;
}

describe("the card through the proxy", () => {
  it("names the relay as its gRPC interface", async () => {
    const card = (await (
      await fetch(`${proxy.url}/.well-known/agent-card.json`, { headers: { "A2A-Version": "1.0" } })
    ).json()) as { supportedInterfaces: { url: string; protocolBinding: string }[] };
    const grpc = card.supportedInterfaces.filter((i) => i.protocolBinding === "GRPC").map((i) => i.url);
    expect(grpc).toEqual([relay]);
    expect(relay).not.toBe(w1.grpcTarget);
  });
});

describe("answers relayed byte for byte", () => {
  it("GetTask of one task: the same response headers, message bytes and trailers as the worker's", async () => {
    const id = await newTask();
    const { direct, relayed } = await both(path("GetTask"), getTaskBody(id));
    expect(direct.data.length).toBeGreaterThan(5);
    expectSameAnswer(direct, relayed);
    expect(direct.trailers["grpc-status"]).toBe("0");
  });

  it("TaskNotFound: the same NOT_FOUND status, message and details, recorded as TaskNotFoundObserved NOT_FOUND", async () => {
    const before = sender.sent.length;
    const { direct, relayed } = await both(path("GetTask"), getTaskBody("no-such-task"), {
      "a2a-ledger-correlation-id": "corr-nf",
    });
    expectSameAnswer(direct, relayed);
    const status = direct.trailersOnly ? direct.headers : direct.trailers;
    expect(status["grpc-status"]).toBe("5");
    expect(errorInfoReasons(String(status["grpc-status-details-bin"]))).toEqual(["TASK_NOT_FOUND"]);
    await drained(proxy.app);
    expect(recordedSince(before)).toEqual([
      expect.objectContaining({
        type: "TaskNotFoundObserved",
        correlationId: "corr-nf",
        serverTaskId: "no-such-task",
        method: "GetTask",
        errorCode: "NOT_FOUND",
        workerId: "W1",
      }),
    ]);
  });

  it("a stream (SendStreamingMessage with chunks): every message as the worker wrote it, recorded as states and chunks", async () => {
    const before = sender.sent.length;
    const relayed = await rawCall(
      relay,
      path("SendStreamingMessage"),
      frameMessage(A2AService.sendStreamingMessage.requestSerialize(sendRequest("stream chunks=3"))),
      { "a2a-ledger-correlation-id": "corr-stream" },
    );
    expect(relayed.trailers["grpc-status"]).toBe("0");
    await drained(proxy.app);
    const seen = recordedSince(before);
    expect(seen.map((o) => o.type)).toContain("TaskDispatched");
    const chunks = seen.filter((o) => o.type === "ArtifactEmitted");
    expect(chunks.map((c) => (c.type === "ArtifactEmitted" ? [c.append, c.lastChunk] : null))).toEqual([
      [false, false],
      [true, false],
      [true, true],
    ]);
    const states = seen.flatMap((o) => (o.type === "TaskStateObserved" ? [[o.state, o.via]] : []));
    expect(states).toContainEqual(["TASK_STATE_COMPLETED", "STREAM"]);
    expect(seen.every((o) => o.correlationId === "corr-stream")).toBe(true);
  });

  it("an answer larger than A2A_LEDGER_PROXY_MAX_RECORDED_BYTES: relayed whole, not recorded, counted", async () => {
    const id = await newTask(`need-input ${"x".repeat(6000)}`);
    const before = sender.sent.length;
    const unrecorded = await metric(proxy.url, "a2a_proxy_unrecorded_total", { reason: "body_too_large" });
    const { direct, relayed } = await both(path("GetTask"), getTaskBody(id));
    expect(direct.data.length).toBeGreaterThan(6000);
    expectSameAnswer(direct, relayed);
    await drained(proxy.app);
    expect(recordedSince(before)).toEqual([]);
    expect(await metric(proxy.url, "a2a_proxy_unrecorded_total", { reason: "body_too_large" })).toBe(unrecorded + 1);
  });
});

describe("hostile input", () => {
  const malformed: [string, Buffer | Buffer[], string][] = [
    ["a flag byte that is neither 0 nor 1", Buffer.from([7, 0, 0, 0, 1, 0x0a]), "malformed_grpc"],
    [
      "bytes that are not a SendMessageRequest",
      frameMessage(Buffer.from([0x0a, 0xff, 0xff, 0xff, 0xff, 0x0f])),
      "malformed_grpc",
    ],
    [
      "a message cut short",
      frameMessage(A2AService.sendMessage.requestSerialize(sendRequest("hello"))).subarray(0, 12),
      "malformed_grpc",
    ],
    [
      "two messages for a unary method",
      [
        frameMessage(A2AService.sendMessage.requestSerialize(sendRequest("a"))),
        frameMessage(A2AService.sendMessage.requestSerialize(sendRequest("b"))),
      ],
      "malformed_grpc",
    ],
    ["a length prefix of 4 GiB", Buffer.from([0, 0xff, 0xff, 0xff, 0xff, 1, 2, 3]), "malformed_grpc"],
    ["a compressed message without grpc-encoding", frameMessage(Buffer.from("garbage"), true), "encoded_body"],
  ];
  for (const [what, body, reason] of malformed) {
    it(`${what}: forwarded as it is, answered by the worker as directly, nothing recorded (${reason})`, async () => {
      const before = sender.sent.length;
      const count = await metric(proxy.url, "a2a_proxy_unrecorded_total", { reason });
      const { direct, relayed } = await both(path("SendMessage"), body);
      expectSameAnswer(direct, relayed);
      await drained(proxy.app);
      expect(recordedSince(before)).toEqual([]);
      expect(await metric(proxy.url, "a2a_proxy_unrecorded_total", { reason })).toBe(count + 1);
    });
  }

  it("an unknown method and another service: forwarded, the worker's UNIMPLEMENTED relayed, nothing recorded", async () => {
    const before = sender.sent.length;
    for (const p of [path("Bogus"), "/grpc.health.v1.Health/Check", "/a2a.v1.A2AService/SendMessage"]) {
      const { direct, relayed } = await both(p, frameMessage(Buffer.alloc(0)));
      expectSameAnswer(direct, relayed);
      expect((direct.trailersOnly ? direct.headers : direct.trailers)["grpc-status"]).toBe("12");
    }
    await drained(proxy.app);
    expect(recordedSince(before)).toEqual([]);
  });

  it("a request over A2A_LEDGER_PROXY_MAX_BODY_BYTES: refused RESOURCE_EXHAUSTED (PROXY_BODY_TOO_LARGE) before the worker sees it", async () => {
    const before = sender.sent.length;
    const tasks = await w1Tasks();
    const answer = await rawCall(
      relay,
      path("SendMessage"),
      frameMessage(A2AService.sendMessage.requestSerialize(sendRequest(`hello ${"y".repeat(70 * 1024)}`))),
    );
    expectRefused(answer, "8", "PROXY_BODY_TOO_LARGE");
    expect(await w1Tasks()).toBe(tasks);
    await drained(proxy.app);
    expect(recordedSince(before)).toEqual([]);
  });

  it("bytes that are not HTTP/2, HTTP/1.1, a broken frame: the connection is closed or refused with GOAWAY, and the relay goes on serving", async () => {
    const port = Number(relay.split(":").pop());
    const garbage = await rawSocket(port, Buffer.from("\x16\x03\x01\x02\x00garbage that is no preface\r\n\r\n"));
    expect(garbage.closedByServer).toBe(true);
    const http1 = await rawSocket(
      port,
      Buffer.from("POST /lf.a2a.v1.A2AService/GetTask HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n"),
    );
    expect(http1.closedByServer).toBe(true);
    // A valid preface followed by a SETTINGS frame of 4 bytes (settings come in sixes): that session gets a
    // GOAWAY with FRAME_SIZE_ERROR (6) after the server's own SETTINGS.
    const broken = await rawSocket(
      port,
      Buffer.concat([
        Buffer.from("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"),
        Buffer.from([0, 0, 4, 0x04, 0, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff]),
      ]),
      2_000,
    );
    expect(goAwayCode(broken.received)).toBe(6);
    const id = await newTask();
    const { direct, relayed } = await both(path("GetTask"), getTaskBody(id));
    expectSameAnswer(direct, relayed);
  });
});

describe("the SDK's gRPC client through the relay", () => {
  it("reads the rewritten card, talks through the relay and sees TaskNotFound as directly", async () => {
    const client = await clientFor(proxy.url, "GRPC");
    const before = sender.sent.length;
    const task = await client.sendMessage(
      { tenant: "", message: message("what is a ledger?"), configuration: undefined, metadata: undefined },
      { serviceParameters: { "a2a-ledger-correlation-id": "corr-sdk" } },
    );
    expect("status" in task && task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    await expect(client.getTask({ tenant: "", id: "gone", historyLength: undefined })).rejects.toBeInstanceOf(
      TaskNotFoundError,
    );
    await drained(proxy.app);
    const seen = recordedSince(before);
    expect(seen.filter((o) => o.correlationId === "corr-sdk").map((o) => o.type)).toEqual(
      expect.arrayContaining(["TaskDispatched", "TaskStateObserved", "ArtifactEmitted"]),
    );
    expect(seen.filter((o) => o.type === "TaskNotFoundObserved")).toHaveLength(1);
  });
});

describe("the proxy's own refusals", () => {
  it("without a known gRPC endpoint (none configured, none in the card): UNAVAILABLE PROXY_GRPC_UPSTREAM_UNKNOWN", async () => {
    const plain = await startJsAgent({ kind: "w2" });
    const p = await startProxy(testConfig({ upstreamUrl: plain.url, grpcPort: 0 }), new CapturingSender());
    try {
      expectRefused(
        await rawCall(p.app.grpcTarget() ?? "", path("GetTask"), getTaskBody("t")),
        "14",
        "PROXY_GRPC_UPSTREAM_UNKNOWN",
      );
    } finally {
      await p.close();
      await plain.close();
    }
  });

  it("a configured endpoint that refuses connections: UNAVAILABLE PROXY_UPSTREAM_UNREACHABLE", async () => {
    const p = await startProxy(
      testConfig({
        upstreamUrl: w1.url,
        grpcPort: 0,
        grpcUpstream: { target: "127.0.0.1:1", origin: "http://127.0.0.1:1" },
      }),
      new CapturingSender(),
    );
    try {
      expectRefused(
        await rawCall(p.app.grpcTarget() ?? "", path("GetTask"), getTaskBody("t")),
        "14",
        "PROXY_UPSTREAM_UNREACHABLE",
      );
    } finally {
      await p.close();
    }
  });

  it("fail-closed with the ledger gone: a new dispatch is refused UNAVAILABLE PROXY_LEDGER_UNAVAILABLE and never reaches the worker; a GetTask still passes", async () => {
    const down = new CapturingSender();
    down.failing = true;
    const p = await startProxy(testConfig({ upstreamUrl: w1.url, grpcPort: 0, bufferMax: 1 }), down);
    try {
      const target = p.app.grpcTarget() ?? "";
      const id = await newTask();
      // One observation fills the buffer of one.
      await rawCall(target, path("GetTask"), getTaskBody(id));
      const tasks = await w1Tasks();
      expectRefused(
        await rawCall(
          target,
          path("SendMessage"),
          frameMessage(A2AService.sendMessage.requestSerialize(sendRequest("what is a ledger?"))),
        ),
        "14",
        "PROXY_LEDGER_UNAVAILABLE",
      );
      expect(await w1Tasks()).toBe(tasks);
      const poll = await rawCall(target, path("GetTask"), getTaskBody(id));
      expect(poll.trailers["grpc-status"]).toBe("0");
    } finally {
      await p.close();
    }
  });
});

describe("streams", () => {
  it("a client that cancels a subscription mid-stream closes the worker's stream too", async () => {
    const id = await newTask();
    const session = http2.connect(`http://${relay}`);
    const req = session.request({
      ":method": "POST",
      ":path": path("SubscribeToTask"),
      "content-type": "application/grpc",
      te: "trailers",
      "a2a-version": "1.0",
    });
    req.end(frameMessage(A2AService.subscribeToTask.requestSerialize({ tenant: "", id })));
    await new Promise<void>((resolve) => req.once("data", () => resolve()));
    const disconnects = await metric(proxy.url, "a2a_proxy_client_disconnects_total");
    req.close(http2.constants.NGHTTP2_CANCEL);
    session.close();
    for (let i = 0; i < 500 && (await metric(proxy.url, "a2a_proxy_client_disconnects_total")) === disconnects; i++)
      await new Promise((r) => setTimeout(r, 20));
    expect(await metric(proxy.url, "a2a_proxy_client_disconnects_total")).toBe(disconnects + 1);
  });
});
