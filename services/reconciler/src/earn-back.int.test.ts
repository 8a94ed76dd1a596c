/**
 * The reconciler with A2A_LEDGER_RULES=default/4 on Kafka, judging by a trust policy recorded with a
 * re-probe period of 1 s and a canary bound of 5 s: w1 loses a task it left in input-required (its
 * interrupted states are revoked), its card fetched again a period later is probed again, the canary that
 * probe parked is re-observed past the bound (w1 earns its states back), and a task w3 then loses in
 * input-required goes to w1. Every step's observations go in after the previous step's decisions, as
 * they would arrive from a mesh, and live decides what a replay with the same recorded policy decides.
 */
import { all, agentCard, events, lifecycle, probed, skills } from "@a2a-ledger/core/testing/builders";
import { cardHash, defaultRuleSetV3, defaultRuleSetV4, replay } from "@a2a-ledger/core";
import type { Decision, Observation } from "@a2a-ledger/schemas";
import { trustPolicy } from "@a2a-ledger/schemas/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  byCorrelation,
  fixture,
  kafkaSuite,
  produce,
  readDecisions,
  recordPolicy,
  startInProcess,
  waitForGroupAtEnd,
} from "../test/harness.ts";

const { admin, fixtures, running } = kafkaSuite({ beforeAll, afterAll });

describe("the reconciler with A2A_LEDGER_RULES=default/4: a revocation earned back", () => {
  it("re-probes a revoked card on the recorded schedule, takes a canary that outlived the bound, and re-dispatches to the worker again, as the replay does", async () => {
    const t = Date.now();
    const policy = trustPolicy({
      setAt: t,
      reason: "earn-back in seconds",
      reprobeAfterMs: 1_000,
      canaryOutlivesMs: 5_000,
    });
    const e = events("eb-");
    const card = agentCard({ org: "Org-w1", states: lifecycle, skills });
    const steps: Observation[][] = [
      probed(e, { w1: { states: all }, w3: { states: all } }, t),
      [
        e.dispatch("t", "w1", { at: t + 100 }),
        e.state("t", "w1", "a1", "input-required", { at: t + 110 }),
        e.notFound("t", "w1", "a1", { at: t + 120 }),
      ],
      [e.card("w1", card, { at: t + 1_200 })],
      [
        e.probe("w1", cardHash(card), {
          at: t + 1_300,
          states: all,
          modes: ["text/plain"],
          canaries: [{ serverTaskId: "c1", state: "input-required" }],
        }),
        e.dispatch("u", "w3", { at: t + 6_000 }),
        e.state("u", "w3", "b1", "input-required", { at: t + 6_100 }),
      ],
      [e.state("probe-w1", "w1", "c1", "input-required", { at: t + 6_400 })],
      [e.notFound("u", "w3", "b1", { at: t + 6_500 })],
    ];
    const log = steps.flat();
    const recorded = { policy: { versions: [policy] } };
    const expected = replay(log, defaultRuleSetV4, recorded);
    /** The decisions of a type in the order of their causes (partitions keep no order between them). */
    const of = (decisions: readonly Decision[], type: Decision["type"]) =>
      decisions.filter((d) => d.type === type).sort((a, b) => a.decidedAt - b.decidedAt);
    /** Where each re-dispatch went (t, lost on w1, goes to w3 under both versions). */
    const targets = (decisions: readonly Decision[]) =>
      of(decisions, "RedispatchCommanded").map(
        (d) => d.type === "RedispatchCommanded" && [d.correlationId, d.targetWorkerId],
      );
    // What the steps are for: default/3 neither re-probes nor earns back, and blocks u.
    const v3 = replay(log, defaultRuleSetV3, recorded);
    expect(targets(v3)).toEqual([["t", "w3"]]);
    const reprobes = (decisions: readonly Decision[]) =>
      of(decisions, "ProbeRequested").filter((d) => d.type === "ProbeRequested" && d.reason === "revoked");
    expect(reprobes(v3)).toEqual([]);
    expect(reprobes(expected)).toMatchObject([{ workerId: "w1", decidedAt: t + 1_200 }]);
    expect(targets(expected)).toEqual([
      ["t", "w3"],
      ["u", "w1"],
    ]);

    const f = await fixture(admin, "earn-back");
    fixtures.push(f);
    await recordPolicy(f.topics.policy, policy);
    running.push(await startInProcess(f, { A2A_LEDGER_RULES: "default/4" }));
    for (const step of steps) {
      await produce(f.topics.observations, step);
      await waitForGroupAtEnd(admin, f);
    }

    const decisions = await readDecisions(f.topics.decisions);
    expect(new Set(decisions.map((d) => d.rulesVersion))).toEqual(new Set(["default/4"]));
    expect(byCorrelation(decisions)).toEqual(byCorrelation(expected));
    // After the first probes: w1 revoked, w1 earning its states back, w3 revoked by its own loss.
    expect(of(decisions, "CapabilitiesVerified").filter((d) => d.decidedAt >= t + 100)).toMatchObject([
      { workerId: "w1", durable: false },
      { workerId: "w1", durable: true, states: expect.arrayContaining(["TASK_STATE_INPUT_REQUIRED"]) },
      { workerId: "w3", durable: false },
    ]);
    expect(targets(decisions)).toEqual([
      ["t", "w3"],
      ["u", "w1"],
    ]);
  }, 120_000);
});
