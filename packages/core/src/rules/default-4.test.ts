/**
 * What default/4 decides differently from default/3: one spec per change, each run on both versions —
 * fixedInDefault4 checks that default/3 decides otherwise, and that default/4 decides what the spec says.
 */
import type { Decision, Observation, TaskState } from "@a2a-ledger/schemas";
import { describe, expect, it } from "vitest";
import { agentCard, all, events, lifecycle, probed, skills } from "../../test/builders.ts";
import { cardHash } from "../card-hash.ts";
import { fixedInDefault4, given } from "../../test/given.ts";
import { CapabilityTable } from "../capabilities.ts";
import { createDecider } from "../decider.ts";
import { applyCapabilityUpdates } from "../fold.ts";
import { PartitionLedger } from "../partition-ledger.ts";
import { replay, replayLog } from "../replay.ts";
import { defaultRetention } from "../retention.ts";
import type { RuleSet } from "../rule-set.ts";
import { defaultRuleSetV3, defaultRuleSetV4 } from "./rule-sets.ts";

/**
 * The decisions `event` adds after `history` (the spec helpers tell a \`when\` event's decisions by its
 * eventId, which these specs repeat on purpose).
 */
const decidedAfter = (ruleSet: RuleSet, history: readonly Observation[], event: Observation) =>
  replay([...history, event], ruleSet).slice(replay(history, ruleSet).length);

const acme = { policy: { trustedVendors: ["Acme"] } };

describe("default/4: a task lost, seen again and lost again is two losses", () => {
  /** t on w1: seen working, lost (the TaskNotFound returned), seen again in input-required. */
  function lostAndSeenAgain(e: ReturnType<typeof events>) {
    const loss = e.notFound("t", "w1", "a1", { at: 120 });
    return {
      loss,
      history: [
        ...probed(e, { w1: { states: all } }),
        e.dispatch("t", "w1", { at: 100 }),
        e.state("t", "w1", "a1", "working", { at: 110 }),
        loss,
        e.state("t", "w1", "a1", "input-required", { at: 130 }),
      ],
    };
  }

  it("judges the second loss under the id producers derived for every loss of the task (records already on topics)", () => {
    const e = events();
    const { loss, history } = lostAndSeenAgain(e);
    const again: Observation = { ...loss, occurredAt: 140 };
    expect(decidedAfter(defaultRuleSetV3, history, again)).toEqual([]);
    expect(decidedAfter(defaultRuleSetV4, history, again)).toMatchObject([
      // A task lost in input-required is evidence that w1 keeps no interrupted task (R9 for tasks).
      { type: "CapabilitiesVerified", workerId: "w1", durable: false },
      { type: "TaskIndeterminate", workerId: "w1", serverTaskId: "a1", lastState: "TASK_STATE_INPUT_REQUIRED" },
      // w1 lost it: never a target again, and no other worker is known.
      { type: "ReconciliationBlocked" },
    ]);
  });

  it("still takes a copy of the first loss, arriving after the sighting, for the copy it is", () => {
    const e = events();
    const { loss, history } = lostAndSeenAgain(e);
    expect(decidedAfter(defaultRuleSetV4, history, loss)).toEqual([]);
  });

  it("takes the same loss reported twice before any sighting for one loss", () => {
    const e = events();
    const { loss, history } = lostAndSeenAgain(e);
    expect(decidedAfter(defaultRuleSetV4, history.slice(0, -1), { ...loss, occurredAt: 125 })).toEqual([]);
  });
});

describe("default/4: the trust in force before a loss governs it; the loss is evidence for what follows", () => {
  const trustedDurable = (e: ReturnType<typeof events>) =>
    probed(e, { w1: { states: all, org: "Acme", taskStore: "durable" }, w3: { states: all } });

  it("fails a trusted durable worker's task lost in input-required, and records the evidence against its card", () => {
    const e = events();
    const history = [
      ...trustedDurable(e),
      e.dispatch("t", "w1", { at: 100 }),
      e.state("t", "w1", "a1", "input-required", { at: 110 }),
    ];
    const spec = fixedInDefault4(history, acme).when(e.notFound("t", "w1", "a1", { at: 120 }));
    expect(spec.v3.map((d) => d.type)).toContain("TaskIndeterminate");
    spec.then([
      { type: "ContractViolation", kind: "TASK_STORE_NOT_DURABLE", workerId: "w1", serverTaskId: "a1" },
      { type: "CapabilitiesVerified", workerId: "w1", durable: false },
      { type: "TaskFailed", workerId: "w1", reason: expect.stringContaining("trusted before this loss") },
    ]);
  });

  it("judges the next loss under that card under verify: indeterminate, and re-dispatched", () => {
    const e = events();
    const history = [
      ...trustedDurable(e),
      e.dispatch("t", "w1", { at: 100 }),
      e.state("t", "w1", "a1", "input-required", { at: 110 }),
      e.notFound("t", "w1", "a1", { at: 120 }),
      e.dispatch("u", "w1", { at: 200 }),
      e.state("u", "w1", "b1", "working", { at: 210 }),
    ];
    given(history, { ruleSet: defaultRuleSetV4, ...acme })
      .when(e.notFound("u", "w1", "b1", { at: 220 }))
      .then([
        {
          type: "TaskIndeterminate",
          workerId: "w1",
          serverTaskId: "b1",
          reason: expect.stringContaining("under verify"),
        },
        { type: "RedispatchCommanded", targetWorkerId: "w3" },
      ]);
  });

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

describe("default/4: a card replaces the card in force only when admitted", () => {
  const cardA = agentCard({ org: "Org-w1", states: lifecycle, skills });
  const cardB = agentCard({ org: "Org-w1", states: lifecycle, skills, version: "2.0.0" });
  const worker = { observer: "proxy:w1", standing: "WORKER" } as const;
  /** w1's card A fetched by its own proxy (signed when `signature` says so) and probed. */
  const inForce = (e: ReturnType<typeof events>, signature?: "VERIFIED") => [
    e.card("w1", cardA, { at: 1, ...worker, ...(signature === undefined ? {} : { signature, keyId: "w1-2026" }) }),
    e.probe("w1", cardHash(cardA), { at: 2, states: all, modes: ["text/plain"] }),
  ];

  it("does not let another vendor's sighting replace a worker's card, nor probe it", () => {
    const e = events();
    const sighting = e.card("w1", cardB, { at: 50, observer: "orchestrator:other-vendor", standing: "SIGHTING" });
    const spec = fixedInDefault4(inForce(e)).when(sighting);
    expect(spec.v3.map((d) => d.type)).toEqual(["CardChanged", "ProbeRequested"]);
    spec.thenNothing();
  });

  it("takes a sighting whose signature verified with a key trusted for the worker", () => {
    const e = events();
    const signed = e.card("w1", cardB, {
      at: 50,
      observer: "orchestrator:other-vendor",
      standing: "SIGHTING",
      signature: "VERIFIED",
      keyId: "w1-2026",
    });
    given(inForce(e), { ruleSet: defaultRuleSetV4 })
      .when(signed)
      .then([{ type: "CardChanged", workerId: "w1" }, { type: "ProbeRequested" }]);
  });

  it("records a card whose signature failed as the worker's violation, and keeps the card in force", () => {
    const e = events();
    const history = [...inForce(e), e.card("w1", cardB, { at: 50, ...worker, signature: "INVALID", keyId: "w1-2026" })];
    const spec = fixedInDefault4(history.slice(0, -1)).when(history[2] as Observation);
    expect(spec.v3.map((d) => d.type)).toEqual(["CardChanged", "ProbeRequested"]);
    spec.then([
      {
        type: "ContractViolation",
        kind: "CARD_SIGNATURE_INVALID",
        workerId: "w1",
        observed: "INVALID",
        cardHash: cardHash(cardB),
        detail: expect.stringContaining("key w1-2026"),
      },
    ]);
    // Card B never came into force: a probe of it verifies nothing.
    fixedInDefault4(history)
      .when(e.probe("w1", cardHash(cardB), { at: 60, states: all, modes: ["text/plain"] }))
      .thenNothing();
  });

  it("charges nothing to the worker for a stranger's post of a card with a signature by an unknown key", () => {
    const e = events();
    const forged = e.card("w1", cardB, {
      at: 50,
      observer: "orchestrator:x",
      standing: "SIGHTING",
      signature: "UNKNOWN_KEY",
    });
    fixedInDefault4(inForce(e)).when(forged).thenNothing();
  });

  it("flags a worker whose cards were signed and now arrive unsigned, and keeps the signed card", () => {
    const e = events();
    const spec = fixedInDefault4(inForce(e, "VERIFIED")).when(
      e.card("w1", cardB, { at: 50, ...worker, signature: "UNSIGNED" }),
    );
    expect(spec.v3.map((d) => d.type)).toEqual(["CardChanged", "ProbeRequested"]);
    spec.then([{ type: "ContractViolation", kind: "CARD_SIGNATURE_DROPPED", workerId: "w1", observed: "UNSIGNED" }]);
  });

  it("marks a card in force verified when the same card arrives signed, so dropping the signature later is flagged", () => {
    const e = events();
    const history = [
      ...inForce(e),
      e.card("w1", cardA, { at: 40, ...worker, signature: "VERIFIED", keyId: "w1-2026" }),
    ];
    given(history.slice(0, -1), { ruleSet: defaultRuleSetV4 })
      .when(history[2] as Observation)
      .thenNothing();
    fixedInDefault4(history)
      .when(e.card("w1", cardA, { at: 50, ...worker, signature: "UNSIGNED" }))
      .then([{ type: "ContractViolation", kind: "CARD_SIGNATURE_DROPPED", cardHash: cardHash(cardA) }]);
  });
});

describe("default/4: a revocation is earned back by a canary that outlived a restart", () => {
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

describe("default/4: an operator resolves a blocked correlation, and the rules carry it out", () => {
  /** t lost on w1 in input-required; w2 verifies only WORKING and COMPLETED, so nobody may resume it: blocked. */
  function blocked(e: ReturnType<typeof events>) {
    return [
      ...probed(e, {
        w1: { states: all },
        w2: { states: ["TASK_STATE_SUBMITTED", "TASK_STATE_WORKING", "TASK_STATE_COMPLETED"] },
      }),
      e.dispatch("t", "w1", { at: 100 }),
      e.state("t", "w1", "a1", "input-required", { at: 110 }),
      e.notFound("t", "w1", "a1", { at: 120 }),
    ];
  }

  it("blocks the loss first (the queue the operator reads)", () => {
    const e = events();
    const history = blocked(e);
    expect(replay(history, defaultRuleSetV4).map((d) => d.type)).toContain("ReconciliationBlocked");
  });

  it("fails the lost task, naming who resolved it and why", () => {
    const e = events();
    fixedInDefault4(blocked(e))
      .when(e.resolve("t", "FAIL", { at: 200, reason: "the customer withdrew", principal: "operator:alice#0a1b2c3d" }))
      .then([
        {
          type: "TaskFailed",
          workerId: "w1",
          serverTaskId: "a1",
          lastState: "TASK_STATE_INPUT_REQUIRED",
          reason: "resolved by operator:alice#0a1b2c3d: the customer withdrew",
        },
      ]);
  });

  it("re-dispatches to the named worker, resuming the interrupted state, whatever the table's verdict", () => {
    const e = events();
    const spec = fixedInDefault4(blocked(e)).when(e.resolve("t", "REDISPATCH", { at: 200, worker: "w2" }));
    const [command] = spec.then([
      {
        type: "RedispatchCommanded",
        workerId: "w1",
        targetWorkerId: "w2",
        fromServerTaskId: "a1",
        attempt: 2,
        resumeState: "TASK_STATE_INPUT_REQUIRED",
      },
    ]);
    // The verdicts it overrode stay on the command: w2 does not verify input-required.
    expect(command).toMatchObject({
      candidates: expect.arrayContaining([{ workerId: "w2", eligible: false, reason: expect.any(String) }]),
    });
  });

  it("restarts from scratch on the first worker that verifies COMPLETED", () => {
    const e = events();
    fixedInDefault4(blocked(e))
      .when(e.resolve("t", "RESTART", { at: 200 }))
      .then([{ type: "RedispatchCommanded", targetWorkerId: "w2", resumeState: null, attempt: 2 }]);
  });

  it("keeps the correlation blocked, saying why, when the resolution cannot be carried out", () => {
    const e = events();
    given(blocked(e), { ruleSet: defaultRuleSetV4 })
      .when(e.resolve("t", "REDISPATCH", { at: 200, worker: "w9" }))
      .then([
        {
          type: "ReconciliationBlocked",
          reason: "operator:alice asked to re-dispatch to w9, which cannot be carried out: no card of w9 is known",
        },
      ]);
    const f = events();
    const onlyW1 = [
      ...probed(f, { w1: { states: all } }),
      f.dispatch("t", "w1", { at: 100 }),
      f.state("t", "w1", "a1", "input-required", { at: 110 }),
      f.notFound("t", "w1", "a1", { at: 120 }),
    ];
    given(onlyW1, { ruleSet: defaultRuleSetV4 })
      .when(f.resolve("t", "RESTART", { at: 200 }))
      .then([{ type: "ReconciliationBlocked", reason: expect.stringContaining("asked to restart from scratch") }]);
  });

  it("decides nothing for a correlation that awaits no way out, nor for a second resolution once one was carried out", () => {
    const e = events();
    const running = [...probed(e, { w1: { states: all } }), e.dispatch("t", "w1", { at: 100 })];
    given(running, { ruleSet: defaultRuleSetV4 })
      .when(e.resolve("t", "FAIL", { at: 200 }))
      .thenNothing();
    const f = events();
    const failed = [...blocked(f), f.resolve("t", "FAIL", { at: 200 })];
    given(failed, { ruleSet: defaultRuleSetV4 })
      .when(f.resolve("t", "RESTART", { at: 210 }))
      .thenNothing();
  });

  it("follows the re-dispatch it commanded like any other: the new attempt's task completes and reconciles", () => {
    const e = events();
    const history = [
      ...blocked(e),
      e.resolve("t", "RESTART", { at: 200 }),
      e.dispatch("t", "w2", { at: 210, attempt: 2 }),
    ];
    given(history, { ruleSet: defaultRuleSetV4 })
      .when(e.state("t", "w2", "b1", "completed", { at: 220 }))
      .then([{ type: "TaskReconciled" }]);
  });
});

describe("default/4: a blocked task falls back to a restart from scratch after the policy's wait for its skill", () => {
  const wait = 60_000;
  const withFallback = { trustedVendors: [], fallbacks: [{ skillId: "summarize", afterMs: wait }] };
  /** t lost on w1 in input-required at 120; w2 completes from scratch but verifies no input-required: blocked. */
  function blocked(
    e: ReturnType<typeof events>,
    w2States: readonly TaskState[] = ["TASK_STATE_SUBMITTED", "TASK_STATE_WORKING", "TASK_STATE_COMPLETED"],
  ) {
    return [
      ...probed(e, { w1: { states: all }, w2: { states: [...w2States] } }),
      e.dispatch("t", "w1", { at: 100 }),
      e.state("t", "w1", "a1", "input-required", { at: 110 }),
      e.notFound("t", "w1", "a1", { at: 120 }),
    ];
  }
  /** The decisions of `log` as the reconciler takes them: retention's stream time runs the fallback. */
  const decided = (ruleSet: RuleSet, log: readonly Observation[], policy = withFallback) =>
    replayLog(log, ruleSet, { policy, retention: defaultRetention }).decisions.filter((d) => d.correlationId === "t");
  /** Another correlation's observation on the partition: the stream time moves on to `at`. */
  const later = (e: ReturnType<typeof events>, at: number) => e.dispatch("u", "w2", { at });

  it("names the fallback's moment on the block, and restarts the task from scratch once the stream time passes it", () => {
    const e = events();
    const log = [...blocked(e), later(e, 120 + wait + 1)];
    const v4 = decided(defaultRuleSetV4, log);
    expect(v4.find((d) => d.type === "ReconciliationBlocked")).toMatchObject({ fallbackAt: 120 + wait });
    expect(v4.at(-1)).toMatchObject({
      type: "RedispatchCommanded",
      targetWorkerId: "w2",
      resumeState: null,
      attempt: 2,
      decidedAt: 120 + wait,
      decisionId: expect.stringMatching(/:RedispatchCommanded:fallback$/),
    });
    // default/3 has no fallback: the block stands.
    const v3 = decided(defaultRuleSetV3, log);
    expect(v3.find((d) => d.type === "ReconciliationBlocked")).toMatchObject({ fallbackAt: null });
    expect(v3.map((d) => d.type)).not.toContain("RedispatchCommanded");
  });

  it("waits the whole wait: a stream time at the moment itself restarts nothing yet", () => {
    const e = events();
    expect(decided(defaultRuleSetV4, [...blocked(e), later(e, 120 + wait)]).map((d) => d.type)).not.toContain(
      "RedispatchCommanded",
    );
  });

  it("is off unless the policy names the skill (or *)", () => {
    const e = events();
    const log = [...blocked(e), later(e, 120 + wait + 1)];
    const none = decided(defaultRuleSetV4, log, { trustedVendors: [], fallbacks: [] });
    expect(none.find((d) => d.type === "ReconciliationBlocked")).toMatchObject({ fallbackAt: null });
    expect(none.map((d) => d.type)).not.toContain("RedispatchCommanded");
    const other = decided(defaultRuleSetV4, log, {
      trustedVendors: [],
      fallbacks: [{ skillId: "translate", afterMs: wait }],
    });
    expect(other.map((d) => d.type)).not.toContain("RedispatchCommanded");
    const any = decided(defaultRuleSetV4, log, { trustedVendors: [], fallbacks: [{ skillId: "*", afterMs: wait }] });
    expect(any.at(-1)).toMatchObject({ type: "RedispatchCommanded", targetWorkerId: "w2" });
  });

  it("does nothing once an operator resolved the block first", () => {
    const e = events();
    const log = [...blocked(e), e.resolve("t", "FAIL", { at: 200 }), later(e, 120 + wait + 1)];
    expect(decided(defaultRuleSetV4, log).map((d) => d.type)).toEqual([
      "CapabilitiesVerified",
      "TaskIndeterminate",
      "ReconciliationBlocked",
      "TaskFailed",
    ]);
  });

  it("blocks again, saying so and without another fallback, when no worker completes the task from scratch", () => {
    const e = events();
    const log = [
      ...blocked(e, ["TASK_STATE_SUBMITTED", "TASK_STATE_WORKING"]),
      later(e, 120 + wait + 1),
      later(e, 10 * wait),
    ];
    const v4 = decided(defaultRuleSetV4, log);
    expect(v4.filter((d) => d.type === "ReconciliationBlocked")).toMatchObject([
      { fallbackAt: 120 + wait },
      {
        fallbackAt: null,
        decidedAt: 120 + wait,
        reason: expect.stringContaining("fallback for skill summarize came due"),
      },
    ]);
  });

  it("decides alike when the reconciler folds the log in transactions and restarts from its changelog in between", () => {
    const e = events();
    const log = [...blocked(e), later(e, 1_000), later(e, 120 + wait + 1)];
    const decider = createDecider(defaultRuleSetV4);
    const table = new CapabilityTable();
    const live: Decision[] = [];
    let ledger = new PartitionLedger(decider, { retention: defaultRetention });
    for (const [i, batch] of [log.slice(0, 5), log.slice(5, 8), log.slice(8)].entries()) {
      const outcome = ledger.foldPending({ policy: withFallback, capabilities: table }, batch);
      ledger.commit(outcome);
      applyCapabilityUpdates(table, outcome);
      live.push(...outcome.decisions);
      // A restart after each transaction: the states from their changelog values, at the stream time committed.
      if (i < 2)
        ledger = new PartitionLedger(decider, {
          states: [...ledger.entries()].map(([id, s]) => [id, decider.deserialize(decider.serialize(s))] as const),
          retention: defaultRetention,
          streamTime: ledger.streamTime ?? null,
        });
    }
    const whole = replayLog(log, defaultRuleSetV4, { policy: withFallback, retention: defaultRetention }).decisions;
    expect(live).toEqual(whole);
    expect(live.at(-1)).toMatchObject({ type: "RedispatchCommanded", correlationId: "t", resumeState: null });
  });
});
