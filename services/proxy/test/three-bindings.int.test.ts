/**
 * The same calls of both SDKs' clients on each of A2A's three bindings (JSON-RPC, HTTP+JSON, gRPC), made
 * directly and through the recording proxy: @a2a-js/sdk's client against W1 (@a2a-js/sdk worker), the
 * Python a2a-sdk client against W3 (a2a-sdk worker), each worker with its gRPC binding on. The answers
 * through the proxy equal the direct ones, decoded as ProtoJSON, once the values each worker generates
 * afresh for every new task are set aside: task, context, message and artifact ids (mapped to
 * placeholders in order of appearance, so the structure of who-refers-to-what is still compared) and
 * status timestamps. Every exchange through the proxy lands on Kafka through the real ingest service,
 * and ingest rejects none.
 */
import { execFile } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { ListTasksResponse, Message, StreamResponse, Task, TaskState, type SendMessageResult } from "@a2a-js/sdk";
import type { Client } from "@a2a-js/sdk/client";
import {
  agentPyPython,
  clientFor,
  spawnPyAgent,
  startJsAgent,
  userMessage,
  type AgentProcess,
  type RunningJsAgent,
  type Transport,
} from "@a2a-ledger/mesh-agents";
import type { Observation } from "@a2a-ledger/schemas";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ledgerTopic, type Ledger, type LedgerTopic } from "./ledger.ts";
import { drained, metric, metricTotal, startProxy, testConfig, type TestProxy } from "./proxy.ts";

const bindings: Transport[] = ["JSONRPC", "HTTP+JSON", "GRPC"];
const notFoundCode: Record<Transport, string> = { JSONRPC: "-32001", "HTTP+JSON": "404", GRPC: "NOT_FOUND" };
const pyCalls = fileURLToPath(new URL("./py-client/calls.py", import.meta.url));

type Step = { call: string; result?: unknown; error?: string };

/** Generated ids to placeholders (first seen, first numbered), timestamps set aside; everything else as it came. */
function normalized(steps: Step[]): unknown {
  const ids = new Map<string, string>();
  const idKeys = new Set(["id", "taskId", "contextId", "messageId", "artifactId"]);
  const walk = (value: unknown, key: string | null): unknown => {
    if (Array.isArray(value)) return value.map((v) => walk(v, key));
    if (typeof value === "object" && value !== null)
      return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, walk(v, k)]));
    if (typeof value === "string" && key === "timestamp") return "<timestamp>";
    if (typeof value === "string" && key !== null && idKeys.has(key) && value !== "") {
      if (!ids.has(value)) ids.set(value, `<id ${ids.size + 1}>`);
      return ids.get(value);
    }
    return value;
  };
  return walk(steps, null);
}

const resultJson = (r: SendMessageResult): unknown =>
  "status" in r ? { task: Task.toJSON(r) } : { message: Message.toJSON(r) };

/** The scripted calls of @a2a-js/sdk's client on one binding, naming the correlation in a header (gRPC: metadata). */
async function jsCalls(baseUrl: string, transport: Transport, correlation: string): Promise<Step[]> {
  const client: Client = await clientFor(baseUrl, transport);
  const options = { serviceParameters: { "a2a-ledger-correlation-id": correlation } };
  const steps: Step[] = [];
  const step = async <T>(call: string, run: () => Promise<T>, json: (value: T) => unknown): Promise<T | null> => {
    try {
      const value = await run();
      steps.push({ call, result: json(value) });
      return value;
    } catch (e) {
      steps.push({ call, error: (e as Error).name });
      return null;
    }
  };
  const send = (text: string, taskId?: string, contextId?: string) =>
    client.sendMessage(
      {
        tenant: "",
        message: userMessage(text, {
          ...(taskId === undefined ? {} : { taskId }),
          ...(contextId === undefined ? {} : { contextId }),
        }),
        configuration: undefined,
        metadata: undefined,
      },
      options,
    );
  const collect = async (events: AsyncGenerator<StreamResponse>, onFirst?: () => void): Promise<StreamResponse[]> => {
    const out: StreamResponse[] = [];
    for await (const e of events) {
      out.push(e);
      if (out.length === 1) onFirst?.();
    }
    return out;
  };
  const streamJson = (events: StreamResponse[]) => events.map((e) => StreamResponse.toJSON(e));

  await step("SendMessage", () => send("what is a ledger?"), resultJson);
  const waiting = (await step("SendMessage need-input", () => send("need-input draft a report"), resultJson)) as Task;
  await step(
    "GetTask",
    () => client.getTask({ tenant: "", id: waiting.id, historyLength: undefined }, options),
    (t) => Task.toJSON(t),
  );
  await step("SendMessage follow-up", () => send("for the board", waiting.id, waiting.contextId), resultJson);
  await step(
    "SendStreamingMessage",
    () =>
      collect(
        client.sendMessageStream(
          { tenant: "", message: userMessage("stream chunks=3"), configuration: undefined, metadata: undefined },
          options,
        ),
      ),
    streamJson,
  );
  const waiting2 = (await step("SendMessage need-input 2", () => send("need-input another"), resultJson)) as Task;
  await step(
    "SubscribeToTask + CancelTask",
    async () => {
      // The subscription's first event is the task as it stands (SubscribeToTask): cancel only once it
      // arrived, so that the cancel never races the subscription, directly or through the proxy.
      let subscribed!: () => void;
      const first = new Promise<void>((resolve) => {
        subscribed = resolve;
      });
      const subscription = collect(client.resubscribeTask({ tenant: "", id: waiting2.id }, options), subscribed);
      await Promise.race([first, subscription]);
      const canceled = await client.cancelTask({ tenant: "", id: waiting2.id, metadata: undefined }, options);
      return { events: await subscription, canceled };
    },
    (r) => [...streamJson(r.events), { canceled: Task.toJSON(r.canceled) }],
  );
  await step(
    "ListTasks",
    () =>
      client.listTasks(
        {
          tenant: "",
          contextId: waiting.contextId,
          status: TaskState.TASK_STATE_UNSPECIFIED,
          pageToken: "",
          statusTimestampAfter: undefined,
        },
        options,
      ),
    (r) => ListTasksResponse.toJSON(r),
  );
  await step(
    "GetTask unknown",
    () => client.getTask({ tenant: "", id: `unknown-${correlation}`, historyLength: undefined }, options),
    (t) => Task.toJSON(t),
  );
  return steps;
}

/** The scripted calls of the Python a2a-sdk client (test/py-client/calls.py), naming the correlation in the message metadata. */
function pyCallsOn(baseUrl: string, transport: Transport, correlation: string): Promise<Step[]> {
  return new Promise((resolve, reject) => {
    execFile(
      agentPyPython,
      [pyCalls, baseUrl, transport, correlation],
      { timeout: 120_000, maxBuffer: 16 * 1024 * 1024 },
      (err, stdout, stderr) => {
        if (err !== null) return reject(new Error(`${err.message}\n${stderr}`));
        resolve(JSON.parse(stdout) as Step[]);
      },
    );
  });
}

let topic: LedgerTopic;
let ledger: Ledger;
let w1: RunningJsAgent;
let w3: AgentProcess;
let proxyW1: TestProxy;
let proxyW3: TestProxy;
const runs: { sdk: "js" | "py"; binding: Transport; correlation: string; direct: Step[]; proxied: Step[] }[] = [];

beforeAll(async () => {
  topic = await ledgerTopic("bindings");
  ledger = await topic.start();
  w1 = await startJsAgent({ kind: "w1", grpcPort: 0 });
  w3 = await spawnPyAgent({ db: join(mkdtempSync(join(tmpdir(), "w3-bindings-")), "w3.sqlite"), grpcPort: 0 });
  const config = { ingestUrl: ledger.url, rewriteCardUrls: true, grpcPort: 0 };
  proxyW1 = await startProxy(testConfig({ ...config, upstreamUrl: w1.url }));
  proxyW3 = await startProxy(testConfig({ ...config, upstreamUrl: w3.url, workerId: "W3", observer: "proxy:W3" }));
}, 60_000);
afterAll(async () => {
  await proxyW1?.close();
  await proxyW3?.close();
  await w1?.close();
  await w3?.stop();
  await ledger?.stop();
  await topic?.remove();
});

describe.each(bindings)("on %s", (binding) => {
  it("@a2a-js/sdk's client gets the same answers from W1 directly and through the proxy", async () => {
    const correlation = `corr-js-${binding}-${Date.now()}`;
    const direct = await jsCalls(w1.url, binding, correlation);
    const proxied = await jsCalls(proxyW1.url, binding, correlation);
    expect(direct.filter((s) => s.error !== undefined).map((s) => [s.call, s.error])).toEqual([
      ["GetTask unknown", "TaskNotFoundError"],
    ]);
    expect(normalized(proxied)).toEqual(normalized(direct));
    runs.push({ sdk: "js", binding, correlation, direct, proxied });
  }, 60_000);

  it("the Python a2a-sdk client gets the same answers from W3 directly and through the proxy", async () => {
    const correlation = `corr-py-${binding}-${Date.now()}`;
    const direct = await pyCallsOn(w3.url, binding, correlation);
    const proxied = await pyCallsOn(proxyW3.url, binding, correlation);
    expect(direct.filter((s) => s.error !== undefined).map((s) => s.call)).toEqual(["GetTask unknown"]);
    expect(normalized(proxied)).toEqual(normalized(direct));
    runs.push({ sdk: "py", binding, correlation, direct, proxied });
  }, 120_000);
});

describe("what the proxies recorded", () => {
  it("every exchange through the proxies is on Kafka, none rejected by ingest", async () => {
    expect(runs).toHaveLength(6);
    await drained(proxyW1.app);
    await drained(proxyW3.app);
    const sent =
      (await metric(proxyW1.url, "a2a_proxy_observations_sent_total")) +
      (await metric(proxyW3.url, "a2a_proxy_observations_sent_total"));
    const offered =
      (await metricTotal(proxyW1.url, "a2a_proxy_observations_total")) +
      (await metricTotal(proxyW3.url, "a2a_proxy_observations_total"));
    for (const p of [proxyW1, proxyW3])
      for (const reason of ["rejected", "buffer_full", "overflow"])
        expect(await metric(p.url, "a2a_proxy_observations_dropped_total", { reason })).toBe(0);
    expect(sent).toBe(offered);
    const records = (await ledger.records(sent)).map((r) => r.observation);
    expect(records).toHaveLength(sent);

    for (const run of runs) {
      const worker = run.sdk === "js" ? "W1" : "W3";
      const unknown = `unknown-${run.correlation}`;
      const mine = records.filter((o) => o.correlationId === run.correlation);
      const of = <T extends Observation["type"]>(type: T) =>
        mine.filter((o): o is Extract<Observation, { type: T }> => o.type === type);
      const label = `${run.sdk} on ${run.binding}`;
      expect(
        mine.every((o) => o.workerId === worker && o.observer === `proxy:${worker}`),
        label,
      ).toBe(true);
      // Four new tasks (the follow-up continues one): four dispatches.
      expect(of("TaskDispatched"), label).toHaveLength(4);
      const states = of("TaskStateObserved");
      expect(new Set(states.map((s) => s.via)), label).toEqual(new Set(["SEND_RESPONSE", "GET", "STREAM", "OTHER"]));
      for (const s of ["TASK_STATE_INPUT_REQUIRED", "TASK_STATE_COMPLETED", "TASK_STATE_CANCELED"])
        expect(
          states.map((o) => o.state),
          label,
        ).toContain(s);
      const artifacts = of("ArtifactEmitted");
      expect(
        artifacts.flatMap((a) => a.parts.map((p) => p.mediaType)),
        label,
      ).toContain(worker === "W1" ? "application/json" : "text/plain");
      expect(
        artifacts.filter((a) => a.lastChunk === true && a.append),
        label,
      ).toHaveLength(1);
      // The unknown task: under the named correlation when the call named one (the JS client's header), else under its own id.
      const notFound = records.filter(
        (o): o is Extract<Observation, { type: "TaskNotFoundObserved" }> =>
          o.type === "TaskNotFoundObserved" && o.serverTaskId === unknown,
      );
      expect(
        notFound.map((o) => [o.method, o.errorCode, o.correlationId]),
        label,
      ).toEqual([["GetTask", notFoundCode[run.binding], run.sdk === "js" ? run.correlation : unknown]]);
    }
  }, 60_000);
});
