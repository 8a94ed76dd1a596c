import { describe, expect, it } from "vitest";
import { sightingsOfJsonRpc, sightingsOfPayload, sightingsOfRest, summarizePart } from "./a2a-response.ts";

const v1Task = {
  id: "t1",
  contextId: "c1",
  status: { state: "TASK_STATE_COMPLETED", timestamp: "2026-01-01T00:00:00Z" },
  artifacts: [
    {
      artifactId: "a1",
      name: "result",
      parts: [
        { data: { x: 1 }, mediaType: "application/json" },
        { text: "héllo", mediaType: "text/plain" },
      ],
    },
  ],
};

describe("sightings of v1.0 answers", () => {
  it("reads a SendMessage {task} answer with its state and whole artifacts", () => {
    expect(sightingsOfJsonRpc({ jsonrpc: "2.0", id: 1, result: { task: v1Task } })).toEqual([
      {
        kind: "task",
        taskId: "t1",
        contextId: "c1",
        state: "TASK_STATE_COMPLETED",
        timestamp: "2026-01-01T00:00:00Z",
        artifacts: [
          {
            artifactId: "a1",
            name: "result",
            parts: [
              { kind: "DATA", mediaType: "application/json", sizeBytes: 7 },
              { kind: "TEXT", mediaType: "text/plain", sizeBytes: 6 },
            ],
            content: JSON.stringify(v1Task.artifacts[0]!.parts),
          },
        ],
      },
    ]);
  });

  it("reads stream events, a missing append or lastChunk being false (ProtoJSON)", () => {
    expect(
      sightingsOfPayload({ statusUpdate: { taskId: "t1", contextId: "c1", status: { state: "TASK_STATE_WORKING" } } }),
    ).toEqual([{ kind: "status", taskId: "t1", contextId: "c1", state: "TASK_STATE_WORKING", timestamp: null }]);
    const [first] = sightingsOfPayload({
      artifactUpdate: { taskId: "t1", artifact: { artifactId: "a1", parts: [{ text: "ab" }] } },
    });
    expect(first).toMatchObject({ kind: "artifact", append: false, lastChunk: false });
    const [last] = sightingsOfPayload({
      artifactUpdate: {
        taskId: "t1",
        artifact: { artifactId: "a1", parts: [{ text: "c" }] },
        append: true,
        lastChunk: true,
      },
    });
    expect(last).toMatchObject({ kind: "artifact", append: true, lastChunk: true });
    expect(sightingsOfPayload({ message: { messageId: "m", taskId: "t1", role: "ROLE_AGENT", parts: [] } })).toEqual([
      { kind: "message", taskId: "t1" },
    ]);
  });

  it("reads a bare Task (GetTask) and a ListTasks answer", () => {
    expect(sightingsOfPayload(v1Task)).toMatchObject([{ kind: "task", taskId: "t1" }]);
    expect(
      sightingsOfPayload({ tasks: [v1Task, { ...v1Task, id: "t2" }, "junk"] }).map(
        (s) => s.kind === "task" && s.taskId,
      ),
    ).toEqual(["t1", "t2"]);
  });
});

describe("sightings of v0.3 answers", () => {
  it("reads kinds, kebab-case states and mimeType", () => {
    expect(
      sightingsOfPayload({ kind: "task", id: "t1", contextId: "c", status: { state: "input-required" } }),
    ).toMatchObject([{ kind: "task", state: "input-required" }]);
    expect(
      sightingsOfPayload({ kind: "status-update", taskId: "t1", status: { state: "working" }, final: false }),
    ).toMatchObject([{ kind: "status", state: "working" }]);
    expect(
      sightingsOfPayload({
        kind: "artifact-update",
        taskId: "t1",
        artifact: { artifactId: "a", parts: [{ kind: "text", text: "x", mimeType: "text/markdown" }] },
        append: false,
        lastChunk: true,
      }),
    ).toMatchObject([
      {
        kind: "artifact",
        append: false,
        lastChunk: true,
        artifact: { parts: [{ kind: "TEXT", mediaType: "text/markdown", sizeBytes: 1 }] },
      },
    ]);
    expect(sightingsOfPayload({ kind: "message", messageId: "m", role: "agent", parts: [] })).toEqual([
      { kind: "message", taskId: null },
    ]);
  });
});

describe("summarizePart", () => {
  it("measures each kind of part and finds its media type in either spelling", () => {
    expect(summarizePart({ raw: "aGVsbG8=", mediaType: "application/octet-stream" })).toEqual({
      kind: "RAW",
      mediaType: "application/octet-stream",
      sizeBytes: 5,
    });
    expect(summarizePart({ url: "https://x.example/f.pdf", mediaType: "application/pdf", filename: "f.pdf" })).toEqual({
      kind: "URL",
      mediaType: "application/pdf",
      sizeBytes: 23,
    });
    expect(summarizePart({ kind: "file", file: { bytes: "YWJj", mimeType: "image/png" } })).toEqual({
      kind: "RAW",
      mediaType: "image/png",
      sizeBytes: 3,
    });
    expect(summarizePart({ kind: "file", file: { uri: "https://x.example/a", mimeType: "image/png" } })).toEqual({
      kind: "URL",
      mediaType: "image/png",
      sizeBytes: 19,
    });
    expect(summarizePart({ kind: "data", data: { a: [1, 2] } })).toEqual({
      kind: "DATA",
      mediaType: null,
      sizeBytes: 11,
    });
    expect(summarizePart({ mediaType: "x/y" })).toEqual({ kind: "OTHER", mediaType: "x/y", sizeBytes: 0 });
    expect(summarizePart(null)).toEqual({ kind: "OTHER", mediaType: null, sizeBytes: 0 });
  });
});

describe("errors", () => {
  it("reads JSON-RPC -32001 as TaskNotFound and other codes as errors", () => {
    expect(sightingsOfJsonRpc({ jsonrpc: "2.0", id: 1, error: { code: -32001, message: "Task not found" } })).toEqual([
      { kind: "task-not-found", errorCode: "-32001" },
    ]);
    expect(sightingsOfJsonRpc({ jsonrpc: "2.0", id: 1, error: { code: -32602, message: "bad" } })).toEqual([
      { kind: "error", errorCode: "-32602" },
    ]);
  });

  it("reads HTTP 404 as TaskNotFound only with an A2A error body (v1.0 or v0.3)", () => {
    expect(
      sightingsOfRest(404, { error: { code: 404, status: "NOT_FOUND", message: "Task not found", details: [] } }),
    ).toEqual([{ kind: "task-not-found", errorCode: "404" }]);
    expect(sightingsOfRest(404, { code: -32001, message: "Task not found: x" })).toEqual([
      { kind: "task-not-found", errorCode: "404" },
    ]);
    expect(sightingsOfRest(404, { error: { details: [{ reason: "TASK_NOT_FOUND" }] } })).toEqual([
      { kind: "task-not-found", errorCode: "404" },
    ]);
    expect(sightingsOfRest(404, null)).toEqual([{ kind: "error", errorCode: "404" }]);
    expect(sightingsOfRest(500, v1Task)).toEqual([{ kind: "error", errorCode: "500" }]);
  });

  it("yields nothing for shapes it does not know", () => {
    for (const junk of [
      null,
      3,
      "x",
      [],
      { foo: 1 },
      { task: "no" },
      { statusUpdate: { taskId: "t" } },
      { artifactUpdate: { taskId: "t", artifact: {} } },
    ])
      expect(sightingsOfPayload(junk)).toEqual([]);
    expect(sightingsOfJsonRpc("nope")).toEqual([]);
  });
});
