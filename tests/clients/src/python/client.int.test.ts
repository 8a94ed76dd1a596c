/**
 * The Python orchestrator client against the live mesh (clients/python/tests/live_client.py): the real a2a-sdk client of
 * the package talking to W1 (@a2a-js/sdk, in-memory store, restarted here mid-run so it loses a waiting
 * task), W3 (the Python a2a-sdk worker, as its own process) and a hostile worker, recording through the real
 * ingest service to Kafka; then what the caller got and what reached the topic.
 */
import { spawn } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { spawnPyAgent, startJsAgent, type AgentProcess, type RunningJsAgent } from "@a2a-ledger/mesh-agents";
import type { Observation } from "@a2a-ledger/schemas";
import { startLedger, type TestLedger } from "@a2a-ledger/worker-guard/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

/** The Python client (clients/python): its venv and its `tests` package of live scripts. */
const root = fileURLToPath(new URL("../../../../clients/python/", import.meta.url));
type Case = Record<string, unknown> & { case: string };
let ledger: TestLedger;
let w1: RunningJsAgent;
let w3: AgentProcess;
let hostile: Server;
let cases: Record<string, Case>;
let observations: Observation[];
let restartedAt = 0;

const listen = (server: Server): Promise<string> =>
  new Promise((resolve) =>
    server.listen(0, "127.0.0.1", () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`)),
  );

/** A worker whose card is fine and whose answers are not: each directive (the message's text) is one way to misbehave. */
async function hostileWorker(): Promise<{ server: Server; url: string }> {
  let base = "";
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const json = (status: number, body: unknown) =>
        res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
      if (req.url === "/.well-known/agent-card.json") {
        return json(200, {
          name: "Hostile",
          description: "answers badly",
          version: "1.0.0",
          supportedInterfaces: [{ url: `${base}/rpc`, protocolBinding: "JSONRPC", protocolVersion: "1.0" }],
          capabilities: { streaming: false },
          defaultInputModes: ["text/plain"],
          defaultOutputModes: ["text/plain"],
          skills: [{ id: "answer", name: "Answer", description: "", tags: [] }],
        });
      }
      if (req.url === "/bad-card/.well-known/agent-card.json")
        return res.writeHead(200, { "content-type": "application/json" }).end("<html>not a card</html>");
      const rpc = JSON.parse(Buffer.concat(chunks).toString("utf8")) as {
        id: unknown;
        method: string;
        params: { message?: { parts?: { text?: string }[] }; id?: string };
      };
      const reply = (result: unknown) => json(200, { jsonrpc: "2.0", id: rpc.id, result });
      if (rpc.method === "GetTask")
        return json(200, { jsonrpc: "2.0", id: rpc.id, error: { code: -32001, message: "Task not found" } });
      switch (rpc.params.message?.parts?.[0]?.text) {
        case "bad-state":
          return reply({ task: { id: "h-1", contextId: "hc", status: { state: "TASK_STATE_DAYDREAMING" } } });
        case "not-json":
          return res.writeHead(200, { "content-type": "application/json" }).end("<html>oops</html>");
        case "empty-result":
          return reply({});
        case "refuse":
          return json(200, {
            jsonrpc: "2.0",
            id: rpc.id,
            error: { code: -32005, message: "Incompatible content types" },
          });
        case "odd-artifacts":
          return reply({
            task: {
              id: "h-2",
              contextId: "hc",
              status: { state: "TASK_STATE_COMPLETED" },
              artifacts: [
                { artifactId: "", parts: [{ text: "no id" }] },
                { artifactId: "h-2-a", parts: [{ text: "y", mediaType: "text/x-unheard-of" }] },
              ],
            },
          });
        case "hang-up":
          return req.socket.destroy();
        default:
          return json(400, { error: "unknown directive" });
      }
    });
  });
  base = await listen(server);
  return { server, url: base };
}

function runLive(env: NodeJS.ProcessEnv): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(`${root}.venv/bin/python`, ["-m", "tests.live_client"], {
      cwd: root,
      env: { ...process.env, ...env, PYTHONUNBUFFERED: "1" },
      stdio: ["pipe", "pipe", "pipe"],
    });
    let out = "";
    let err = "";
    let pending = "";
    child.stdout.on("data", (d: Buffer) => {
      out += d.toString();
      pending += d.toString();
      let nl: number;
      while ((nl = pending.indexOf("\n")) >= 0) {
        const line = pending.slice(0, nl);
        pending = pending.slice(nl + 1);
        if (line.includes('"await": "restart-w1"')) {
          void w1.restart().then(() => {
            restartedAt = Date.now();
            child.stdin.write("restarted\n");
          });
        }
      }
    });
    child.stderr.on("data", (d: Buffer) => (err += d.toString()));
    const timer = setTimeout(() => child.kill("SIGKILL"), 150_000);
    child.on("error", reject);
    child.on("exit", (code) => {
      clearTimeout(timer);
      if (code === 0) resolve(out);
      else reject(new Error(`live_client exited ${code}: ${err.slice(-3000)}\n${out.slice(-2000)}`));
    });
  });
}

beforeAll(async () => {
  ledger = await startLedger("client-py");
  w1 = await startJsAgent({ kind: "w1" });
  w3 = await spawnPyAgent({ db: join(mkdtempSync(join(tmpdir(), "client-py-")), "w3.sqlite") });
  const h = await hostileWorker();
  hostile = h.server;
  const hostileUrl = h.url;
  const dead = createServer();
  const deadUrl = await listen(dead);
  await new Promise((r) => dead.close(r));
  const out = await runLive({
    INGEST_URL: ledger.url,
    W1_URL: w1.url,
    W3_URL: w3.url,
    HOSTILE_URL: hostileUrl,
    DEAD_URL: deadUrl,
  });
  cases = Object.fromEntries(
    out
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as Case)
      .filter((c) => typeof c.case === "string")
      .map((c) => [c.case, c]),
  );
  observations = await ledger.observations(Number(cases["summary"]?.["recorded"]));
}, 240_000);

afterAll(async () => {
  await new Promise((r) => hostile?.close(r));
  await w1?.close();
  await w3?.stop();
  await ledger?.close();
});

const of = (correlationId: string) => observations.filter((o) => o.correlationId === correlationId);
const typesOf = (correlationId: string) => of(correlationId).map((o) => o.type);

describe("the Python client on real workers", () => {
  it("dispatches under the correlation id and answers the worker's task, recording dispatch, state and artifact", () => {
    expect(cases["w3-done"]).toMatchObject({
      kind: "task",
      correlationId: "py-w3-done",
      state: "TASK_STATE_COMPLETED",
      terminal: true,
      mediaTypes: ["text/plain"],
    });
    // GetTask sees the same artifact again: the same fact, so the same eventId (the ledger keeps it once).
    expect(typesOf("py-w3-done")).toEqual([
      "TaskDispatched",
      "TaskStateObserved",
      "ArtifactEmitted",
      "TaskStateObserved",
      "ArtifactEmitted",
    ]);
    const [dispatched, state, artifact, got, again] = of("py-w3-done") as unknown as [
      Record<string, unknown>,
      Record<string, unknown>,
      Record<string, unknown>,
      Record<string, unknown>,
      Record<string, unknown>,
    ];
    expect(dispatched).toMatchObject({
      observer: "orchestrator:py-live",
      workerId: "W3",
      skillId: "answer",
      acceptedOutputModes: ["text/plain"],
      attempt: 1,
      cardHash: cases["w3-done"]!["cardHash"],
    });
    expect(state).toMatchObject({
      serverTaskId: cases["w3-done"]!["taskId"],
      state: "TASK_STATE_COMPLETED",
      via: "SEND_RESPONSE",
    });
    expect(artifact).toMatchObject({
      serverTaskId: cases["w3-done"]!["taskId"],
      parts: [{ kind: "TEXT", mediaType: "text/plain" }],
    });
    expect(got).toMatchObject({ state: "TASK_STATE_COMPLETED", via: "GET" });
    expect(got["eventId"]).not.toBe(state["eventId"]);
    expect(again["eventId"]).toBe(artifact["eventId"]);
  });

  it("records the card it relied on, under card:<worker>", () => {
    const cards = observations.filter((o) => o.type === "AgentCardObserved") as (Observation & {
      workerId: string;
      correlationId: string;
      cacheMaxAgeSeconds: number | null;
    })[];
    expect(cards.map((c) => [c.workerId, c.correlationId])).toEqual([
      ["W3", "card:W3"],
      ["W1", "card:W1"],
      ["W1", "card:W1"],
      ["W-hostile", "card:W-hostile"],
    ]);
    expect(cards[0]!.cacheMaxAgeSeconds).toBe(3600);
  });

  it("resumes a task waiting for input with a follow-up that is not a new dispatch", () => {
    expect(cases["w3-waiting"]).toMatchObject({ state: "TASK_STATE_INPUT_REQUIRED", terminal: false });
    expect(cases["w3-resumed"]).toMatchObject({
      kind: "task",
      taskId: cases["w3-waiting"]!["taskId"],
      state: "TASK_STATE_COMPLETED",
    });
    expect(typesOf("py-w3-input").filter((t) => t === "TaskDispatched")).toHaveLength(1);
  });
});

describe("a task lost by a restarted worker", () => {
  it("is Indeterminate, not a failure, when its last state was not terminal; the TaskNotFound is recorded", () => {
    expect(restartedAt).toBeGreaterThan(0);
    expect(cases["w1-lost"]).toEqual({
      case: "w1-lost",
      kind: "indeterminate",
      correlationId: "py-lost",
      taskId: cases["w1-waiting"]!["taskId"],
      lastState: "TASK_STATE_INPUT_REQUIRED",
      errorCode: "-32001",
    });
    expect(typesOf("py-lost")).toEqual(["TaskDispatched", "TaskStateObserved", "TaskNotFoundObserved"]);
    expect(of("py-lost")[2]).toMatchObject({
      workerId: "W1",
      serverTaskId: cases["w1-waiting"]!["taskId"],
      method: "GetTask",
      errorCode: "-32001",
    });
  });

  it("is Purged when its last state was terminal, UnknownTask when never seen, and Indeterminate on the caller's last state", () => {
    expect(cases["w1-purged"]).toMatchObject({ kind: "purged", lastState: "TASK_STATE_COMPLETED" });
    expect(cases["w1-unknown"]).toMatchObject({ kind: "unknown-task", errorCode: "-32001" });
    expect(cases["w1-known-by-caller"]).toMatchObject({
      kind: "indeterminate",
      lastState: "TASK_STATE_INPUT_REQUIRED",
    });
  });

  it("reads TaskNotFound over HTTP+JSON too", () => {
    expect(cases["w1-rest-unknown"]).toMatchObject({ kind: "unknown-task", errorCode: "404" });
    expect(of("py-rest")).toMatchObject([{ type: "TaskNotFoundObserved", errorCode: "404" }]);
  });
});

describe("a hostile worker", () => {
  it("records a state outside the protocol as UNSPECIFIED with the worker's own spelling, and answers it as a task that is not finished", () => {
    expect(cases["hostile-bad-state"]).toMatchObject({
      error: null,
      outcome: { kind: "task", state: "TASK_STATE_UNSPECIFIED", rawState: "TASK_STATE_DAYDREAMING", terminal: false },
    });
    expect(of("py-hostile-bad-state")).toMatchObject([
      { type: "TaskDispatched" },
      {
        type: "TaskStateObserved",
        serverTaskId: "h-1",
        state: "TASK_STATE_UNSPECIFIED",
        rawState: "TASK_STATE_DAYDREAMING",
      },
    ]);
  });

  it("gets a stable error for an answer that is not A2A, and the dispatch that reached it is recorded", () => {
    for (const d of ["not-json", "empty-result"]) {
      expect(cases[`hostile-${d}`], d).toMatchObject({ error: "A2A_CLIENT_MALFORMED_ANSWER" });
      expect(typesOf(`py-hostile-${d}`), d).toEqual(["TaskDispatched"]);
    }
  });

  it("answers an A2A refusal as Refused, and a hang-up as unreachable with nothing recorded", () => {
    expect(cases["hostile-refuse"]).toMatchObject({
      error: null,
      outcome: { kind: "refused", error: "ContentTypeNotSupportedError" },
    });
    expect(typesOf("py-hostile-refuse")).toEqual(["TaskDispatched"]);
    expect(cases["hostile-hang-up"]).toMatchObject({ error: "A2A_CLIENT_WORKER_UNREACHABLE" });
    expect(of("py-hostile-hang-up")).toEqual([]);
  });

  it("records an artifact in a media type nobody heard of, and leaves out one without an id", () => {
    expect(cases["hostile-odd-artifacts"]).toMatchObject({ outcome: { kind: "task", state: "TASK_STATE_COMPLETED" } });
    expect(of("py-hostile-odd-artifacts").filter((o) => o.type === "ArtifactEmitted")).toMatchObject([
      { artifactId: "h-2-a", parts: [{ kind: "TEXT", mediaType: "text/x-unheard-of", sizeBytes: 1 }] },
    ]);
  });

  it("a TaskNotFound for a task never seen is UnknownTask, and a card that is not JSON is a stable error", () => {
    expect(cases["hostile-get"]).toMatchObject({ outcome: { kind: "unknown-task" } });
    expect(cases["hostile-card"]).toEqual({ case: "hostile-card", error: "A2A_CLIENT_CARD_UNAVAILABLE" });
  });
});

describe("recording failures", () => {
  it("never lose the worker's answer: with ingest unreachable the caller gets the task and the observations wait, counted", () => {
    expect(cases["ingest-down"]).toMatchObject({
      kind: "task",
      state: "TASK_STATE_COMPLETED",
      reachable: false,
      recorded: 0,
    });
    expect(Number(cases["ingest-down"]!["pending"])).toBeGreaterThanOrEqual(4);
    expect(of("py-ingest-down")).toEqual([]);
  });

  it("every observation of the reachable recorder reached the topic, none rejected or dropped", () => {
    expect(cases["summary"]).toMatchObject({ pending: 0, rejected: 0, dropped: 0 });
    expect(observations).toHaveLength(Number(cases["summary"]!["recorded"]));
    // An eventId seen twice is the same fact seen twice (the artifact GetTask showed again), never two facts.
    const byId = new Map<string, Observation[]>();
    for (const o of observations) byId.set(o.eventId, [...(byId.get(o.eventId) ?? []), o]);
    const repeated = [...byId.values()].filter((list) => list.length > 1);
    expect(repeated.map((list) => list[0]!.type)).toEqual(["ArtifactEmitted"]);
    for (const list of repeated)
      expect(new Set(list.map(({ occurredAt: _at, ...fact }) => JSON.stringify(fact))).size).toBe(1);
  });
});
