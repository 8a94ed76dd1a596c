/**
 * The dispatcher on the real stack: Kafka, the registry, the ingest service and the reconciler, W1 and W3
 * (the Python a2a-sdk) as processes, each behind a recording proxy process. Commands come from the real
 * reconciler (probes on first contact) or are written onto the commands topic as the reconciler writes them.
 */
import { metricValue } from "@a2a-ledger/env/testing";
import { randomUUID } from "node:crypto";
import { createLogger } from "@a2a-ledger/logging";
import { isType } from "@a2a-ledger/ledger-feed";
import type { Decision, Observation } from "@a2a-ledger/schemas";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Dispatcher } from "../src/dispatcher.ts";
import { Journal } from "../src/journal.ts";
import { createMetrics, type DispatcherMetrics } from "../src/metrics.ts";
import { redispatchMessageId } from "../src/observations.ts";
import { startMesh, type TestMesh } from "./live-mesh.ts";

let mesh: TestMesh;
let dispatcher: Dispatcher;
let metrics: DispatcherMetrics;
const quiet = createLogger("dispatcher", (process.env.TEST_LOG_LEVEL ?? "silent") as "silent");
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function startDispatcher(extra: NodeJS.ProcessEnv = {}): Promise<Dispatcher> {
  metrics = createMetrics();
  const d = new Dispatcher(mesh.config(extra), quiet, metrics);
  await d.start();
  return d;
}

beforeAll(async () => {
  mesh = await startMesh("dispatch", ["W1", "W3"]);
  dispatcher = await startDispatcher();
});
afterAll(async () => {
  await dispatcher?.stop().catch(() => undefined);
  await mesh?.stop();
});

type Of<T extends Observation["type"] | Decision["type"]> = Extract<Observation | Decision, { type: T }>;
const cardThroughProxy = (name: "W1" | "W3") =>
  fetch(`${mesh.proxies.get(name)?.url}/.well-known/agent-card.json`, { headers: { "A2A-Version": "1.0" } });

function redispatch(overrides: Partial<Of<"RedispatchCommanded">> = {}): Of<"RedispatchCommanded"> {
  const id = randomUUID().slice(0, 8);
  return {
    type: "RedispatchCommanded",
    decisionId: `lost-${id}:RedispatchCommanded:0`,
    correlationId: `task-${id}`,
    causeEventIds: [`lost-${id}`],
    rulesVersion: "default/2",
    policyVersion: null,
    decidedAt: Date.now(),
    workerId: "W1",
    targetWorkerId: "W3",
    fromServerTaskId: `w1-task-${id}`,
    skillId: "answer",
    attempt: 2,
    resumeState: "TASK_STATE_INPUT_REQUIRED",
    acceptedOutputModes: ["application/json", "text/plain"],
    candidates: [],
    ...overrides,
  };
}

async function until(check: () => boolean, what: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(100);
  }
}

describe("probes commanded by the reconciler", () => {
  it("first contact with W3 through its proxy makes the dispatcher probe it, and the probe verifies INPUT_REQUIRED", async () => {
    expect((await cardThroughProxy("W3")).status).toBe(200);
    const command = await mesh.feed.waitFor(
      isType("ProbeRequested", (d) => d.workerId === "W3"),
      60_000,
      "ProbeRequested for W3",
    );
    const probe = await mesh.feed.waitFor(
      isType("ProbeCompleted", (o) => o.workerId === "W3" && o.observer === "dispatcher"),
      60_000,
      "ProbeCompleted for W3",
    );
    expect(probe.correlationId).toBe("probe-W3");
    expect(probe.cardHash).toBe(command.cardHash);
    expect(probe.skillId).toBe("answer");
    expect(probe.statesObserved).toEqual(
      expect.arrayContaining(["TASK_STATE_WORKING", "TASK_STATE_COMPLETED", "TASK_STATE_INPUT_REQUIRED"]),
    );
    expect(probe.reobservable).toEqual(
      expect.arrayContaining(["TASK_STATE_WORKING", "TASK_STATE_COMPLETED", "TASK_STATE_INPUT_REQUIRED"]),
    );
    expect(probe.emittedModes).toEqual(["text/plain"]);
    expect(probe.durable).toBeNull();
    expect(probe.parkedCanaries).toEqual([{ serverTaskId: expect.any(String), state: "TASK_STATE_INPUT_REQUIRED" }]);

    // The card as the dispatcher saw it through the proxy, recorded as the worker's own card: the same hash the proxy recorded.
    const seen = mesh.feed.ofType("AgentCardObserved").filter((o) => o.workerId === "W3");
    const byDispatcher = seen.find((o) => o.observer === "dispatcher");
    expect(byDispatcher?.correlationId).toBe("probe-W3");
    expect(byDispatcher?.cardHash).toBe(command.cardHash);
    expect(byDispatcher?.cardUrl).toBe(`${mesh.agents.get("W3")?.url}/.well-known/agent-card.json`);
    expect(new Set(seen.map((o) => o.cardHash))).toEqual(new Set([command.cardHash]));

    // The canaries went through the proxy, which recorded them under the probe's correlation and skill.
    const canaryDispatches = mesh.feed
      .ofType("TaskDispatched")
      .filter((o) => o.correlationId === "probe-W3" && o.observer === "proxy:W3");
    expect(canaryDispatches.map((o) => o.skillId)).toEqual(["answer", "answer"]);

    const verified = await mesh.feed.waitFor(
      isType("CapabilitiesVerified", (d) => d.workerId === "W3"),
      30_000,
      "CapabilitiesVerified for W3",
    );
    expect(verified.skills.find((s) => s.skillId === "answer")?.states).toEqual(
      expect.arrayContaining(["TASK_STATE_INPUT_REQUIRED", "TASK_STATE_COMPLETED"]),
    );
    expect(dispatcher.journal.parkedCanaries().map((c) => [c.workerId, c.serverTaskId])).toEqual([
      ["W3", probe.parkedCanaries[0]?.serverTaskId],
    ]);
  });

  it("a parked canary of W1 answers TaskNotFound after W1 restarts: its durable claim becomes TASK_STORE_NOT_DURABLE", async () => {
    expect((await cardThroughProxy("W1")).status).toBe(200);
    const probe = await mesh.feed.waitFor(
      isType("ProbeCompleted", (o) => o.workerId === "W1" && o.observer === "dispatcher"),
      60_000,
      "ProbeCompleted for W1",
    );
    expect(probe.emittedModes).toEqual(["application/json"]);
    const canary = probe.parkedCanaries[0];
    expect(canary?.state).toBe("TASK_STATE_INPUT_REQUIRED");
    await mesh.feed.waitFor(
      isType("CapabilitiesVerified", (d) => d.workerId === "W1" && d.states.includes("TASK_STATE_INPUT_REQUIRED")),
      30_000,
      "W1 verified with INPUT_REQUIRED",
    );
    // Polled while W1 keeps it: still parked.
    await sleep(1_000);
    expect(dispatcher.journal.parkedCanaries().find((c) => c.workerId === "W1")).toMatchObject({
      serverTaskId: canary?.serverTaskId,
      lastAnswer: "TASK_STATE_INPUT_REQUIRED",
    });

    await mesh.restartW1();
    const lost = await mesh.feed.waitFor(
      isType("TaskNotFoundObserved", (o) => o.serverTaskId === canary?.serverTaskId && o.observer === "dispatcher"),
      30_000,
      "the canary's TaskNotFound",
    );
    expect(lost).toMatchObject({ correlationId: "probe-W1", workerId: "W1", method: "GetTask", errorCode: "-32001" });
    const violation = await mesh.feed.waitFor(
      isType("ContractViolation", (d) => d.kind === "TASK_STORE_NOT_DURABLE"),
      30_000,
      "TASK_STORE_NOT_DURABLE",
    );
    expect(violation).toMatchObject({ workerId: "W1", serverTaskId: canary?.serverTaskId, cardHash: probe.cardHash });
    await mesh.feed.waitFor(
      isType(
        "CapabilitiesVerified",
        (d) => d.workerId === "W1" && d.durable === false && !d.states.includes("TASK_STATE_INPUT_REQUIRED"),
      ),
      30_000,
      "W1's INPUT_REQUIRED revoked",
    );
    expect(dispatcher.journal.canaries().find((c) => c.workerId === "W1")?.status).toBe("lost");
    expect(metricValue(await metrics.registry.metrics(), "a2a_dispatcher_canaries_lost_total", { worker: "W1" })).toBe(
      1,
    );
    // W3 keeps its canary: still parked, still answering.
    expect(dispatcher.journal.parkedCanaries().map((c) => c.workerId)).toEqual(["W3"]);
  });
});

describe("re-dispatch, once per decision", () => {
  it("sends the task through the target's proxy under its correlation and attempt, once, though the command is redelivered, replayed and the dispatcher restarted", async () => {
    const command = redispatch();
    const sendsBefore = metricValue(
      await (await fetch(`${mesh.proxies.get("W3")?.url}/metrics`)).text(),
      "a2a_proxy_requests_total",
      { method: "SendMessage" },
    );
    await mesh.command(command);
    const byDispatcher = await mesh.feed.waitFor(
      isType("TaskDispatched", (o) => o.correlationId === command.correlationId && o.observer === "dispatcher"),
      60_000,
      "the dispatcher's TaskDispatched",
    );
    expect(byDispatcher).toMatchObject({
      workerId: "W3",
      skillId: "answer",
      attempt: 2,
      messageId: redispatchMessageId(command.decisionId),
      acceptedOutputModes: ["application/json", "text/plain"],
    });
    const byProxy = await mesh.feed.waitFor(
      isType("TaskDispatched", (o) => o.correlationId === command.correlationId && o.observer === "proxy:W3"),
      30_000,
      "the proxy's TaskDispatched",
    );
    expect(byProxy).toMatchObject({
      attempt: 2,
      skillId: "answer",
      messageId: byDispatcher.messageId,
      acceptedOutputModes: ["application/json", "text/plain"],
    });
    const waiting = await mesh.feed.waitFor(
      isType(
        "TaskStateObserved",
        (o) =>
          o.correlationId === command.correlationId &&
          o.observer === "proxy:W3" &&
          o.state === "TASK_STATE_INPUT_REQUIRED",
      ),
      30_000,
      "W3 waiting for input",
    );
    expect(byDispatcher.cardHash).toBe(
      mesh.feed.ofType("AgentCardObserved").find((o) => o.workerId === "W3")?.cardHash,
    );

    // Redelivered twice (same decision id): nothing is sent again.
    await mesh.command(command);
    await mesh.command(command);
    await until(() => dispatcher.journal.get(command.decisionId)?.deliveries === 3, "three deliveries");
    // A restart, and a new group that replays the whole commands topic from its beginning.
    await dispatcher.stop();
    dispatcher = await startDispatcher({ A2A_LEDGER_DISPATCHER_GROUP: `replay-${randomUUID().slice(0, 8)}` });
    // The replay reads the command's three records again: six deliveries in all, one dispatch.
    await until(() => dispatcher.journal.get(command.decisionId)?.deliveries === 6, "the replayed deliveries", 60_000);
    await sleep(1_500);

    expect(dispatcher.journal.get(command.decisionId)).toMatchObject({
      status: "done",
      serverTaskIds: [waiting.serverTaskId],
    });
    const tasksOnW3 = new Set(
      mesh.feed
        .ofType("TaskStateObserved")
        .filter((o) => o.correlationId === command.correlationId && o.workerId === "W3")
        .map((o) => o.serverTaskId),
    );
    expect([...tasksOnW3]).toEqual([waiting.serverTaskId]);
    const sendsAfter = metricValue(
      await (await fetch(`${mesh.proxies.get("W3")?.url}/metrics`)).text(),
      "a2a_proxy_requests_total",
      { method: "SendMessage" },
    );
    expect(sendsAfter - sendsBefore).toBe(1);
    expect(
      metricValue(await metrics.registry.metrics(), "a2a_dispatcher_commands_total", {
        kind: "RedispatchCommanded",
        outcome: "duplicate",
      }),
    ).toBeGreaterThanOrEqual(1);
  });

  it("a crash while the message was in flight: the redelivered command is abandoned with an alert, never sent twice", async () => {
    const command = redispatch();
    const sendsBefore = metricValue(
      await (await fetch(`${mesh.proxies.get("W3")?.url}/metrics`)).text(),
      "a2a_proxy_requests_total",
      { method: "SendMessage" },
    );
    // What a crash between "sending" and the worker's answer leaves in the journal.
    const other = new Journal(mesh.config().journalPath);
    other.begin(
      {
        decisionId: command.decisionId,
        kind: "RedispatchCommanded",
        correlationId: command.correlationId,
        workerId: "W3",
      },
      "crashed",
    );
    other.mark(command.decisionId, "sending");
    other.close();
    await mesh.command(command);
    await until(() => dispatcher.journal.get(command.decisionId)?.status === "abandoned", "the abandoned command");
    expect(dispatcher.journal.get(command.decisionId)?.detail).toMatch(/^DISPATCHER_OUTCOME_UNKNOWN: /);
    expect(
      metricValue(await metrics.registry.metrics(), "a2a_dispatcher_alerts_total", {
        code: "DISPATCHER_OUTCOME_UNKNOWN",
      }),
    ).toBe(1);
    await sleep(1_000);
    expect(
      metricValue(await (await fetch(`${mesh.proxies.get("W3")?.url}/metrics`)).text(), "a2a_proxy_requests_total", {
        method: "SendMessage",
      }),
    ).toBe(sendsBefore);
    expect(mesh.feed.records.filter((r) => r.correlationId === command.correlationId)).toEqual([]);
  });

  it("a crash after the answer, before the ledger acknowledged: the kept observations are recorded at the next start, and the command is not sent again", async () => {
    const command = redispatch({ attempt: 3 });
    await dispatcher.stop();
    const kept: Of<"TaskDispatched"> = {
      type: "TaskDispatched",
      eventId: `dispatcher:${command.decisionId}:dispatch`,
      principal: null,
      correlationId: command.correlationId,
      occurredAt: Date.now(),
      observer: "dispatcher",
      workerId: "W3",
      skillId: "answer",
      messageId: redispatchMessageId(command.decisionId),
      acceptedOutputModes: command.acceptedOutputModes,
      cardHash: null,
      cardFetchedAt: null,
      attempt: 3,
    };
    const other = new Journal(mesh.config().journalPath);
    other.begin(
      {
        decisionId: command.decisionId,
        kind: "RedispatchCommanded",
        correlationId: command.correlationId,
        workerId: "W3",
      },
      "crashed",
    );
    other.mark(command.decisionId, "dispatched", { observations: [kept as never], serverTaskIds: ["t-kept"] });
    other.close();
    dispatcher = await startDispatcher();
    const recorded = await mesh.feed.waitFor(
      isType("TaskDispatched", (o) => o.correlationId === command.correlationId),
      30_000,
      "the kept TaskDispatched",
    );
    expect(recorded).toMatchObject({ observer: "dispatcher", attempt: 3, eventId: kept.eventId });
    expect(dispatcher.journal.get(command.decisionId)?.status).toBe("done");
    await mesh.command(command);
    await until(() => dispatcher.journal.get(command.decisionId)?.deliveries === 2, "the redelivery");
    await sleep(1_000);
    expect(
      mesh.feed.records
        .filter((r) => r.correlationId === command.correlationId)
        .map((r) => `${r.type}/${"observer" in r ? r.observer : ""}`),
    ).toEqual(["TaskDispatched/dispatcher"]);
  });
});
