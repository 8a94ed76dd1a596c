/**
 * The guard on a real @a2a-js/sdk worker (DefaultRequestHandler, express, InMemoryTaskStore), called by
 * the real SDK client, recording through the real ingest service to Kafka. The executor tries what its
 * message says; the guard refuses what the card in force at that moment does not advertise.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { randomUUID } from "node:crypto";
import { Role, TaskState, taskStateToJSON, type AgentCard, type Message, type Part } from "@a2a-js/sdk";
import { ClientFactory, ClientFactoryOptions, type Client } from "@a2a-js/sdk/client";
import {
  AgentEvent,
  DefaultRequestHandler,
  InMemoryTaskStore,
  type AgentExecutor,
  type ExecutionEventBus,
  type RequestContext,
} from "@a2a-js/sdk/server";
import { agentCardHandler, jsonRpcHandler, UserBuilder } from "@a2a-js/sdk/server/express";
import { IngestClient } from "@a2a-ledger/ingest-client";
import express from "express";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EmissionRefusedError, WorkerGuard } from "../src/index.ts";
import { startLedger, type TestLedger } from "../src/testing.ts";

const lifecycle = (states: string[]) => ({
  uri: "urn:a2a-ledger:ext:task-lifecycle:v1",
  description: "",
  required: false,
  params: { states, taskStore: "ephemeral" },
});

function cardOf(url: string, outputModes: string[]): AgentCard {
  return {
    name: "Guarded",
    description: "a guarded worker",
    version: "1.0.0",
    supportedInterfaces: [
      { url: `${url}/a2a/jsonrpc`, protocolBinding: "JSONRPC", tenant: "", protocolVersion: "1.0" },
    ],
    provider: { organization: "Test", url: "" },
    capabilities: {
      streaming: true,
      pushNotifications: false,
      extendedAgentCard: false,
      extensions: [lifecycle(["TASK_STATE_SUBMITTED", "TASK_STATE_WORKING", "TASK_STATE_COMPLETED"])],
    },
    securitySchemes: {},
    securityRequirements: [],
    defaultInputModes: ["text/plain"],
    defaultOutputModes: ["text/plain"],
    skills: [
      {
        id: "answer",
        name: "Answer",
        description: "",
        tags: [],
        examples: [],
        inputModes: ["text/plain"],
        outputModes,
        securityRequirements: [],
      },
    ],
    signatures: [],
  };
}

const text = (value: string, mediaType: string): Part => ({
  content: { $case: "text", value },
  metadata: undefined,
  filename: "",
  mediaType,
});
const textOf = (m: Message) => (m.parts[0]?.content?.$case === "text" ? m.parts[0].content.value : "");
const now = () => new Date().toISOString();

/**
 * Tries, in order, the emissions its message names (`state:NAME`, `artifact:MEDIA/TYPE`, `wait`),
 * catching each refusal and going on; then completes. What it caught is kept per task.
 */
class TryingExecutor implements AgentExecutor {
  readonly caught = new Map<string, EmissionRefusedError[]>();
  readonly gates = new Map<string, () => void>();
  readonly waiting = new Map<string, Promise<void>>();

  execute = async (ctx: RequestContext, bus: ExecutionEventBus): Promise<void> => {
    const { taskId, contextId } = ctx;
    const caught: EmissionRefusedError[] = [];
    this.caught.set(taskId, caught);
    const attempt = (emit: () => void) => {
      try {
        emit();
      } catch (e) {
        if (!(e instanceof EmissionRefusedError)) throw e;
        caught.push(e);
      }
    };
    const status = (state: TaskState) =>
      bus.publish(
        AgentEvent.statusUpdate({
          taskId,
          contextId,
          status: { state, message: undefined, timestamp: now() },
          metadata: undefined,
        }),
      );
    bus.publish(
      AgentEvent.task({
        id: taskId,
        contextId,
        status: { state: TaskState.TASK_STATE_SUBMITTED, message: undefined, timestamp: now() },
        artifacts: [],
        history: [ctx.userMessage],
        metadata: ctx.userMessage.metadata,
      }),
    );
    status(TaskState.TASK_STATE_WORKING);
    for (const word of textOf(ctx.userMessage).split(/\s+/)) {
      if (word === "wait") {
        let open!: () => void;
        const gate = new Promise<void>((resolve) => (open = resolve));
        this.gates.set(taskId, open);
        this.waiting.set(taskId, Promise.resolve());
        await gate;
      } else if (word.startsWith("state:")) {
        attempt(() => status(TaskState[word.slice(6) as keyof typeof TaskState]));
      } else if (word.startsWith("artifact:")) {
        const mediaType = word.slice(9);
        attempt(() =>
          bus.publish(
            AgentEvent.artifactUpdate({
              taskId,
              contextId,
              artifact: {
                artifactId: `${taskId}-${mediaType}`,
                name: "result",
                description: "",
                parts: [text(`in ${mediaType}`, mediaType)],
                metadata: undefined,
                extensions: [],
              },
              append: false,
              lastChunk: true,
              metadata: undefined,
            }),
          ),
        );
      }
    }
    status(TaskState.TASK_STATE_COMPLETED);
  };

  cancelTask = async (): Promise<void> => undefined;
}

let ledger: TestLedger;
let server: Server;
let url: string;
let card: AgentCard;
const executor = new TryingExecutor();
let guard: WorkerGuard;
let client: Client;
const recordErrors: unknown[] = [];

beforeAll(async () => {
  ledger = await startLedger("refusals");
  const ingest = new IngestClient({ baseUrl: ledger.url });
  guard = new WorkerGuard({
    workerId: "W-guarded",
    card: () => card,
    record: (o) => ingest.send([o]),
    onRecordError: (e) => recordErrors.push(e),
  });
  server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  card = cardOf(url, ["text/plain"]);
  const handler = new DefaultRequestHandler(cardOf(url, ["text/plain"]), new InMemoryTaskStore(), guard.wrap(executor));
  const app = express();
  app.use("/.well-known/agent-card.json", agentCardHandler({ agentCardProvider: handler }));
  app.use("/a2a/jsonrpc", jsonRpcHandler({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication }));
  server.on("request", app);
  client = await new ClientFactory(
    ClientFactoryOptions.createFrom(ClientFactoryOptions.default, { preferredTransports: ["JSONRPC"] }),
  ).createFromUrl(url);
});

afterAll(async () => {
  expect(recordErrors).toEqual([]);
  await new Promise<void>((resolve) => server?.close(() => resolve()));
  await ledger?.close();
});

const message = (words: string, correlationId: string): Message => ({
  messageId: randomUUID(),
  contextId: "",
  taskId: "",
  role: Role.ROLE_USER,
  parts: [text(words, "text/plain")],
  metadata: { "a2a-ledger.correlationId": correlationId, "a2a-ledger.skillId": "answer" },
  extensions: [],
  referenceTaskIds: [],
});

async function send(words: string, correlationId: string) {
  const result = await client.sendMessage({
    tenant: "",
    message: message(words, correlationId),
    configuration: undefined,
    metadata: undefined,
  });
  if (!("status" in result)) throw new Error("expected a task");
  return result;
}

describe("the guard on an @a2a-js/sdk worker", () => {
  it("refuses a state the card does not advertise: the executor sees the typed error, the client never sees the state, the ledger records the refusal", async () => {
    const task = await send("state:TASK_STATE_INPUT_REQUIRED artifact:text/plain", "corr-state");
    expect(taskStateToJSON(task.status!.state)).toBe("TASK_STATE_COMPLETED");
    const caught = executor.caught.get(task.id) ?? [];
    expect(caught.map((e) => e.code)).toEqual(["GUARD_STATE_NOT_ADVERTISED"]);
    expect(caught[0]?.verdict).toMatchObject({ kind: "STATE_NOT_ADVERTISED", state: "TASK_STATE_INPUT_REQUIRED" });
    // The stream of a second task shows every event the worker published: INPUT_REQUIRED is not among them.
    const states: string[] = [];
    for await (const event of client.sendMessageStream({
      tenant: "",
      message: message("state:TASK_STATE_INPUT_REQUIRED", "corr-state-stream"),
      configuration: undefined,
      metadata: undefined,
    })) {
      const p = event.payload;
      if (p?.$case === "statusUpdate") states.push(taskStateToJSON(p.value.status!.state));
      if (p?.$case === "task") states.push(taskStateToJSON(p.value.status!.state));
    }
    expect(states).not.toContain("TASK_STATE_INPUT_REQUIRED");
    expect(states.at(-1)).toBe("TASK_STATE_COMPLETED");
    await guard.flush();
    const [first, second] = await ledger.observations(2);
    expect(first).toMatchObject({
      type: "EmissionRefused",
      correlationId: "corr-state",
      observer: "guard:W-guarded",
      workerId: "W-guarded",
      serverTaskId: task.id,
      skillId: "answer",
      emission: "STATUS",
      kind: "STATE_NOT_ADVERTISED",
      state: "TASK_STATE_INPUT_REQUIRED",
      rawState: "TASK_STATE_INPUT_REQUIRED",
      allowed: ["TASK_STATE_SUBMITTED", "TASK_STATE_WORKING", "TASK_STATE_COMPLETED"],
      artifactId: null,
      parts: [],
    });
    expect(first?.type === "EmissionRefused" && first.cardHash).toMatch(/^[0-9a-f]{64}$/);
    expect(second).toMatchObject({
      type: "EmissionRefused",
      correlationId: "corr-state-stream",
      kind: "STATE_NOT_ADVERTISED",
    });
  });

  it("refuses an artifact outside the skill's output modes and lets the allowed one through", async () => {
    const task = await send("artifact:application/json artifact:text/plain", "corr-mode");
    expect(task.artifacts.map((a) => a.parts.map((p) => p.mediaType))).toEqual([["text/plain"]]);
    expect((executor.caught.get(task.id) ?? []).map((e) => e.code)).toEqual(["GUARD_OUTPUT_MODE_NOT_ADVERTISED"]);
    await guard.flush();
    const all = await ledger.observations(3);
    expect(all[2]).toMatchObject({
      type: "EmissionRefused",
      correlationId: "corr-mode",
      emission: "ARTIFACT",
      kind: "OUTPUT_MODE_NOT_ADVERTISED",
      state: null,
      artifactId: `${task.id}-application/json`,
      parts: [{ kind: "TEXT", mediaType: "application/json", sizeBytes: 19 }],
      allowed: ["text/plain"],
    });
  });

  it("judges by the card in force at emission: a card changed after dispatch refuses what the dispatch-time card allowed", async () => {
    const sending = send("wait artifact:text/plain artifact:application/json", "corr-change");
    // The task is dispatched and waits; the card now says application/json only.
    for (let i = 0; i < 100 && executor.gates.size === 0; i++) await new Promise((r) => setTimeout(r, 20));
    const [taskId, open] = [...executor.gates.entries()][0]!;
    card = cardOf(url, ["application/json"]);
    open();
    const task = await sending;
    expect(task.id).toBe(taskId);
    expect(task.artifacts.map((a) => a.parts.map((p) => p.mediaType))).toEqual([["application/json"]]);
    expect((executor.caught.get(task.id) ?? []).map((e) => e.code)).toEqual(["GUARD_OUTPUT_MODE_NOT_ADVERTISED"]);
    await guard.flush();
    const all = await ledger.observations(4);
    expect(all[3]).toMatchObject({
      correlationId: "corr-change",
      kind: "OUTPUT_MODE_NOT_ADVERTISED",
      parts: [{ mediaType: "text/plain" }],
      allowed: ["application/json"],
    });
    card = cardOf(url, ["text/plain"]);
  });

  it("falls back to the task id as the correlation id when the request names none", async () => {
    const result = await client.sendMessage({
      tenant: "",
      message: { ...message("state:TASK_STATE_AUTH_REQUIRED", "x"), metadata: undefined },
      configuration: undefined,
      metadata: undefined,
    });
    const id = "id" in result ? result.id : "";
    await guard.flush();
    const all = await ledger.observations(5);
    expect(all[4]).toMatchObject({
      correlationId: id,
      serverTaskId: id,
      skillId: null,
      state: "TASK_STATE_AUTH_REQUIRED",
    });
  });

  it("refuses everything, unrecorded, while the card cannot be read", async () => {
    const before = guard.refused;
    card = undefined as unknown as AgentCard;
    const result = await client.sendMessage({
      tenant: "",
      message: message("plain", "corr-nocard"),
      configuration: undefined,
      metadata: undefined,
    });
    // The executor did not catch the refusal of its very first event: the SDK itself ends the task FAILED with the error.
    expect("status" in result && taskStateToJSON(result.status!.state)).toBe("TASK_STATE_FAILED");
    expect(JSON.stringify(result)).toContain("GUARD_CARD_UNAVAILABLE");
    expect(guard.refused).toBe(before);
    card = cardOf(url, ["text/plain"]);
  });
});
