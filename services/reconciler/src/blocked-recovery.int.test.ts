/**
 * Blocked correlations recover on Kafka: a task lost where no worker verifies its interrupted state is
 * blocked; a probe of a new worker — on another partition, processed by a reconciler restarted in
 * between — makes that worker eligible, and the correlation gets its RedispatchCommanded exactly once,
 * equal to what the replay of the whole log decides. The same holds when the loss and the probe race.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { defaultRuleSet, replay } from "@a2a-ledger/core";
import type { Observation } from "@a2a-ledger/schemas";
import { apart, committed, redispatches, story } from "../test/blocked-story.ts";
import {
  byCorrelation,
  seededPolicy,
  kafkaSuite,
  fixture,
  produce,
  startInProcess,
  waitForGroupAtEnd,
} from "../test/harness.ts";

const { admin, fixtures, running } = kafkaSuite({ beforeAll, afterAll });

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
    // The loss in input-required is evidence against w1 (default/4 revokes the state: CapabilitiesVerified).
    expect(before.filter((d) => d.correlationId === ids.task).map((d) => d.type)).toEqual([
      "ContractViolation",
      "CapabilitiesVerified",
      "TaskIndeterminate",
      "ReconciliationBlocked",
    ]);
    await first.stop();

    const second = await startInProcess(f);
    running.push(second);
    await produce(f.topics.observations, probe);
    await waitForGroupAtEnd(admin, f);
    const expected = replay([...blocked, ...probe], defaultRuleSet, { policy: seededPolicy() });
    const after = await committed(f, (ds) => redispatches(ds, ids.task).length > 0);
    expect(redispatches(after, ids.task)).toMatchObject([
      { targetWorkerId: "w3", resumeState: "TASK_STATE_INPUT_REQUIRED", attempt: 2, causeEventIds: ["p3", "lost"] },
    ]);
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
    expect(redispatches(decisions, ids.task)).toMatchObject([
      { targetWorkerId: "w3", resumeState: "TASK_STATE_INPUT_REQUIRED" },
    ]);
    // Whichever was processed first, the outcome is what a replay in that order decides: the same
    // decisions by id, the blocked alert listing the candidates the table knew at the time.
    const lossFirst = byCorrelation(replay([...setup, loss, ...probe], defaultRuleSet, { policy: seededPolicy() }));
    const probeFirst = byCorrelation(replay([...setup, ...probe, loss], defaultRuleSet, { policy: seededPolicy() }));
    expect([lossFirst, probeFirst]).toContainEqual(byCorrelation(decisions));
  }, 180_000);
});
