/**
 * A probe result posted before the card it names, under a correlation on another partition (a prober
 * other than the dispatcher, which records its card under the probe's correlation): the reconciler
 * holds the probe's partition at the probe until the card's snapshot reaches the capability table, then
 * folds it — the probe verifies the card, as a replay of the two in the order they occurred decides.
 * Without the wait it verified nothing, silently.
 */
import { agentCard, all, events, lifecycle, skills } from "@a2a-ledger/core/testing/builders";
import { cardHash, defaultRuleSet, replay } from "@a2a-ledger/core";
import { partitionOf, partitionsFromEnv } from "@a2a-ledger/kafka";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  byCorrelation,
  fixture,
  kafkaSuite,
  produce,
  readDecisions,
  seededPolicy,
  startInProcess,
  waitForGroupAtEnd,
} from "../test/harness.ts";

const { admin, fixtures, running } = kafkaSuite({ beforeAll, afterAll });
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("a probe result that arrives before its card", () => {
  it("waits on its partition for the card, then verifies it, as the replay in event order decides", async () => {
    const t = Date.now();
    const e = events("cwk-");
    const card = agentCard({ org: "Org-w1", states: lifecycle, skills });
    const fetched = e.card("w1", card, { at: t, corr: "card:w1", observer: "orchestrator" });
    const probe = e.probe("w1", cardHash(card), {
      at: t + 2_000,
      corr: "prober:w1",
      states: all,
      modes: ["text/plain"],
    });
    const f = await fixture(admin, "card-wait");
    fixtures.push(f);
    const partitions = partitionsFromEnv(f.env);
    expect(partitionOf("card:w1", partitions)).not.toBe(partitionOf("prober:w1", partitions));
    const expected = replay([fetched, probe], defaultRuleSet, { policy: seededPolicy() });
    expect(expected).toContainEqual(
      expect.objectContaining({ type: "CapabilitiesVerified", correlationId: "prober:w1" }),
    );

    running.push(await startInProcess(f));
    await produce(f.topics.observations, [probe]);
    // The probe waits: nothing is decided while its card is unknown.
    await sleep(3_000);
    expect(await readDecisions(f.topics.decisions)).toEqual([]);
    await produce(f.topics.observations, [fetched]);
    await waitForGroupAtEnd(admin, f);

    const decisions = await readDecisions(f.topics.decisions);
    expect(byCorrelation(decisions)).toEqual(byCorrelation(expected));
  }, 120_000);
});
