/**
 * The client against the live mesh pieces: W1 (@a2a-js/sdk, in-memory task store) started as the mesh
 * starts it, the real ingest service over the shared Kafka cluster, and the observations read back from
 * the topic. W1 restarts and loses its tasks: a task it left waiting for input comes back
 * indeterminate, a completed one purged, one never seen unknown.
 */
import { randomUUID } from "node:crypto";
import { startJsAgent, type RunningJsAgent } from "@a2a-ledger/mesh-agents";
import type { Observation } from "@a2a-ledger/schemas";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { A2AClientError, LedgerA2AClient, ObservationRecorder, correlationMetadataKey } from "@a2a-ledger/a2a-client";
import { ledgerTopic, type Ingest, type LedgerTopic } from "./ledger.ts";

let topic: LedgerTopic;
let ingest: Ingest;
let w1: RunningJsAgent;

beforeAll(async () => {
  topic = await ledgerTopic("live");
  ingest = await topic.startIngest();
  w1 = await startJsAgent({ kind: "w1" });
});
afterAll(async () => {
  await w1?.close();
  await ingest?.stop();
  await topic?.remove();
});

type Of<T extends Observation["type"]> = Extract<Observation, { type: T }>;
const ofType = <T extends Observation["type"]>(all: Observation[], type: T): Of<T>[] =>
  all.filter((o): o is Of<T> => o.type === type);

describe("an orchestrator's client on W1, recording straight to ingest", () => {
  it("records the card, the dispatch, states, artifacts and TaskNotFound, and answers a lost waiting task as indeterminate", async () => {
    const run = randomUUID().slice(0, 8);
    const recorder = ObservationRecorder.toIngest(ingest.url);
    const client = await LedgerA2AClient.connect({
      workerId: `w1-${run}`,
      url: w1.url,
      observer: "orchestrator:test",
      recorder,
    });
    const lost = `lost-${run}`;
    const done = `done-${run}`;

    // A task that waits for input, and one that completes with an artifact.
    const waiting = await client.dispatch({
      correlationId: lost,
      text: "need-input draft the report",
      skillId: "answer",
      acceptedOutputModes: ["application/json"],
      messageId: `m-lost-${run}`,
    });
    expect(waiting.kind).toBe("task");
    if (waiting.kind !== "task") return;
    expect(waiting.state).toBe("TASK_STATE_INPUT_REQUIRED");
    // The correlation travelled in the message metadata: W1 keeps the message in the task's history.
    expect(waiting.task.history.some((m) => m.metadata?.[correlationMetadataKey] === lost)).toBe(true);
    const finished = await client.dispatch({
      correlationId: done,
      text: "what is a ledger?",
      skillId: "answer",
      acceptedOutputModes: ["application/json"],
      attempt: 2,
    });
    if (finished.kind !== "task") throw new Error(`expected a task, got ${finished.kind}`);
    expect(finished.state).toBe("TASK_STATE_COMPLETED");
    const polled = await client.getTask({ correlationId: lost, taskId: waiting.task.id });
    expect(polled).toMatchObject({ kind: "task", state: "TASK_STATE_INPUT_REQUIRED" });

    // W1 restarts: its in-memory store is gone.
    await w1.restart();
    const afterRestart = await client.getTask({ correlationId: lost, taskId: waiting.task.id });
    expect(afterRestart).toEqual({
      kind: "indeterminate",
      correlationId: lost,
      workerId: `w1-${run}`,
      serverTaskId: waiting.task.id,
      lastState: "TASK_STATE_INPUT_REQUIRED",
      errorCode: "-32001",
    });
    const purged = await client.getTask({ correlationId: done, taskId: finished.task.id });
    expect(purged).toMatchObject({ kind: "purged", lastState: "TASK_STATE_COMPLETED" });
    const never = await client.getTask({ correlationId: `never-${run}`, taskId: "no-such-task" });
    expect(never.kind).toBe("unknown-task");
    // What a restarted orchestrator remembered counts too.
    const remembered = await client.getTask({
      correlationId: `kept-${run}`,
      taskId: "kept-task",
      lastKnownState: "TASK_STATE_WORKING",
    });
    expect(remembered).toMatchObject({ kind: "indeterminate", lastState: "TASK_STATE_WORKING" });

    const stats = await recorder.close(30_000);
    expect(stats).toMatchObject({ pending: 0, rejected: 0, dropped: 0 });
    // card + (dispatch, state, …) + … : read everything recorded and look at it.
    const all = await topic.observations(stats.recorded);
    expect(all).toHaveLength(stats.recorded);
    expect(all.every((o) => o.observer === "orchestrator:test" && o.workerId === `w1-${run}`)).toBe(true);

    const [card] = ofType(all, "AgentCardObserved");
    expect(card?.correlationId).toBe(`card:w1-${run}`);
    expect(card?.cardHash).toBe(client.card.hash);

    // Records of different correlations land on different partitions: order them by attempt.
    const dispatches = ofType(all, "TaskDispatched").sort((a, b) => a.attempt - b.attempt);
    expect(dispatches.map((d) => [d.correlationId, d.attempt, d.skillId, d.cardHash])).toEqual([
      [lost, 1, "answer", client.card.hash],
      [done, 2, "answer", client.card.hash],
    ]);
    expect(dispatches[0]?.messageId).toBe(`m-lost-${run}`);
    expect(dispatches[0]?.acceptedOutputModes).toEqual(["application/json"]);

    const states = ofType(all, "TaskStateObserved").map((s) => [s.correlationId, s.serverTaskId, s.state, s.via]);
    expect(states).toContainEqual([lost, waiting.task.id, "TASK_STATE_INPUT_REQUIRED", "SEND_RESPONSE"]);
    expect(states).toContainEqual([lost, waiting.task.id, "TASK_STATE_INPUT_REQUIRED", "GET"]);
    expect(states).toContainEqual([done, finished.task.id, "TASK_STATE_COMPLETED", "SEND_RESPONSE"]);

    const artifacts = ofType(all, "ArtifactEmitted").filter((a) => a.correlationId === done);
    expect(artifacts.length).toBeGreaterThan(0);
    expect(artifacts.flatMap((a) => a.parts.map((p) => p.mediaType))).toContain("application/json");

    const notFound = ofType(all, "TaskNotFoundObserved").map((n) => [
      n.correlationId,
      n.serverTaskId,
      n.method,
      n.errorCode,
    ]);
    expect(notFound).toEqual(
      expect.arrayContaining([
        [lost, waiting.task.id, "GetTask", "-32001"],
        [done, finished.task.id, "GetTask", "-32001"],
        [`never-${run}`, "no-such-task", "GetTask", "-32001"],
      ]),
    );
  });

  it("gives the worker's answer at once while ingest is down, and records it once ingest is back", async () => {
    const run = randomUUID().slice(0, 8);
    // A port nothing listens on yet: ingest starts there later.
    const probe = await topic.startIngest();
    const port = Number(new URL(probe.url).port);
    await probe.stop();
    const problems: string[] = [];
    const recorder = ObservationRecorder.toIngest(`http://127.0.0.1:${port}`, {
      retryInitialMs: 100,
      retryMaxMs: 500,
      ingest: { maxRetries: 0, timeoutMs: 2_000 },
      onProblem: (p) => problems.push(p.kind),
    });
    const client = await LedgerA2AClient.connect({
      workerId: `w1-${run}`,
      url: w1.url,
      observer: "orchestrator:outage",
      recorder,
    });
    const started = Date.now();
    const answer = await client.dispatch({
      correlationId: `outage-${run}`,
      text: "what is a ledger?",
      skillId: "answer",
      acceptedOutputModes: [],
    });
    expect(answer).toMatchObject({ kind: "task", state: "TASK_STATE_COMPLETED" });
    expect(Date.now() - started).toBeLessThan(5_000);
    const during = await recorder.flush(1_500);
    expect(during.pending).toBeGreaterThanOrEqual(3);
    expect(during.ingestReachable).toBe(false);
    expect(problems).toContain("unavailable");

    const back = await topic.startIngest(port);
    try {
      const after = await recorder.close(30_000);
      expect(after).toMatchObject({ pending: 0, rejected: 0, dropped: 0, ingestReachable: true });
      const mine = (await topic.everything()).filter((o) => o.observer === "orchestrator:outage");
      expect([...new Set(mine.map((o) => o.type))].sort()).toEqual([
        "AgentCardObserved",
        "ArtifactEmitted",
        "TaskDispatched",
        "TaskStateObserved",
      ]);
      expect(mine).toHaveLength(after.recorded);
      expect(mine.filter((o) => o.type === "TaskDispatched")).toHaveLength(1);
    } finally {
      await back.stop();
    }
  });

  it("answers a worker that went away with A2A_CLIENT_WORKER_UNREACHABLE and records no dispatch it cannot know arrived", async () => {
    const run = randomUUID().slice(0, 8);
    const w2 = await startJsAgent({ kind: "w2" });
    const recorder = ObservationRecorder.toIngest(ingest.url);
    const client = await LedgerA2AClient.connect({
      workerId: `w2-${run}`,
      url: w2.url,
      observer: "orchestrator:gone",
      recorder,
      timeoutMs: 5_000,
    });
    await w2.close();
    const e = await client
      .dispatch({ correlationId: `gone-${run}`, text: "hello", acceptedOutputModes: [] })
      .catch((err: unknown) => err);
    expect(e).toBeInstanceOf(A2AClientError);
    expect((e as A2AClientError).code).toBe("A2A_CLIENT_WORKER_UNREACHABLE");
    const unreachableCard = await LedgerA2AClient.connect({
      workerId: "nobody",
      url: w2.url,
      observer: "orchestrator:gone",
      recorder,
    }).catch((err: unknown) => err);
    expect((unreachableCard as A2AClientError).code).toBe("A2A_CLIENT_CARD_UNAVAILABLE");
    const stats = await recorder.close(30_000);
    expect(stats).toMatchObject({ pending: 0, recorded: 1 });
    const mine = (await topic.everything()).filter((o) => o.observer === "orchestrator:gone");
    expect(mine.map((o) => o.type)).toEqual(["AgentCardObserved"]);
  });
});
