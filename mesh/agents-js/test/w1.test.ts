/**
 * W1 through the real @a2a-js/sdk client: its card's claims, the scripted behaviour on both transports,
 * and what a restart and a configuration reload do to it.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { TaskNotFoundError } from "@a2a-js/sdk/errors";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { clientFor, userMessage, type Transport } from "../src/client.ts";
import { startJsAgent, type RunningJsAgent } from "../src/js-agent.ts";
import { spawnJsAgent } from "../src/processes.ts";
import { artifactMediaTypes, asTask, stateOf, TaskState } from "./a2a.ts";

const dir = mkdtempSync(join(tmpdir(), "w1-"));
const configFile = join(dir, "w1.json");
let w1: RunningJsAgent;

beforeAll(async () => {
  writeFileSync(configFile, JSON.stringify({ outputMediaType: "application/json" }));
  w1 = await startJsAgent({ kind: "w1", configFile, grpcPort: 0 });
});
afterAll(async () => {
  await w1?.close();
});

describe("W1's card", () => {
  it("claims a durable store, INPUT_REQUIRED and application/json, with max-age and an ETag", async () => {
    const response = await fetch(`${w1.url}/.well-known/agent-card.json`, { headers: { "A2A-Version": "1.0" } });
    expect(response.status).toBe(200);
    expect(response.headers.get("cache-control")).toMatch(/max-age=3600/);
    expect(response.headers.get("etag")).toMatch(/^W\/".+"$/);
    const card = (await response.json()) as Record<string, any>;
    const lifecycle = card.capabilities.extensions.find(
      (e: { uri: string }) => e.uri === "urn:a2a-ledger:ext:task-lifecycle:v1",
    );
    expect(lifecycle.params.taskStore).toBe("durable");
    expect(lifecycle.params.states).toContain("TASK_STATE_INPUT_REQUIRED");
    expect(card.defaultOutputModes).toEqual(["application/json"]);
    expect(card.skills[0].outputModes).toEqual(["application/json"]);
    expect(
      card.supportedInterfaces
        .map((i: { protocolBinding: string; protocolVersion: string }) => `${i.protocolBinding} ${i.protocolVersion}`)
        .sort(),
    ).toEqual(["GRPC 1.0", "HTTP+JSON 0.3", "HTTP+JSON 1.0", "JSONRPC 0.3", "JSONRPC 1.0"]);
    expect(card.supportedInterfaces.find((i: { protocolBinding: string }) => i.protocolBinding === "GRPC").url).toBe(
      w1.grpcTarget,
    );
  });

  it("names no gRPC interface when the worker serves none", async () => {
    const plain = await startJsAgent({ kind: "w1" });
    try {
      const card = (await (
        await fetch(`${plain.url}/.well-known/agent-card.json`, { headers: { "A2A-Version": "1.0" } })
      ).json()) as { supportedInterfaces: { protocolBinding: string }[] };
      expect(card.supportedInterfaces.map((i) => i.protocolBinding)).not.toContain("GRPC");
      expect(plain.grpcTarget).toBeNull();
    } finally {
      await plain.close();
    }
  });
});

describe.each<Transport>(["JSONRPC", "HTTP+JSON", "GRPC"])("W1 over %s", (transport) => {
  it("completes a plain message directly with an application/json artifact", async () => {
    const client = await clientFor(w1.url, transport);
    const task = asTask(
      await client.sendMessage({
        tenant: "",
        message: userMessage("what is a ledger?"),
        configuration: undefined,
        metadata: undefined,
      }),
    );
    expect(stateOf(task)).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(artifactMediaTypes(task)).toEqual(["application/json"]);
    const part = task.artifacts[0]?.parts[0]?.content;
    expect(part?.$case === "data" ? part.value : undefined).toMatchObject({
      worker: "W1",
      question: "what is a ledger?",
    });
  });

  it("stops in INPUT_REQUIRED, keeps waiting, and completes when the input arrives", async () => {
    const client = await clientFor(w1.url, transport);
    const waiting = asTask(
      await client.sendMessage({
        tenant: "",
        message: userMessage("need-input draft a report"),
        configuration: undefined,
        metadata: undefined,
      }),
    );
    expect(stateOf(waiting)).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    expect(stateOf(await client.getTask({ tenant: "", id: waiting.id, historyLength: undefined }))).toBe(
      TaskState.TASK_STATE_INPUT_REQUIRED,
    );
    const done = asTask(
      await client.sendMessage({
        tenant: "",
        message: userMessage("for the board", { taskId: waiting.id }),
        configuration: undefined,
        metadata: undefined,
      }),
    );
    expect(done.id).toBe(waiting.id);
    expect(stateOf(done)).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(artifactMediaTypes(done)).toEqual(["application/json"]);
  });

  it("cancels a task waiting for input", async () => {
    const client = await clientFor(w1.url, transport);
    const waiting = asTask(
      await client.sendMessage({
        tenant: "",
        message: userMessage("need-input then cancel"),
        configuration: undefined,
        metadata: undefined,
      }),
    );
    const canceled = await client.cancelTask({ tenant: "", id: waiting.id, metadata: undefined });
    expect(stateOf(canceled)).toBe(TaskState.TASK_STATE_CANCELED);
  });

  it("streams the states and an artifact in chunks with append and lastChunk", async () => {
    const client = await clientFor(w1.url, transport);
    const events = [];
    for await (const event of client.sendMessageStream({
      tenant: "",
      message: userMessage("stream this chunks=3"),
      configuration: undefined,
      metadata: undefined,
    }))
      events.push(event);
    const chunks = events.flatMap((e) => (e.payload?.$case === "artifactUpdate" ? [e.payload.value] : []));
    expect(chunks.map((c) => [c.append, c.lastChunk])).toEqual([
      [false, false],
      [true, false],
      [true, true],
    ]);
    expect(chunks.every((c) => c.artifact?.parts[0]?.mediaType === "application/json")).toBe(true);
    const states = events.flatMap((e) =>
      e.payload?.$case === "statusUpdate"
        ? [e.payload.value.status?.state]
        : e.payload?.$case === "task"
          ? [e.payload.value.status?.state]
          : [],
    );
    expect(states).toEqual([
      TaskState.TASK_STATE_SUBMITTED,
      TaskState.TASK_STATE_WORKING,
      TaskState.TASK_STATE_COMPLETED,
    ]);
  });
});

describe("W1 restarted in-process", () => {
  it("loses the task waiting for input: GetTask answers TaskNotFound (-32001 over JSON-RPC, 404 over HTTP+JSON, NOT_FOUND over gRPC)", async () => {
    const client = await clientFor(w1.url);
    const waiting = asTask(
      await client.sendMessage({
        tenant: "",
        message: userMessage("need-input anything"),
        configuration: undefined,
        metadata: undefined,
      }),
    );
    await w1.restart();
    // A fresh client: the old one's pooled connections died with the server.
    const fresh = await clientFor(w1.url);
    await expect(fresh.getTask({ tenant: "", id: waiting.id, historyLength: undefined })).rejects.toBeInstanceOf(
      TaskNotFoundError,
    );
    const rest = await clientFor(w1.url, "HTTP+JSON");
    await expect(rest.getTask({ tenant: "", id: waiting.id, historyLength: undefined })).rejects.toBeInstanceOf(
      TaskNotFoundError,
    );
    // gRPC serves the new life's empty store too (NOT_FOUND).
    const grpc = await clientFor(w1.url, "GRPC");
    await expect(grpc.getTask({ tenant: "", id: waiting.id, historyLength: undefined })).rejects.toBeInstanceOf(
      TaskNotFoundError,
    );
    const raw = await fetch(`${w1.url}/a2a/jsonrpc`, {
      method: "POST",
      headers: { "content-type": "application/json", "A2A-Version": "1.0" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "GetTask", params: { id: waiting.id } }),
    });
    expect(((await raw.json()) as { error: { code: number } }).error.code).toBe(-32001);
    expect((await fetch(`${w1.url}/a2a/rest/tasks/${waiting.id}`, { headers: { "A2A-Version": "1.0" } })).status).toBe(
      404,
    );
  });
});

describe("W1 after a configuration reload", () => {
  it("answers in text/plain while its card still says application/json", async () => {
    const before = await (
      await fetch(`${w1.url}/.well-known/agent-card.json`, { headers: { "A2A-Version": "1.0" } })
    ).text();
    writeFileSync(configFile, JSON.stringify({ outputMediaType: "text/plain" }));
    expect(await w1.reload()).toEqual({ outputMediaType: "text/plain" });
    const client = await clientFor(w1.url);
    const task = asTask(
      await client.sendMessage({
        tenant: "",
        message: userMessage("again please"),
        configuration: undefined,
        metadata: undefined,
      }),
    );
    expect(artifactMediaTypes(task)).toEqual(["text/plain"]);
    expect(
      await (await fetch(`${w1.url}/.well-known/agent-card.json`, { headers: { "A2A-Version": "1.0" } })).text(),
    ).toBe(before);
    writeFileSync(configFile, JSON.stringify({ outputMediaType: "application/json" }));
    await w1.reload();
  });

  it("keeps the previous configuration when the file is invalid", async () => {
    writeFileSync(configFile, JSON.stringify({ outputMediaType: "image/png" }));
    await expect(w1.reload()).rejects.toThrow(/outputMediaType must be one of/);
    expect(w1.config()).toEqual({ outputMediaType: "application/json" });
    writeFileSync(configFile, JSON.stringify({ outputMediaType: "application/json" }));
  });
});

describe("W1 as a process", () => {
  it("loses its tasks when the process restarts, and reloads its configuration on SIGHUP", async () => {
    const file = join(dir, "w1-process.json");
    writeFileSync(file, JSON.stringify({ outputMediaType: "application/json" }));
    let proc = await spawnJsAgent("w1", { configFile: file });
    try {
      const client = await clientFor(proc.url);
      const waiting = asTask(
        await client.sendMessage({
          tenant: "",
          message: userMessage("need-input before restart"),
          configuration: undefined,
          metadata: undefined,
        }),
      );
      expect(stateOf(waiting)).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);

      writeFileSync(file, JSON.stringify({ outputMediaType: "text/plain" }));
      proc.child.kill("SIGHUP");
      await expect.poll(() => proc.output(), { timeout: 10_000 }).toContain("configuration reloaded");
      const plain = asTask(
        await client.sendMessage({
          tenant: "",
          message: userMessage("after reload"),
          configuration: undefined,
          metadata: undefined,
        }),
      );
      expect(artifactMediaTypes(plain)).toEqual(["text/plain"]);

      const port = proc.port;
      await proc.stop();
      proc = await spawnJsAgent("w1", { configFile: file, port });
      await expect(client.getTask({ tenant: "", id: waiting.id, historyLength: undefined })).rejects.toBeInstanceOf(
        TaskNotFoundError,
      );
    } finally {
      await proc.stop();
    }
  });
});
