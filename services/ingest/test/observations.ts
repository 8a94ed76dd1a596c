/**
 * Valid ingest-JSON observations of every type, for tests and the benchmark.
 */
export type JsonObject = Record<string, unknown>;

const card = (worker: string): JsonObject => ({
  name: `agent ${worker}`,
  supportedInterfaces: [{ url: `http://127.0.0.1:9/${worker}`, protocolBinding: "JSONRPC" }],
  defaultOutputModes: ["text/plain"],
  capabilities: {
    extensions: [
      {
        uri: "urn:a2a-ledger:ext:task-lifecycle:v1",
        params: { states: ["TASK_STATE_WORKING", "TASK_STATE_COMPLETED"], taskStore: "durable" },
      },
    ],
  },
  skills: [{ id: "summarize", outputModes: ["text/markdown"] }],
});

/** The i-th observation of a run; the type cycles through all six. */
export function observation(run: string, i: number, correlationId: string): JsonObject {
  const common = {
    eventId: `${run}-e${i}`,
    correlationId,
    occurredAt: 1_735_689_600_000 + i,
    observer: "orchestrator-1",
    workerId: `worker-${i % 4}`,
  };
  switch (i % 6) {
    case 0:
      return {
        type: "AgentCardObserved",
        ...common,
        cardUrl: "http://127.0.0.1:9/.well-known/agent-card.json",
        card: card(common.workerId),
        cacheMaxAgeSeconds: 300,
        etag: '"v1"',
      };
    case 1:
      return {
        type: "TaskDispatched",
        ...common,
        skillId: "summarize",
        messageId: `m-${i}`,
        acceptedOutputModes: ["text/markdown"],
        cardHash: null,
        cardFetchedAt: "2025-01-01T00:00:00Z",
        attempt: 1,
      };
    case 2:
      return {
        type: "TaskStateObserved",
        ...common,
        serverTaskId: `t-${i}`,
        contextId: null,
        state: "input-required",
        via: "send-response",
      };
    case 3:
      return {
        type: "ArtifactEmitted",
        ...common,
        serverTaskId: `t-${i}`,
        artifactId: `a-${i}`,
        name: "summary",
        parts: [{ kind: "text", mimeType: "text/markdown", sizeBytes: 120 }],
      };
    case 4:
      return { type: "TaskNotFoundObserved", ...common, serverTaskId: `t-${i}`, method: "GetTask", errorCode: -32001 };
    default:
      return {
        type: "ProbeCompleted",
        ...common,
        cardHash: "0".repeat(64),
        skillId: "summarize",
        statesObserved: ["TASK_STATE_WORKING"],
        reobservable: ["working"],
        emittedModes: ["text/markdown"],
        durable: null,
        parkedCanaries: [],
      };
  }
}

/** A TaskStateObserved of about `bytes` bytes of JSON (padding in serverTaskId). */
export function sizedObservation(run: string, i: number, correlationId: string, bytes: number): JsonObject {
  const base = {
    type: "TaskStateObserved",
    eventId: `${run}-e${i}`,
    correlationId,
    occurredAt: 1_735_689_600_000 + i,
    observer: "orchestrator-1",
    workerId: "worker-1",
    contextId: null,
    state: "TASK_STATE_WORKING",
    via: "GET",
    serverTaskId: "",
  };
  const pad = Math.max(1, bytes - JSON.stringify(base).length);
  return { ...base, serverTaskId: `t${i}-`.padEnd(pad, "x") };
}
