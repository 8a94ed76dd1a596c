/**
 * W3 (Python a2a-sdk, DatabaseTaskStore on SQLite) through the real @a2a-js/sdk client: its card, the
 * scripted behaviour on both transports and protocol versions, and a task waiting for input that
 * survives a process restart and completes afterwards.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Role, TaskState, type SendMessageResult, type Task } from "@a2a-js/sdk";
import { TaskNotFoundError } from "@a2a-js/sdk/errors";
import { clientFor, spawnPyAgent, userMessage, type AgentProcess, type Transport } from "@a2a-ledger/mesh-agents";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const dir = mkdtempSync(join(tmpdir(), "w3-"));
const db = join(dir, "w3.sqlite");
let w3: AgentProcess;

beforeAll(async () => {
  w3 = await spawnPyAgent({ db, grpcPort: 0 });
});
afterAll(async () => {
  await w3?.stop();
});

function asTask(result: SendMessageResult): Task {
  if (!("status" in result)) throw new Error(`expected a task, got ${JSON.stringify(result)}`);
  return result;
}
const mediaTypes = (task: Task): string[] => task.artifacts.flatMap((a) => a.parts.map((p) => p.mediaType));
const send = (text: string, taskId?: string) => ({
  tenant: "",
  message: userMessage(text, taskId === undefined ? {} : { taskId }),
  configuration: undefined,
  metadata: undefined,
});

describe("W3's card", () => {
  it("declares the lifecycle extension with a durable store, INPUT_REQUIRED and text/plain, with max-age and an ETag", async () => {
    const response = await fetch(`${w3.url}/.well-known/agent-card.json`, { headers: { "A2A-Version": "1.0" } });
    expect(response.headers.get("cache-control")).toMatch(/max-age=3600/);
    expect(response.headers.get("etag")).toMatch(/^W\/".+"$/);
    const card = (await response.json()) as Record<string, any>;
    const lifecycle = card.capabilities.extensions.find(
      (e: { uri: string }) => e.uri === "urn:a2a-ledger:ext:task-lifecycle:v1",
    );
    expect(lifecycle.params.taskStore).toBe("durable");
    expect(lifecycle.params.states).toContain("TASK_STATE_INPUT_REQUIRED");
    expect(card.defaultOutputModes).toEqual(["text/plain"]);
    expect(card.provider.organization).toBe("Contoso Python Agents");
    expect(card.supportedInterfaces.filter((i: { protocolBinding: string }) => i.protocolBinding === "GRPC")).toEqual([
      { url: w3.grpcTarget, protocolBinding: "GRPC", protocolVersion: "1.0" },
    ]);
  });
});

describe.each<Transport>(["JSONRPC", "HTTP+JSON", "GRPC"])("W3 over %s", (transport) => {
  it("completes a plain message with a text/plain artifact", async () => {
    const client = await clientFor(w3.url, transport);
    const task = asTask(await client.sendMessage(send("what is a ledger?")));
    expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(mediaTypes(task)).toEqual(["text/plain"]);
  });

  it("stops in INPUT_REQUIRED and completes when the input arrives", async () => {
    const client = await clientFor(w3.url, transport);
    const waiting = asTask(await client.sendMessage(send("need-input draft a report")));
    expect(waiting.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    expect(waiting.status?.message?.role).toBe(Role.ROLE_AGENT);
    const done = asTask(await client.sendMessage(send("for the board", waiting.id)));
    expect(done.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    const part = done.artifacts[0]?.parts[0]?.content;
    expect(part?.$case === "text" ? part.value : "").toBe("W3 answered: draft a report / input: for the board");
  });

  it("streams an artifact in chunks", async () => {
    const client = await clientFor(w3.url, transport);
    const chunks = [];
    for await (const event of client.sendMessageStream(send("stream chunks=3")))
      if (event.payload?.$case === "artifactUpdate") chunks.push(event.payload.value);
    expect(chunks.map((c) => [c.append, c.lastChunk])).toEqual([
      [false, false],
      [true, false],
      [true, true],
    ]);
  });
});

describe("W3 on the v0.3 protocol", () => {
  it("answers v0.3 method names without the A2A-Version header", async () => {
    const response = await fetch(`${w3.url}/a2a/jsonrpc`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "message/send",
        params: {
          message: { kind: "message", messageId: "v03-1", role: "user", parts: [{ kind: "text", text: "hello" }] },
        },
      }),
    });
    const body = (await response.json()) as { result: { kind: string; status: { state: string } } };
    expect(body.result.kind).toBe("task");
    expect(body.result.status.state).toBe("completed");
  });

  it("answers TaskNotFound for an unknown task, over gRPC too", async () => {
    const client = await clientFor(w3.url);
    await expect(client.getTask({ tenant: "", id: "no-such-task", historyLength: undefined })).rejects.toBeInstanceOf(
      TaskNotFoundError,
    );
    const grpc = await clientFor(w3.url, "GRPC");
    await expect(grpc.getTask({ tenant: "", id: "no-such-task", historyLength: undefined })).rejects.toBeInstanceOf(
      TaskNotFoundError,
    );
  });
});

describe("W3 restarted", () => {
  it("keeps a task waiting for input across a process restart and completes it afterwards", async () => {
    const client = await clientFor(w3.url);
    const waiting = asTask(await client.sendMessage(send("need-input survive this")));
    expect(waiting.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    const port = w3.port;
    await w3.stop();
    w3 = await spawnPyAgent({ db, port, grpcPort: 0 });
    const fresh = await clientFor(w3.url);
    const found = await fresh.getTask({ tenant: "", id: waiting.id, historyLength: undefined });
    expect(found.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    // The gRPC binding reads the same store.
    const overGrpc = await (await clientFor(w3.url, "GRPC")).getTask({
      tenant: "",
      id: waiting.id,
      historyLength: undefined,
    });
    expect(overGrpc.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    const done = asTask(await fresh.sendMessage(send("here it is", waiting.id)));
    expect(done.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(mediaTypes(done)).toEqual(["text/plain"]);
  });
});
