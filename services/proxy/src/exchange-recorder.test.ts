import type { ObservationInput } from "@a2a-ledger/ingest-client";
import { describe, expect, it } from "vitest";
import { classifyRequest, type A2AMethod, type A2ARequest } from "./a2a-request.ts";
import { sightingsOfJsonRpc } from "@a2a-ledger/ingest-client";
import { CorrelationMemory } from "./correlation.ts";
import { ExchangeRecorder } from "./exchange-recorder.ts";

type Recorded = Extract<A2ARequest, { kind: "jsonrpc" | "rest" }> & { method: A2AMethod };

function setup() {
  const emitted: ObservationInput[] = [];
  const memory = new CorrelationMemory(100);
  let clock = 1_000;
  const deps = {
    source: { workerId: "W1", observer: "proxy:W1" },
    memory,
    emit: (o: ObservationInput) => void emitted.push(o),
    now: () => clock++,
  };
  const exchange = (method: string, params: unknown, explicit: string | null = null) => {
    const request = classifyRequest(
      { method: "POST", url: "/", headers: { "a2a-version": "1.0" } },
      Buffer.from(JSON.stringify({ jsonrpc: "2.0", id: 1, method, params })),
    );
    return new ExchangeRecorder(deps, request as Recorded, explicit);
  };
  return { emitted, memory, exchange };
}

const task = (id: string, state: string, extra: Record<string, unknown> = {}) => ({
  jsonrpc: "2.0",
  id: 1,
  result: { task: { id, contextId: "ctx", status: { state, timestamp: "2026-01-01T00:00:00Z" }, ...extra } },
});
const message = (messageId: string, metadata?: Record<string, unknown>) => ({
  message: { messageId, role: "ROLE_USER", parts: [{ text: "q" }], ...(metadata === undefined ? {} : { metadata }) },
  configuration: { acceptedOutputModes: ["text/plain"] },
});

describe("ExchangeRecorder", () => {
  it("records a dispatch under the named correlation at once, then the states of its answer", () => {
    const { emitted, exchange } = setup();
    const r = exchange("SendMessage", message("m1"), "corr-1");
    r.delivered();
    expect(emitted.map((o) => o.type)).toEqual(["TaskDispatched"]);
    r.observe(sightingsOfJsonRpc(task("t1", "TASK_STATE_INPUT_REQUIRED")));
    r.finish();
    expect(emitted.map((o) => [o.type, o.correlationId])).toEqual([
      ["TaskDispatched", "corr-1"],
      ["TaskStateObserved", "corr-1"],
    ]);
    expect(emitted[0]).toMatchObject({
      messageId: "m1",
      acceptedOutputModes: ["text/plain"],
      attempt: 1,
      workerId: "W1",
      observer: "proxy:W1",
      occurredAt: 1_000,
    });
    expect(emitted[1]).toMatchObject({
      serverTaskId: "t1",
      state: "TASK_STATE_INPUT_REQUIRED",
      rawState: "TASK_STATE_INPUT_REQUIRED",
      via: "SEND_RESPONSE",
      contextId: "ctx",
    });
  });

  it("without a correlation id makes the first server task id the correlation id, dispatch included, and remembers it", () => {
    const { emitted, exchange, memory } = setup();
    const r = exchange("SendMessage", message("m2"));
    r.delivered();
    expect(emitted).toEqual([]);
    r.observe(sightingsOfJsonRpc(task("t2", "TASK_STATE_COMPLETED")));
    r.finish();
    expect(emitted.map((o) => [o.type, o.correlationId])).toEqual([
      ["TaskDispatched", "t2"],
      ["TaskStateObserved", "t2"],
    ]);
    expect(memory.lookup("t2")).toBe("t2");
  });

  it("attributes later calls about a task to the correlation remembered for it", () => {
    const { emitted, exchange } = setup();
    const first = exchange("SendMessage", message("m3"), "corr-3");
    first.delivered();
    first.observe(sightingsOfJsonRpc(task("t3", "TASK_STATE_INPUT_REQUIRED")));
    first.finish();
    const get = exchange("GetTask", { id: "t3" });
    get.observe(
      sightingsOfJsonRpc(
        task("t3", "TASK_STATE_INPUT_REQUIRED", {
          status: { state: "TASK_STATE_INPUT_REQUIRED", timestamp: "2026-01-01T00:00:01Z" },
        }),
      ),
    );
    const lost = exchange("GetTask", { id: "t3" });
    lost.observe(sightingsOfJsonRpc({ jsonrpc: "2.0", id: 1, error: { code: -32001, message: "Task not found" } }));
    expect(emitted.slice(2).map((o) => [o.type, o.correlationId])).toEqual([
      ["TaskStateObserved", "corr-3"],
      ["TaskNotFoundObserved", "corr-3"],
    ]);
    expect(emitted[2]).toMatchObject({ via: "GET" });
    expect(emitted[3]).toMatchObject({ serverTaskId: "t3", method: "GetTask", errorCode: "-32001" });
  });

  it("takes the correlation id from message metadata, and a follow-up to a known task is no new dispatch", () => {
    const { emitted, exchange } = setup();
    const r = exchange("SendMessage", message("m4", { "a2a-ledger.correlationId": "corr-meta" }), "corr-meta");
    r.delivered();
    r.observe(sightingsOfJsonRpc(task("t4", "TASK_STATE_INPUT_REQUIRED")));
    const followUp = exchange("SendMessage", {
      message: { messageId: "m5", taskId: "t4", role: "ROLE_USER", parts: [] },
    });
    followUp.delivered();
    followUp.observe(sightingsOfJsonRpc(task("t4", "TASK_STATE_COMPLETED")));
    followUp.finish();
    expect(emitted.map((o) => [o.type, o.correlationId])).toEqual([
      ["TaskDispatched", "corr-meta"],
      ["TaskStateObserved", "corr-meta"],
      ["TaskStateObserved", "corr-meta"],
    ]);
  });

  it("records a dispatch whose answer showed no task under its messageId, and none that never reached the worker", () => {
    const { emitted, exchange } = setup();
    const answered = exchange("SendMessage", message("m6"));
    answered.delivered();
    answered.observe(sightingsOfJsonRpc({ jsonrpc: "2.0", id: 1, error: { code: -32602, message: "bad" } }));
    answered.finish();
    const undelivered = exchange("SendMessage", message("m7"));
    undelivered.finish();
    expect(emitted.map((o) => [o.type, o.correlationId])).toEqual([["TaskDispatched", "m6"]]);
  });

  it("records stream chunks with append and lastChunk, and whole artifacts with lastChunk null", () => {
    const { emitted, exchange } = setup();
    const r = exchange("SendStreamingMessage", message("m8"), "c8");
    r.delivered();
    r.observe(
      sightingsOfJsonRpc({
        result: {
          artifactUpdate: {
            taskId: "t8",
            artifact: { artifactId: "a", parts: [{ text: "ab", mediaType: "text/plain" }] },
          },
        },
      }),
    );
    r.observe(
      sightingsOfJsonRpc({
        result: {
          artifactUpdate: {
            taskId: "t8",
            artifact: { artifactId: "a", parts: [{ text: "c", mediaType: "text/plain" }] },
            append: true,
            lastChunk: true,
          },
        },
      }),
    );
    r.observe(
      sightingsOfJsonRpc(
        task("t8", "TASK_STATE_COMPLETED", {
          artifacts: [{ artifactId: "a", name: "result", parts: [{ text: "abc", mediaType: "text/plain" }] }],
        }),
      ),
    );
    const artifacts = emitted.filter((o) => o.type === "ArtifactEmitted");
    expect(
      artifacts.map((a) => a.type === "ArtifactEmitted" && [a.append, a.lastChunk, a.parts[0]?.sizeBytes]),
    ).toEqual([
      [false, false, 2],
      [true, true, 1],
      [false, null, 3],
    ]);
    expect(emitted.filter((o) => o.type === "TaskStateObserved")[0]).toMatchObject({ via: "STREAM" });
  });

  it("gives the same thing seen twice the same event id, and different things different ids", () => {
    const { emitted, exchange } = setup();
    for (let i = 0; i < 2; i++) {
      const get = exchange("GetTask", { id: "t9" });
      get.observe(
        sightingsOfJsonRpc(
          task("t9", "TASK_STATE_INPUT_REQUIRED", { artifacts: [{ artifactId: "a", parts: [{ text: "x" }] }] }),
        ),
      );
    }
    const [s1, a1, s2, a2] = emitted;
    expect(s1!.eventId).toBe(s2!.eventId);
    expect(a1!.eventId).toBe(a2!.eventId);
    const later = exchange("GetTask", { id: "t9" });
    later.observe(sightingsOfJsonRpc(task("t9", "TASK_STATE_COMPLETED")));
    expect(emitted[4]!.eventId).not.toBe(s1!.eventId);
    const noTimestamp = exchange("GetTask", { id: "t9" });
    noTimestamp.observe(sightingsOfJsonRpc({ result: { id: "t9", status: { state: "TASK_STATE_WORKING" } } }));
    noTimestamp.observe(sightingsOfJsonRpc({ result: { id: "t9", status: { state: "TASK_STATE_WORKING" } } }));
    expect(emitted[5]!.eventId).not.toBe(emitted[6]!.eventId);
  });

  it("records a state outside the spec as UNSPECIFIED with its raw spelling", () => {
    const { emitted, exchange } = setup();
    exchange("GetTask", { id: "t10" }).observe(sightingsOfJsonRpc(task("t10", "TASK_STATE_DREAMING")));
    expect(emitted[0]).toMatchObject({ state: "TASK_STATE_UNSPECIFIED", rawState: "TASK_STATE_DREAMING" });
  });
});
