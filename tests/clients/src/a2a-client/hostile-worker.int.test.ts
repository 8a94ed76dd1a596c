/**
 * A hostile worker: a valid card (W1's), then answers that are not what A2A promises — a state outside
 * the spec, a task without an id, a result that is neither task nor message, a body that is not JSON,
 * an artifact with junk parts. The client never crashes: an answer it can read is returned and
 * recorded as seen (an unknown state as UNSPECIFIED with its raw spelling); one it cannot read is a
 * typed A2AClientError with a stable code; and every recorded observation is accepted by the real ingest.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { randomUUID } from "node:crypto";
import { jsWorkerCard } from "@a2a-ledger/mesh-agents";
import type { Observation } from "@a2a-ledger/schemas";
import { AgentCard } from "@a2a-js/sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { A2AClientError, LedgerA2AClient, ObservationRecorder } from "@a2a-ledger/a2a-client";
import { ledgerTopic, type Ingest, type LedgerTopic } from "./ledger.ts";

let topic: LedgerTopic;
let ingest: Ingest;
let server: Server;
let url = "";
/** What the hostile worker answers to the next JSON-RPC call: a body and a status. */
let next: { status: number; body: string } = { status: 200, body: "{}" };

const rpc = (result: unknown) => ({ status: 200, body: JSON.stringify({ jsonrpc: "2.0", id: 1, result }) });

beforeAll(async () => {
  topic = await ledgerTopic("hostile");
  ingest = await topic.startIngest();
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      if (req.url?.startsWith("/.well-known/agent-card.json")) {
        res
          .writeHead(200, { "content-type": "application/json" })
          .end(JSON.stringify(AgentCard.toJSON(jsWorkerCard("w1", url))));
        return;
      }
      // Echo the request id, as a worker must, so only the result is hostile.
      let id: unknown = 1;
      try {
        id = (JSON.parse(Buffer.concat(chunks).toString()) as { id?: unknown }).id ?? 1;
      } catch {
        // keep 1
      }
      res
        .writeHead(next.status, { "content-type": "application/json" })
        .end(next.body.replace('"id":1', `"id":${JSON.stringify(id)}`));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise<void>((resolve) => server?.close(() => resolve()));
  await ingest?.stop();
  await topic?.remove();
});

describe("a hostile worker's answers", () => {
  it("reads what it can, refuses what it cannot with a stable code, and records only what ingest accepts", async () => {
    const run = randomUUID().slice(0, 8);
    const recorder = ObservationRecorder.toIngest(ingest.url);
    const client = await LedgerA2AClient.connect({
      workerId: `hostile-${run}`,
      url,
      observer: "orchestrator:hostile",
      recorder,
    });
    const call = (n: string) => ({
      correlationId: `h-${n}-${run}`,
      text: "hi",
      skillId: "answer",
      acceptedOutputModes: ["application/json"],
    });

    // A state outside the spec, and an artifact whose parts are junk.
    next = rpc({
      task: {
        id: `t-odd-${run}`,
        contextId: "c",
        status: { state: "TASK_STATE_EXPLODED" },
        artifacts: [{ artifactId: "a1", parts: [{ text: "x", mediaType: "text/evil" }, { nothing: true }, 42] }],
      },
    });
    const odd = await client.dispatch(call("odd")).catch((e: unknown) => e);
    // The SDK reads the unknown state as UNRECOGNIZED: a task in no state of the spec, recorded as UNSPECIFIED.
    expect(odd).toMatchObject({ kind: "task", state: "TASK_STATE_UNSPECIFIED", rawState: "UNRECOGNIZED" });

    // A task without an id.
    next = rpc({ task: { contextId: "c", status: { state: "TASK_STATE_COMPLETED" } } });
    const noId = await client.dispatch(call("noid")).catch((e: unknown) => e);
    expect(noId).toBeInstanceOf(A2AClientError);
    expect((noId as A2AClientError).code).toBe("A2A_CLIENT_MALFORMED_ANSWER");

    // A result that is neither a task nor a message.
    next = rpc("nonsense");
    const nonsense = await client.dispatch(call("nonsense")).catch((e: unknown) => e);
    expect(nonsense).toBeInstanceOf(A2AClientError);
    expect((nonsense as A2AClientError).code).toBe("A2A_CLIENT_MALFORMED_ANSWER");

    // A body that is not JSON at all.
    next = { status: 200, body: "<html>not an agent</html>" };
    const html = await client.dispatch(call("html")).catch((e: unknown) => e);
    expect(html).toBeInstanceOf(A2AClientError);
    expect((html as A2AClientError).code).toBe("A2A_CLIENT_MALFORMED_ANSWER");

    // TaskNotFound for a task the client never saw: not indeterminate, not failed.
    next = {
      status: 200,
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, error: { code: -32001, message: "Task not found" } }),
    };
    const gone = await client.getTask({ correlationId: `h-gone-${run}`, taskId: "t-gone" });
    expect(gone.kind).toBe("unknown-task");

    const stats = await recorder.close(30_000);
    expect(stats).toMatchObject({ pending: 0, rejected: 0, dropped: 0 });
    const all = (await topic.observations(stats.recorded)).filter((o) => o.observer === "orchestrator:hostile");
    expect(all).toHaveLength(stats.recorded);
    const states = all.filter(
      (o): o is Extract<Observation, { type: "TaskStateObserved" }> => o.type === "TaskStateObserved",
    );
    expect(states.find((s) => s.serverTaskId === `t-odd-${run}`)).toMatchObject({
      state: "TASK_STATE_UNSPECIFIED",
      rawState: "UNRECOGNIZED",
    });
    // The junk parts are recorded as OTHER, the readable one with its media type.
    const artifact = all.find(
      (o): o is Extract<Observation, { type: "ArtifactEmitted" }> =>
        o.type === "ArtifactEmitted" && o.serverTaskId === `t-odd-${run}`,
    );
    expect(artifact?.parts.map((p) => p.mediaType)).toContain("text/evil");
    // Every answer that arrived — readable or not — proves the dispatch reached the worker: four dispatches.
    expect(
      all
        .filter((o) => o.type === "TaskDispatched")
        .map((o) => o.correlationId)
        .sort(),
    ).toEqual([`h-html-${run}`, `h-noid-${run}`, `h-nonsense-${run}`, `h-odd-${run}`]);
    expect(all.some((o) => o.type === "TaskNotFoundObserved" && o.serverTaskId === "t-gone")).toBe(true);
    // No task without an id was recorded as a state.
    expect(states.every((s) => s.serverTaskId !== "")).toBe(true);
  });
});
