import { Role, TaskState, type Message, type SendMessageRequest, type Task } from "@a2a-js/sdk";
import { A2AService } from "@a2a-js/sdk/server/grpc";
import { describe, expect, it } from "vitest";
import { grpcCallOf, readWith, sightingsOfStatus } from "./grpc-calls.ts";

const message = (overrides: Partial<Message> = {}): Message => ({
  messageId: "m-1",
  contextId: "",
  taskId: "",
  role: Role.ROLE_USER,
  parts: [{ content: { $case: "text", value: "hello" }, metadata: undefined, filename: "", mediaType: "text/plain" }],
  metadata: undefined,
  extensions: [],
  referenceTaskIds: [],
  ...overrides,
});

const send = (m: Message, metadata?: Record<string, unknown>): SendMessageRequest => ({
  tenant: "",
  message: m,
  configuration: {
    acceptedOutputModes: ["application/json"],
    taskPushNotificationConfig: undefined,
    historyLength: undefined,
    returnImmediately: false,
  },
  metadata,
});

const task: Task = {
  id: "t-1",
  contextId: "c-1",
  status: { state: TaskState.TASK_STATE_COMPLETED, message: undefined, timestamp: "2026-01-02T03:04:05.000Z" },
  artifacts: [
    {
      artifactId: "t-1-result",
      name: "result",
      description: "",
      parts: [
        { content: { $case: "text", value: "{}" }, metadata: undefined, filename: "", mediaType: "application/json" },
      ],
      metadata: undefined,
      extensions: [],
    },
  ],
  history: [],
  metadata: undefined,
};

const path = (name: string) => `/lf.a2a.v1.A2AService/${name}`;

describe("grpcCallOf", () => {
  it("knows the eleven methods of A2AService and nothing else", () => {
    expect(grpcCallOf(path("SendStreamingMessage"))).toMatchObject({
      method: "SendStreamingMessage",
      serverStreaming: true,
    });
    expect(grpcCallOf(path("SubscribeToTask"))).toMatchObject({ method: "SubscribeToTask", serverStreaming: true });
    for (const other of [
      path("Bogus"),
      "/a2a.v1.A2AService/SendMessage",
      "/lf.a2a.v1.A2AService/SendMessage/",
      "/grpc.health.v1.Health/Check",
      "",
    ])
      expect(grpcCallOf(other)).toBeNull();
  });
});

describe("reading a request", () => {
  it("reads a new dispatch with its accepted modes, skill and correlation from metadata headers or message metadata", () => {
    const call = grpcCallOf(path("SendMessage"));
    const bytes = A2AService.sendMessage.requestSerialize(
      send(message({ metadata: { "a2a-ledger.correlationId": "corr-9" } })),
    );
    const request = call?.readRequest(bytes, { "a2a-ledger-skill-id": "answer", "a2a-ledger-attempt": "2" });
    expect(request).toEqual({
      kind: "grpc",
      version: "1.0",
      method: "SendMessage",
      taskId: null,
      dispatch: {
        messageId: "m-1",
        taskId: null,
        acceptedOutputModes: ["application/json"],
        skillId: "answer",
        attempt: 2,
        correlationId: "corr-9",
      },
    });
  });

  it("reads the task a follow-up message, GetTask, CancelTask and SubscribeToTask are about", () => {
    expect(
      grpcCallOf(path("SendStreamingMessage"))?.readRequest(
        A2AService.sendStreamingMessage.requestSerialize(send(message({ taskId: "t-7" }))),
        {},
      ).taskId,
    ).toBe("t-7");
    expect(
      grpcCallOf(path("GetTask"))?.readRequest(
        A2AService.getTask.requestSerialize({ tenant: "", id: "t-8", historyLength: undefined }),
        {},
      ).taskId,
    ).toBe("t-8");
    expect(
      grpcCallOf(path("CancelTask"))?.readRequest(
        A2AService.cancelTask.requestSerialize({ tenant: "", id: "t-9", metadata: undefined }),
        {},
      ).taskId,
    ).toBe("t-9");
    expect(
      grpcCallOf(path("SubscribeToTask"))?.readRequest(
        A2AService.subscribeToTask.requestSerialize({ tenant: "", id: "t-10" }),
        {},
      ).taskId,
    ).toBe("t-10");
  });

  it("refuses bytes that are not the method's message", () => {
    const call = grpcCallOf(path("SendMessage"));
    for (const garbage of [
      Buffer.from([0x0a, 0xff, 0xff, 0xff, 0xff, 0x0f]),
      Buffer.from([0x0f]),
      Buffer.from("not protobuf at all \u00ff"),
    ]) {
      const read = readWith(() => call?.readRequest(garbage, {}));
      expect(read.ok).toBe(false);
    }
  });
});

describe("reading an answer", () => {
  it("shows the task, its state and artifacts in a SendMessage answer, a stream event and a GetTask answer", () => {
    const send = grpcCallOf(path("SendMessage"))?.readAnswer?.(
      A2AService.sendMessage.responseSerialize({ payload: { $case: "task", value: task } }),
    );
    expect(send).toEqual([
      {
        kind: "task",
        taskId: "t-1",
        contextId: "c-1",
        state: "TASK_STATE_COMPLETED",
        timestamp: "2026-01-02T03:04:05.000Z",
        artifacts: [
          {
            artifactId: "t-1-result",
            name: "result",
            parts: [{ kind: "TEXT", mediaType: "application/json", sizeBytes: 2 }],
            content: expect.any(String),
          },
        ],
      },
    ]);
    const event = grpcCallOf(path("SubscribeToTask"))?.readAnswer?.(
      A2AService.subscribeToTask.responseSerialize({
        payload: {
          $case: "statusUpdate",
          value: {
            taskId: "t-1",
            contextId: "c-1",
            status: { state: TaskState.TASK_STATE_WORKING, message: undefined, timestamp: undefined },
            metadata: undefined,
          },
        },
      }),
    );
    expect(event).toEqual([
      { kind: "status", taskId: "t-1", contextId: "c-1", state: "TASK_STATE_WORKING", timestamp: null },
    ]);
    expect(grpcCallOf(path("GetTask"))?.readAnswer?.(A2AService.getTask.responseSerialize(task))[0]).toMatchObject({
      kind: "task",
      taskId: "t-1",
    });
  });
});

describe("sightingsOfStatus", () => {
  it("reads NOT_FOUND as TaskNotFound unless its ErrorInfo names another reason", () => {
    expect(sightingsOfStatus({ code: 5, message: null, reasons: [] })).toEqual([
      { kind: "task-not-found", errorCode: "NOT_FOUND" },
    ]);
    expect(sightingsOfStatus({ code: 5, message: null, reasons: ["TASK_NOT_FOUND"] })).toEqual([
      { kind: "task-not-found", errorCode: "NOT_FOUND" },
    ]);
    expect(sightingsOfStatus({ code: 5, message: null, reasons: ["METHOD_NOT_FOUND"] })).toEqual([
      { kind: "error", errorCode: "NOT_FOUND" },
    ]);
    expect(sightingsOfStatus({ code: 12, message: null, reasons: [] })).toEqual([
      { kind: "error", errorCode: "UNIMPLEMENTED" },
    ]);
    expect(sightingsOfStatus({ code: 0, message: null, reasons: [] })).toEqual([]);
    expect(sightingsOfStatus({ code: null, message: null, reasons: [] })).toEqual([]);
  });
});
