/**
 * Blocked correlations recover on Kafka: a task lost where no worker verifies its interrupted state is
 * blocked; a probe of a new worker — on another partition, processed by a reconciler restarted in
 * between — makes that worker eligible, and the correlation gets its RedispatchCommanded exactly once,
 * equal to what the replay of the whole log decides. The same holds when the loss and the probe race.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cardHash, defaultRuleSet, lifecycleExtensionUri, replay } from "@a2a-ledger/core";
import { correlationPartitions, partitionOf } from "@a2a-ledger/kafka";
import type { Decision, Observation } from "@a2a-ledger/schemas";
import { byCorrelation, seededPolicy, kafkaSuite, type Fixture, fixture, parseLines, produce, readDecisions, startInProcess, waitForGroupAtEnd } from "../test/harness.ts";

const { admin, fixtures, running } = kafkaSuite({ beforeAll, afterAll });

const card = (org: string, taskStore: string) => ({
  name: org,
  provider: { organization: org },
  capabilities: { extensions: [{ uri: lifecycleExtensionUri, params: { states: ["submitted", "working", "input-required", "completed"], taskStore } }] },
  defaultOutputModes: ["text/plain"],
  skills: [{ id: "summarize", outputModes: ["text/plain"] }],
});
const w1 = card("One", "ephemeral");
const w3 = card("Three", "durable");
const interrupted = ["TASK_STATE_SUBMITTED", "TASK_STATE_WORKING", "TASK_STATE_INPUT_REQUIRED", "TASK_STATE_COMPLETED"];

/** Correlation ids on different partitions, so recovery crosses partitions. */
function apart(): { task: string; probe: string } {
  const task = "blocked-task";
  for (let i = 0; ; i++) {
    const probe = `probe-w3-${i}`;
    if (partitionOf(probe, correlationPartitions) !== partitionOf(task, correlationPartitions)) return { task, probe };
  }
}

function story(ids: { task: string; probe: string }) {
  const line = (o: Record<string, unknown>) => JSON.stringify(o);
  const blocked = parseLines([
    line({ type: "AgentCardObserved", eventId: "c1", correlationId: "probe-w1", occurredAt: 1_000, observer: "dispatcher", workerId: "w1", cardUrl: "http://w1/card", card: w1 }),
    line({ type: "ProbeCompleted", eventId: "p1", correlationId: "probe-w1", occurredAt: 1_100, observer: "dispatcher", workerId: "w1", cardHash: cardHash(w1), skillId: "summarize", statesObserved: interrupted, reobservable: interrupted.filter((s) => s !== "TASK_STATE_INPUT_REQUIRED"), emittedModes: ["text/plain"] }),
    line({ type: "TaskDispatched", eventId: "d1", correlationId: ids.task, occurredAt: 2_000, observer: "orchestrator", workerId: "w1", skillId: "summarize", messageId: "m1", acceptedOutputModes: ["text/plain"] }),
    line({ type: "TaskStateObserved", eventId: "s1", correlationId: ids.task, occurredAt: 2_100, observer: "proxy", workerId: "w1", serverTaskId: "t1", state: "input-required", via: "stream" }),
    line({ type: "TaskNotFoundObserved", eventId: "lost", correlationId: ids.task, occurredAt: 3_000, observer: "orchestrator", workerId: "w1", serverTaskId: "t1", method: "GetTask", errorCode: "-32001" }),
  ]);
  const probe = parseLines([
    line({ type: "AgentCardObserved", eventId: "c3", correlationId: ids.probe, occurredAt: 4_000, observer: "dispatcher", workerId: "w3", cardUrl: "http://w3/card", card: w3 }),
    line({ type: "ProbeCompleted", eventId: "p3", correlationId: ids.probe, occurredAt: 4_100, observer: "dispatcher", workerId: "w3", cardHash: cardHash(w3), skillId: "summarize", statesObserved: interrupted, reobservable: interrupted, emittedModes: ["text/plain"], durable: true }),
  ]);
  return { blocked, probe };
}

const redispatches = (ds: readonly Decision[], correlationId: string) => ds.filter((d) => d.type === "RedispatchCommanded" && d.correlationId === correlationId);

/** Every committed decision once `until` holds (or a minute passed): each read runs to the topic's end. */
async function committed(f: Fixture, until: (ds: Decision[]) => boolean): Promise<Decision[]> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const ds = await readDecisions(f.topics.decisions);
    if (until(ds) || Date.now() > deadline) return ds;
    await new Promise((r) => setTimeout(r, 250));
  }
}

describe("blocked correlations recover on Kafka", () => {
  it("re-dispatches a blocked correlation once a probe on another partition verifies a worker, across a restart", async () => {
    const ids = apart();
    const { blocked, probe } = story(ids);
    const f = await fixture(admin, "recover");
    fixtures.push(f);
    const first = await startInProcess(f);
    // w1's probe is committed before its task runs (probes precede dispatches), then the task is lost.
    await produce(f.topics.observations, blocked.slice(0, 2));
    await waitForGroupAtEnd(admin, f);
    await produce(f.topics.observations, blocked.slice(2));
    await waitForGroupAtEnd(admin, f);
    const before = await committed(f, (ds) => ds.some((d) => d.type === "ReconciliationBlocked"));
    expect(before.filter((d) => d.correlationId === ids.task).map((d) => d.type)).toEqual(["ContractViolation", "TaskIndeterminate", "ReconciliationBlocked"]);
    await first.stop();

    const second = await startInProcess(f);
    running.push(second);
    await produce(f.topics.observations, probe);
    await waitForGroupAtEnd(admin, f);
    const expected = replay([...blocked, ...probe], defaultRuleSet, { policy: seededPolicy() });
    const after = await committed(f, (ds) => redispatches(ds, ids.task).length > 0);
    expect(redispatches(after, ids.task)).toMatchObject([{ targetWorkerId: "w3", resumeState: "TASK_STATE_INPUT_REQUIRED", attempt: 2, causeEventIds: ["p3", "lost"] }]);
    const idsSeen = after.map((d) => d.decisionId);
    expect(new Set(idsSeen).size).toBe(idsSeen.length);
    expect(byCorrelation(after)).toEqual(byCorrelation(expected));
  }, 180_000);

  it("closes the cross-partition race: a loss and its rescuing probe processed at once still end in one re-dispatch", async () => {
    const ids = apart();
    const { blocked, probe } = story(ids);
    const f = await fixture(admin, "race");
    fixtures.push(f);
    const reconciler = await startInProcess(f);
    running.push(reconciler);
    const [setup, loss] = [blocked.slice(0, -1), blocked[blocked.length - 1] as Observation];
    await produce(f.topics.observations, setup.slice(0, 2));
    await waitForGroupAtEnd(admin, f);
    await produce(f.topics.observations, setup.slice(2));
    await waitForGroupAtEnd(admin, f);
    // The loss (on the task's partition) and the probe (on another) arrive in one produce call.
    await produce(f.topics.observations, [loss, ...probe]);
    await waitForGroupAtEnd(admin, f);
    const decisions = await committed(f, (ds) => redispatches(ds, ids.task).length > 0);
    expect(redispatches(decisions, ids.task)).toMatchObject([{ targetWorkerId: "w3", resumeState: "TASK_STATE_INPUT_REQUIRED" }]);
    // Whichever was processed first, the outcome is what a replay in that order decides: the same
    // decisions by id, the blocked alert listing the candidates the table knew at the time.
    const lossFirst = byCorrelation(replay([...setup, loss, ...probe], defaultRuleSet, { policy: seededPolicy() }));
    const probeFirst = byCorrelation(replay([...setup, ...probe, loss], defaultRuleSet, { policy: seededPolicy() }));
    expect([lossFirst, probeFirst]).toContainEqual(byCorrelation(decisions));
  }, 180_000);
});
