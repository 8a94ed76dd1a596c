/**
 * A correlation that blocks and the probe that rescues it, on two partitions: a task lost where no
 * worker verifies its interrupted state is blocked until a probe of a new worker makes it eligible.
 */
import { cardHash, lifecycleExtensionUri } from "@a2a-ledger/core";
import { correlationPartitions, partitionOf } from "@a2a-ledger/kafka";
import type { Decision } from "@a2a-ledger/schemas";
import { type Fixture, parseLines, readDecisions } from "./harness.ts";

const card = (org: string, taskStore: string) => ({
  name: org,
  provider: { organization: org },
  capabilities: {
    extensions: [
      {
        uri: lifecycleExtensionUri,
        params: { states: ["submitted", "working", "input-required", "completed"], taskStore },
      },
    ],
  },
  defaultOutputModes: ["text/plain"],
  skills: [{ id: "summarize", outputModes: ["text/plain"] }],
});
const w1 = card("One", "ephemeral");
const w3 = card("Three", "durable");
const interrupted = ["TASK_STATE_SUBMITTED", "TASK_STATE_WORKING", "TASK_STATE_INPUT_REQUIRED", "TASK_STATE_COMPLETED"];

/** Correlation ids on different partitions, so recovery crosses partitions. */
export function apart(): { task: string; probe: string } {
  const task = "blocked-task";
  for (let i = 0; ; i++) {
    const probe = `probe-w3-${i}`;
    if (partitionOf(probe, correlationPartitions) !== partitionOf(task, correlationPartitions)) return { task, probe };
  }
}

export function story(ids: { task: string; probe: string }) {
  const line = (o: Record<string, unknown>) => JSON.stringify(o);
  const blocked = parseLines([
    line({
      type: "AgentCardObserved",
      eventId: "c1",
      correlationId: "probe-w1",
      occurredAt: 1_000,
      observer: "dispatcher",
      workerId: "w1",
      cardUrl: "http://w1/card",
      card: w1,
    }),
    line({
      type: "ProbeCompleted",
      eventId: "p1",
      correlationId: "probe-w1",
      occurredAt: 1_100,
      observer: "dispatcher",
      workerId: "w1",
      cardHash: cardHash(w1),
      skillId: "summarize",
      statesObserved: interrupted,
      reobservable: interrupted.filter((s) => s !== "TASK_STATE_INPUT_REQUIRED"),
      emittedModes: ["text/plain"],
    }),
    line({
      type: "TaskDispatched",
      eventId: "d1",
      correlationId: ids.task,
      occurredAt: 2_000,
      observer: "orchestrator",
      workerId: "w1",
      skillId: "summarize",
      messageId: "m1",
      acceptedOutputModes: ["text/plain"],
    }),
    line({
      type: "TaskStateObserved",
      eventId: "s1",
      correlationId: ids.task,
      occurredAt: 2_100,
      observer: "proxy",
      workerId: "w1",
      serverTaskId: "t1",
      state: "input-required",
      via: "stream",
    }),
    line({
      type: "TaskNotFoundObserved",
      eventId: "lost",
      correlationId: ids.task,
      occurredAt: 3_000,
      observer: "orchestrator",
      workerId: "w1",
      serverTaskId: "t1",
      method: "GetTask",
      errorCode: "-32001",
    }),
  ]);
  const probe = parseLines([
    line({
      type: "AgentCardObserved",
      eventId: "c3",
      correlationId: ids.probe,
      occurredAt: 4_000,
      observer: "dispatcher",
      workerId: "w3",
      cardUrl: "http://w3/card",
      card: w3,
    }),
    line({
      type: "ProbeCompleted",
      eventId: "p3",
      correlationId: ids.probe,
      occurredAt: 4_100,
      observer: "dispatcher",
      workerId: "w3",
      cardHash: cardHash(w3),
      skillId: "summarize",
      statesObserved: interrupted,
      reobservable: interrupted,
      emittedModes: ["text/plain"],
      durable: true,
    }),
  ]);
  return { blocked, probe };
}

export const redispatches = (ds: readonly Decision[], correlationId: string) =>
  ds.filter((d) => d.type === "RedispatchCommanded" && d.correlationId === correlationId);

/** Every committed decision once `until` holds (or a minute passed): each read runs to the topic's end. */
export async function committed(f: Fixture, until: (ds: Decision[]) => boolean): Promise<Decision[]> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const ds = await readDecisions(f.topics.decisions);
    if (until(ds) || Date.now() > deadline) return ds;
    await new Promise((r) => setTimeout(r, 250));
  }
}
