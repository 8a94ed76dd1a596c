/**
 * A failed idle re-examination recovers: the blocked task's partition has no traffic, its producer is
 * fenced (another producer initialised its transactional id, as a new owner would), and the probe that
 * rescues the task arrives on another partition. The idle re-examination's transaction fails; the
 * instance rejoins its group, restores the partition (rebuilding its blocked set) and re-examines it:
 * one re-dispatch, equal to the replay of the whole log — without any new observation on that partition.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { defaultRuleSet, replay } from "@a2a-ledger/core";
import { correlationPartitions, partitionOf } from "@a2a-ledger/kafka";
import { apart, committed, redispatches, story } from "../test/blocked-story.ts";
import {
  byCorrelation,
  fixture,
  kafka,
  kafkaSuite,
  produce,
  seededPolicy,
  startInProcess,
  waitForGroupAtEnd,
} from "../test/harness.ts";

const { admin, fixtures, running } = kafkaSuite({ beforeAll, afterAll });

describe("an idle re-examination that fails", () => {
  it("is retried after a rejoin: the partition is restored and its blocked correlation re-dispatched once, with no new traffic on it", async () => {
    const ids = apart();
    const { blocked, probe } = story(ids);
    const f = await fixture(admin, "recheck-fails", { A2A_LEDGER_RECONCILER_TRANSACTION_STEP_TIMEOUT_MS: "5000" });
    fixtures.push(f);
    const reconciler = await startInProcess(f);
    running.push(reconciler);
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

    // Another producer initialises the task partition's transactional id: the instance's producer is fenced.
    const taskPartition = partitionOf(ids.task, correlationPartitions);
    const fencing = kafka.producer({
      transactionalId: `${f.groupId}.${f.topics.observations}.${taskPartition}`,
      idempotent: true,
      maxInFlightRequests: 1,
    });
    await fencing.connect();
    await (await fencing.transaction()).abort();
    await fencing.disconnect();
    const abortsBefore = (await reconciler.metrics.aborts.get()).values[0]?.value ?? 0;

    // The probe, on another partition, changes the capability table: the idle task partition re-examines.
    await produce(f.topics.observations, probe);
    await waitForGroupAtEnd(admin, f);
    const after = await committed(f, (ds) => redispatches(ds, ids.task).length > 0);
    const abortsAfter = (await reconciler.metrics.aborts.get()).values[0]?.value ?? 0;
    expect(abortsAfter, "the idle re-examination's transaction failed (its producer was fenced)").toBeGreaterThan(
      abortsBefore,
    );
    expect(redispatches(after, ids.task)).toMatchObject([
      { targetWorkerId: "w3", resumeState: "TASK_STATE_INPUT_REQUIRED", attempt: 2, causeEventIds: ["p3", "lost"] },
    ]);
    const decisionIds = after.map((d) => d.decisionId);
    expect(new Set(decisionIds).size).toBe(decisionIds.length);
    expect(byCorrelation(after)).toEqual(
      byCorrelation(replay([...blocked, ...probe], defaultRuleSet, { policy: seededPolicy() })),
    );
  }, 180_000);
});
