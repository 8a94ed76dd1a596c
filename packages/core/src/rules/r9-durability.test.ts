/**
 * R9 and its kin: the evidence that revokes a card's interrupted states and durability, and how a revocation
 * is earned back. R9 (r9-durability.ts) judges a lost parked canary: "R9 durability" holds since default/1
 * (`givenEach` checks default/1 and default/2 alike). R9 for tasks (r9-lost-tasks.ts, default/3 and
 * default/4) judges a lost real task, and default/4's re-probe and earn-back (earn-back.ts: R7-reprobe,
 * R9-earn-back) lead back from a revocation: each `default/N` block holds what that version changed, as
 * specs that fail on the version before (`fixedInDefaultN`, test/given.ts). How a loss is judged under
 * the trust the evidence revokes is R4/R5's (r4-r5-not-found.test.ts).
 */
import type { Observation } from "@a2a-ledger/schemas";
import { describe, expect, it } from "vitest";
import {
  agentCard,
  all,
  events,
  lifecycle,
  noInterrupt,
  probed as probedWorkers,
  skills,
} from "../../test/builders.ts";
import { fixedInDefault3, fixedInDefault4, givenEach, given as givenUnder } from "../../test/given.ts";
import { cardHash } from "../card-hash.ts";
import { defaultRuleSetV3, defaultRuleSetV4 } from "./rule-sets.ts";

describe("R9 durability", () => {
  const given = givenEach;

  const states = [
    "TASK_STATE_SUBMITTED",
    "TASK_STATE_WORKING",
    "TASK_STATE_INPUT_REQUIRED",
    "TASK_STATE_COMPLETED",
  ] as const;

  /** w1's card, probed (correlation probe-1) with a canary parked in input-required. */
  function probed(e: ReturnType<typeof events>, card: Record<string, unknown>) {
    return [
      e.card("w1", card, { at: 1 }),
      e.probe("w1", cardHash(card), {
        at: 2,
        corr: "probe-1",
        states: [...states],
        modes: ["text/plain"],
        canaries: [{ serverTaskId: "canary-1", state: "input-required" }],
      }),
    ];
  }

  it("revokes interrupted states and flags a durable claim when a parked canary answers TaskNotFound", () => {
    const e = events();
    const card = agentCard({
      org: "Acme",
      states: ["submitted", "working", "input-required", "completed"],
      taskStore: "durable",
    });
    given(probed(e, card))
      .when(e.notFound("probe-1", "w1", "canary-1", { at: 50, observer: "dispatcher" }))
      .then([
        {
          type: "ContractViolation",
          kind: "TASK_STORE_NOT_DURABLE",
          serverTaskId: "canary-1",
          cardHash: cardHash(card),
        },
        {
          type: "CapabilitiesVerified",
          states: ["TASK_STATE_SUBMITTED", "TASK_STATE_WORKING", "TASK_STATE_COMPLETED"],
          durable: false,
        },
      ]);
  });

  it("only revokes when the card made no durable claim, and the canary is never a lost task", () => {
    const e = events();
    const card = agentCard({
      org: "Acme",
      states: ["submitted", "working", "input-required", "completed"],
      taskStore: "ephemeral",
    });
    given(probed(e, card))
      .when(e.notFound("probe-1", "w1", "canary-1", { at: 50 }))
      .then([{ type: "CapabilitiesVerified", durable: false }]);
  });

  it("after revocation, input-required is no longer verified and the worker is no longer a resume target", () => {
    const e = events();
    const card = agentCard({ org: "Acme", states: ["submitted", "working", "input-required", "completed"] });
    const other = agentCard({ org: "Other" });
    given([
      ...probed(e, card),
      e.notFound("probe-1", "w1", "canary-1", { at: 50 }),
      e.card("w0", other, { at: 1 }),
      e.dispatch("t", "w0", { at: 60 }),
      e.state("t", "w0", "s0", "input-required", { at: 61 }),
      e.dispatch("t2", "w1", { at: 65 }),
    ])
      .when(e.state("t2", "w1", "s1", "input-required", { at: 70 }), e.notFound("t", "w0", "s0", { at: 80 }))
      .then([
        {
          type: "ContractViolation",
          kind: "STATE_NOT_VERIFIED",
          workerId: "w1",
          observed: "TASK_STATE_INPUT_REQUIRED",
        },
        { type: "TaskIndeterminate", workerId: "w0" },
        {
          type: "ReconciliationBlocked",
          candidates: [
            { workerId: "w0", eligible: false },
            { workerId: "w1", eligible: false },
          ],
        },
      ]);
  });
});

describe("default/3", () => {
  const given = givenUnder;
  const probed = probedWorkers;

  describe("a real task lost in an interrupted state is evidence against the worker's V", () => {
    it("revokes the interrupted states of the worker that lost it, so another correlation's loss is no longer resumed there", () => {
      const e = events();
      const history = [
        ...probed(e, { w1: { states: all }, w2: { states: noInterrupt }, w3: { states: all } }),
        e.dispatch("t", "w1", { at: 100 }),
        e.state("t", "w1", "a1", "input-required", { at: 110 }),
        e.notFound("t", "w1", "a1", { at: 120 }),
        e.dispatch("u", "w2", { at: 200 }),
        e.state("u", "w2", "b1", "input-required", { at: 210 }),
      ];
      const lossOnW1 = given(history.slice(0, -2), { ruleSet: defaultRuleSetV3 }).when();
      expect(lossOnW1.all.filter((d) => d.correlationId === "t")).toMatchObject([
        {
          type: "CapabilitiesVerified",
          workerId: "w1",
          durable: false,
          states: noInterrupt,
          skills: [{ skillId: "summarize", states: noInterrupt }],
        },
        { type: "TaskIndeterminate", workerId: "w1", lastState: "TASK_STATE_INPUT_REQUIRED" },
        { type: "RedispatchCommanded", targetWorkerId: "w3", resumeState: "TASK_STATE_INPUT_REQUIRED" },
      ]);
      const spec = fixedInDefault3(history).when(e.notFound("u", "w2", "b1", { at: 220 }));
      expect(spec.v2).toMatchObject([
        { type: "TaskIndeterminate" },
        { type: "RedispatchCommanded", targetWorkerId: "w1" },
      ]);
      spec.then([
        { type: "CapabilitiesVerified", workerId: "w2", durable: false },
        { type: "TaskIndeterminate", workerId: "w2" },
        {
          type: "RedispatchCommanded",
          targetWorkerId: "w3",
          resumeState: "TASK_STATE_INPUT_REQUIRED",
          candidates: [
            { workerId: "w1", eligible: false, reason: expect.stringContaining("lack TASK_STATE_INPUT_REQUIRED") },
            { workerId: "w2", eligible: false },
            { workerId: "w3", eligible: true },
          ],
        },
      ]);
    });

    it("records TASK_STORE_NOT_DURABLE for a card claiming a durable store, and judges that loss under verify: indeterminate, not failed", () => {
      const e = events();
      const history = [
        ...probed(e, { w1: { states: all, org: "Acme", taskStore: "durable" }, w3: { states: all } }),
        e.dispatch("t", "w1", { at: 100 }),
        e.state("t", "w1", "a1", "input-required", { at: 110 }),
      ];
      const spec = fixedInDefault3(history, { policy: { trustedVendors: ["Acme"] } }).when(
        e.notFound("t", "w1", "a1", { at: 120 }),
      );
      expect(spec.v2).toMatchObject([{ type: "TaskFailed", workerId: "w1" }]);
      spec.then([
        {
          type: "ContractViolation",
          kind: "TASK_STORE_NOT_DURABLE",
          workerId: "w1",
          serverTaskId: "a1",
          allowed: ["durable"],
        },
        { type: "CapabilitiesVerified", workerId: "w1", durable: false },
        { type: "TaskIndeterminate", workerId: "w1", reason: expect.stringContaining("under verify") },
        { type: "RedispatchCommanded", targetWorkerId: "w3" },
      ]);
      // a second loss under the same card is the known fact again: no second violation, no new snapshot
      const again = given(
        [
          ...history,
          e.notFound("t", "w1", "a1", { at: 120 }),
          e.dispatch("u", "w1", { at: 200 }),
          e.state("u", "w1", "b1", "input-required", { at: 210 }),
        ],
        { ruleSet: defaultRuleSetV3, policy: { trustedVendors: ["Acme"] } },
      ).when(e.notFound("u", "w1", "b1", { at: 220 }));
      expect(again.decisions.map((d) => d.type)).toEqual(["TaskIndeterminate", "RedispatchCommanded"]);
    });

    it("does not judge a new card by what the worker did under the previous one, nor a task lost while WORKING", () => {
      const e = events();
      const v2card = agentCard({ org: "Org-w1", version: "2", states: lifecycle, skills });
      const base = [...probed(e, { w1: { states: all }, w3: { states: all } })];
      const newCard = given(
        [
          ...base,
          e.dispatch("t", "w1", { at: 100 }),
          e.state("t", "w1", "a1", "input-required", { at: 110 }),
          e.card("w1", v2card, { at: 115 }),
        ],
        { ruleSet: defaultRuleSetV3 },
      ).when(e.notFound("t", "w1", "a1", { at: 120 }));
      expect(newCard.decisions.map((d) => d.type)).toEqual(["TaskIndeterminate", "RedispatchCommanded"]);
      const working = given(
        [...base, e.dispatch("t", "w1", { at: 100 }), e.state("t", "w1", "a1", "working", { at: 110 })],
        { ruleSet: defaultRuleSetV3 },
      ).when(e.notFound("t", "w1", "a1", { at: 120 }));
      expect(working.decisions.map((d) => d.type)).toEqual(["TaskIndeterminate", "RedispatchCommanded"]);
    });
  });
});

describe("default/4", () => {
  const given = givenUnder;
  const probed = probedWorkers;
  /** A policy that trusts vendor Acme. */
  const acme = { policy: { trustedVendors: ["Acme"] } };

  describe("a task lost in any state under a card claiming a durable store is evidence", () => {
    /** w1 (vendor Acme, claiming a durable task store) and w3, both verifying every state. */
    const trustedDurable = (e: ReturnType<typeof events>) =>
      probed(e, { w1: { states: all, org: "Acme", taskStore: "durable" }, w3: { states: all } });

    it("takes a task lost in WORKING under a card claiming a durable store as evidence too", () => {
      const e = events();
      const history = [
        ...trustedDurable(e),
        e.dispatch("t", "w1", { at: 100 }),
        e.state("t", "w1", "a1", "working", { at: 110 }),
        e.notFound("t", "w1", "a1", { at: 120 }),
        e.dispatch("u", "w1", { at: 200 }),
        e.state("u", "w1", "b1", "working", { at: 210 }),
      ];
      // default/3 keeps trusting the card after a loss in WORKING: the next loss fails again.
      const spec = fixedInDefault4(history, acme).when(e.notFound("u", "w1", "b1", { at: 220 }));
      expect(spec.v3.map((d) => d.type)).toEqual(["TaskFailed"]);
      spec.then([
        { type: "TaskIndeterminate", workerId: "w1" },
        { type: "RedispatchCommanded", targetWorkerId: "w3" },
      ]);
      const first = given(history.slice(0, -3), { ruleSet: defaultRuleSetV4, ...acme }).when(
        history[history.length - 3] as Observation,
      );
      expect(first.decisions.map((d) => d.type)).toEqual(["ContractViolation", "CapabilitiesVerified", "TaskFailed"]);
    });
  });

  describe("a revocation is earned back by a canary that outlived a restart", () => {
    /** Re-probe every second, a canary must outlive five (the policy on Kafka sets both; these specs pass them). */
    const earnBackPolicy = { policy: { trustedVendors: [], reprobeAfterMs: 1_000, canaryOutlivesMs: 5_000 } };
    const cardW1 = agentCard({ org: "Org-w1", states: lifecycle, skills });
    /** w1 and w3 verified in every state; w1 loses a task it left in input-required at 120 (revoked from then on). */
    function revoked(e: ReturnType<typeof events>) {
      return [
        ...probed(e, { w1: { states: all }, w3: { states: all } }),
        e.dispatch("t", "w1", { at: 100 }),
        e.state("t", "w1", "a1", "input-required", { at: 110 }),
        e.notFound("t", "w1", "a1", { at: 120 }),
      ];
    }
    /** The revoked history, re-probed at 1,300 with a canary c1 parked in input-required. */
    function reprobed(e: ReturnType<typeof events>) {
      return [
        ...revoked(e),
        e.card("w1", cardW1, { at: 1_200 }),
        e.probe("w1", cardHash(cardW1), {
          at: 1_300,
          states: all,
          modes: ["text/plain"],
          canaries: [{ serverTaskId: "c1", state: "input-required" }],
        }),
      ];
    }

    it("probes a revoked card again on its first fetch in each period of the policy's reprobeAfterMs", () => {
      const e = events();
      const history = revoked(e);
      // Within the first period after the revocation: nothing.
      given(history, { ruleSet: defaultRuleSetV4, ...earnBackPolicy })
        .when(e.card("w1", cardW1, { at: 900 }))
        .thenNothing();
      const spec = fixedInDefault4(history, earnBackPolicy).when(e.card("w1", cardW1, { at: 1_200 }));
      expect(spec.v3).toEqual([]);
      spec.then([{ type: "ProbeRequested", workerId: "w1", cardHash: cardHash(cardW1), reason: "revoked" }]);
      // The period's later fetches command nothing; the next period's first fetch does.
      const later = [...history, e.card("w1", cardW1, { at: 1_200 })];
      given(later, { ruleSet: defaultRuleSetV4, ...earnBackPolicy })
        .when(e.card("w1", cardW1, { at: 1_900 }))
        .thenNothing();
      given(later, { ruleSet: defaultRuleSetV4, ...earnBackPolicy })
        .when(e.card("w1", cardW1, { at: 2_150 }))
        .then([{ type: "ProbeRequested", reason: "revoked" }]);
    });

    it("does not probe a card that stands unrevoked, or another card than the one in force", () => {
      const e = events();
      const history = probed(e, { w1: { states: all } });
      given(history, { ruleSet: defaultRuleSetV4, ...earnBackPolicy })
        .when(e.card("w1", cardW1, { at: 5_000 }))
        .thenNothing();
    });

    it("returns the interrupted states once the parked canary is re-observed in them past the bound, and not before", () => {
      const e = events();
      const history = reprobed(e);
      // The re-probe alone returns nothing: V of w1 stays without input-required.
      const early = e.state("probe-w1", "w1", "c1", "input-required", { at: 6_200 });
      given(history, { ruleSet: defaultRuleSetV4, ...earnBackPolicy })
        .when(early)
        .thenNothing();
      const spec = fixedInDefault4(history, earnBackPolicy).when(
        e.state("probe-w1", "w1", "c1", "input-required", { at: 6_300 }),
      );
      expect(spec.v3).toEqual([]);
      spec.then([
        {
          type: "CapabilitiesVerified",
          workerId: "w1",
          durable: true,
          states: ["TASK_STATE_SUBMITTED", "TASK_STATE_WORKING", "TASK_STATE_INPUT_REQUIRED", "TASK_STATE_COMPLETED"],
        },
      ]);
    });

    it("takes no re-observation but GetTask's of the canary in the state it was parked in", () => {
      const e = events();
      const history = reprobed(e);
      const verified = (o: Observation) =>
        given(history, { ruleSet: defaultRuleSetV4, ...earnBackPolicy })
          .when(o)
          .decisions.filter((d) => d.type === "CapabilitiesVerified");
      expect(verified(e.state("probe-w1", "w1", "c1", "input-required", { at: 7_000, via: "stream" }))).toEqual([]);
      expect(verified(e.state("probe-w1", "w1", "c1", "working", { at: 7_000 }))).toEqual([]);
      // A real task of w1 that waits long in input-required proves nothing: the prober parked no canary there.
      expect(verified(e.state("t", "w1", "a1", "input-required", { at: 7_000 }))).toEqual([]);
      // The oracle: the same canary's GetTask in input-required does.
      expect(verified(e.state("probe-w1", "w1", "c1", "input-required", { at: 7_000 }))).toHaveLength(1);
    });

    it("sends a task lost in input-required elsewhere to the worker that earned its states back", () => {
      const e = events();
      const history = [
        ...reprobed(e),
        e.dispatch("u", "w3", { at: 6_000 }),
        e.state("u", "w3", "b1", "input-required", { at: 6_100 }),
      ];
      const loss = e.notFound("u", "w3", "b1", { at: 6_500 });
      // Before the earn-back: w1 stands revoked, w3 lost the task — no worker is left.
      given(history, { ruleSet: defaultRuleSetV4, ...earnBackPolicy })
        .when(loss)
        .then([
          { type: "CapabilitiesVerified", workerId: "w3", durable: false },
          { type: "TaskIndeterminate", workerId: "w3" },
          { type: "ReconciliationBlocked" },
        ]);
      const earned = [...history, e.state("probe-w1", "w1", "c1", "input-required", { at: 6_400 })];
      given(earned, { ruleSet: defaultRuleSetV4, ...earnBackPolicy })
        .when(loss)
        .then([
          { type: "CapabilitiesVerified", workerId: "w3", durable: false },
          { type: "TaskIndeterminate", workerId: "w3" },
          { type: "RedispatchCommanded", targetWorkerId: "w1" },
        ]);
    });

    it("revokes again when the canary that earned the states back is lost", () => {
      const e = events();
      const history = [...reprobed(e), e.state("probe-w1", "w1", "c1", "input-required", { at: 6_400 })];
      given(history, { ruleSet: defaultRuleSetV4, ...earnBackPolicy })
        .when(e.notFound("probe-w1", "w1", "c1", { at: 9_000 }))
        .then([{ type: "CapabilitiesVerified", workerId: "w1", durable: false }]);
    });
  });
});
