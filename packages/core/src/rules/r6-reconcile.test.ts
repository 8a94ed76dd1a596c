/**
 * R6 (r6-reconcile.ts, eligibility.ts): a lost task re-dispatched to the first eligible worker by its
 * verified capabilities, or the correlation blocked, and a block re-examined until a worker is eligible.
 * "R6 reconciliation" holds since default/1 (`givenEach` checks default/1 and default/2 alike); each
 * `default/N` block holds what that version changed in R6 and in how its blocks recover, as specs that fail
 * on the version before (`fixedInDefaultN`, test/given.ts) or that compare the two versions' replays.
 * default/4's fallback from a block is fallback.test.ts's; an operator's resolution of one,
 * operator-resolution.test.ts's.
 */
import type { TaskState } from "@a2a-ledger/schemas";
import { describe, expect, it } from "vitest";
import {
  agentCard,
  all,
  events,
  lifecycle,
  noInterrupt,
  probed,
  skills,
  mesh as threeWorkers,
} from "../../test/builders.ts";
import { fixedInDefault2, fixedInDefault3, givenEach, given as givenUnder } from "../../test/given.ts";
import { CapabilityTable } from "../capabilities.ts";
import { cardHash } from "../card-hash.ts";
import { createDecider } from "../decider.ts";
import { applyCapabilityUpdates, foldBatch } from "../fold.ts";
import { replay } from "../replay.ts";
import { defaultRuleSetV2, defaultRuleSetV3 } from "./rule-sets.ts";

type Events = ReturnType<typeof events>;

function expectReason(fragment: string): unknown {
  return expect.stringContaining(fragment);
}

describe("R6 reconciliation", () => {
  const given = givenEach;
  /** Each worker's card and (unless `verified` is false) its probe, verifying `states` (all by default) and emitting `modes`. */
  function mesh(
    e: ReturnType<typeof events>,
    workers: { id: string; modes: string[]; verified?: boolean; states?: TaskState[] }[],
  ) {
    return workers.flatMap((w) => {
      const card = agentCard({
        org: w.id,
        skills: [{ id: "summarize", outputModes: ["text/plain", "text/markdown", "application/pdf"] }],
      });
      return [
        e.card(w.id, card, { at: 1 }),
        ...(w.verified === false
          ? []
          : [e.probe(w.id, cardHash(card), { at: 2, states: w.states ?? all, modes: w.modes, durable: true })]),
      ];
    });
  }

  it("picks the first eligible worker by workerId, whatever the log order", () => {
    const e = events();
    given([
      ...mesh(e, [
        { id: "w-zeta", modes: ["text/plain"] },
        { id: "w-lost", modes: ["text/plain"] },
        { id: "w-alpha", modes: ["text/plain"] },
      ]),
      e.dispatch("t", "w-lost", { at: 10 }),
      e.state("t", "w-lost", "s1", "input-required", { at: 11 }),
    ])
      .when(e.notFound("t", "w-lost", "s1", { at: 99 }))
      .then([
        { type: "TaskIndeterminate" },
        {
          type: "RedispatchCommanded",
          targetWorkerId: "w-alpha",
          candidates: [
            { workerId: "w-alpha", eligible: true },
            { workerId: "w-lost", eligible: false },
            { workerId: "w-zeta", eligible: true },
          ],
        },
      ]);
  });

  it("requires verified output modes within the dispatch's accepted modes", () => {
    const e = events();
    given([
      ...mesh(e, [
        { id: "w-a", modes: ["application/pdf"] },
        { id: "w-b", modes: ["text/markdown"] },
        { id: "w-lost", modes: ["text/plain"] },
      ]),
      e.dispatch("t", "w-lost", { at: 10, accepted: ["text/*"] }),
      e.state("t", "w-lost", "s1", "input-required", { at: 11 }),
    ])
      .when(e.notFound("t", "w-lost", "s1", { at: 99 }))
      .then([
        { type: "TaskIndeterminate" },
        { type: "RedispatchCommanded", targetWorkerId: "w-b", acceptedOutputModes: ["text/*"] },
      ]);
  });

  it("never picks a worker whose card is not verified yet (negotiation uses V, not A)", () => {
    const e = events();
    given([
      ...mesh(e, [
        { id: "w-a", modes: ["text/plain"], verified: false },
        { id: "w-lost", modes: ["text/plain"] },
      ]),
      e.dispatch("t", "w-lost", { at: 10 }),
      e.state("t", "w-lost", "s1", "input-required", { at: 11 }),
    ])
      .when(e.notFound("t", "w-lost", "s1", { at: 99 }))
      .then([
        { type: "TaskIndeterminate" },
        {
          type: "ReconciliationBlocked",
          candidates: [
            { workerId: "w-a", eligible: false, reason: expectReason("not verified") },
            { workerId: "w-lost", eligible: false },
          ],
        },
      ]);
  });

  it("restarts a lost working task from scratch on a worker that verifies completion", () => {
    const e = events();
    given([
      ...mesh(e, [
        { id: "w-a", modes: ["text/plain"], states: ["TASK_STATE_WORKING"] },
        { id: "w-b", modes: ["text/plain"] },
        { id: "w-lost", modes: ["text/plain"] },
      ]),
      e.dispatch("t", "w-lost", { at: 10 }),
      e.state("t", "w-lost", "s1", "working", { at: 11 }),
    ])
      .when(e.notFound("t", "w-lost", "s1", { at: 99 }))
      .then([
        { type: "TaskIndeterminate", lastState: "TASK_STATE_WORKING" },
        { type: "RedispatchCommanded", targetWorkerId: "w-b", resumeState: null, attempt: 2 },
      ]);
  });

  it("numbers the re-dispatch after every earlier attempt of the correlation", () => {
    const e = events();
    given([
      ...mesh(e, [
        { id: "w-a", modes: ["text/plain"] },
        { id: "w-lost", modes: ["text/plain"] },
      ]),
      e.dispatch("t", "w-lost", { at: 10, attempt: 3 }),
      e.state("t", "w-lost", "s1", "input-required", { at: 11 }),
    ])
      .when(e.notFound("t", "w-lost", "s1", { at: 99 }))
      .then([{ type: "TaskIndeterminate" }, { type: "RedispatchCommanded", attempt: 4, correlationId: "t" }]);
  });
});

describe("default/2", () => {
  const given = givenUnder;
  /** The default/2 specs' three probed workers (test/builders.ts). */
  const mesh = threeWorkers;

  describe("chooses by verified capabilities per (card, skill)", () => {
    it("restarts a task lost while working only on a worker that verifies that state and completion", () => {
      const e = events();
      const card = (org: string) => agentCard({ org, states: lifecycle });
      const a = card("A");
      const b = card("B");
      fixedInDefault2([
        e.card("w-a", a, { at: 1 }),
        e.card("w-b", b, { at: 2 }),
        e.card("w-lost", card("L"), { at: 3 }),
        e.probe("w-a", cardHash(a), { at: 10, states: ["TASK_STATE_COMPLETED"], modes: ["text/plain"] }),
        e.probe("w-b", cardHash(b), {
          at: 11,
          states: ["TASK_STATE_WORKING", "TASK_STATE_COMPLETED"],
          modes: ["text/plain"],
        }),
        e.dispatch("t", "w-lost", { at: 100 }),
        e.state("t", "w-lost", "x1", "working", { at: 110 }),
      ])
        .when(e.notFound("t", "w-lost", "x1", { at: 120 }))
        .then([
          { type: "TaskIndeterminate" },
          { type: "RedispatchCommanded", targetWorkerId: "w-b", resumeState: null },
        ]);
    });

    it("takes a probe of one skill as verifying nothing about another", () => {
      const e = events();
      fixedInDefault2([
        ...mesh(e, { w3Skill: "translate" }),
        e.dispatch("t", "w1", { at: 100 }),
        e.state("t", "w1", "a1", "input-required", { at: 110 }),
      ])
        .when(e.notFound("t", "w1", "a1", { at: 120 }))
        .then([
          { type: "TaskIndeterminate" },
          {
            type: "ReconciliationBlocked",
            candidates: expect.arrayContaining([
              { workerId: "w3", eligible: false, reason: expect.stringContaining("skill summarize of card") },
            ]),
          },
        ]);
    });

    it("never re-dispatches to the worker that lost the task, not even to restart it", () => {
      const e = events();
      const card = agentCard({ org: "Solo", states: lifecycle });
      fixedInDefault2([
        e.card("w1", card, { at: 1 }),
        e.probe("w1", cardHash(card), { at: 2, states: noInterrupt, modes: ["text/plain"] }),
        e.dispatch("t", "w1", { at: 100 }),
        e.state("t", "w1", "a1", "working", { at: 110 }),
      ])
        .when(e.notFound("t", "w1", "a1", { at: 120 }))
        .then([
          { type: "TaskIndeterminate" },
          {
            type: "ReconciliationBlocked",
            candidates: [{ workerId: "w1", eligible: false, reason: "lost the task: never a target under verify" }],
          },
        ]);
    });

    it("breaks ties by workerId in code-unit order", () => {
      const e = events();
      const card = (org: string) => agentCard({ org, states: lifecycle });
      const [b, a] = [card("B"), card("A")];
      given([
        e.card("w-b", b, { at: 1 }),
        e.card("W-a", a, { at: 2 }),
        e.card("w-lost", card("L"), { at: 3 }),
        e.probe("w-b", cardHash(b), { at: 10, states: all, modes: ["text/plain"] }),
        e.probe("W-a", cardHash(a), { at: 11, states: all, modes: ["text/plain"] }),
        e.dispatch("t", "w-lost", { at: 100 }),
        e.state("t", "w-lost", "x1", "input-required", { at: 110 }),
      ])
        .when(e.notFound("t", "w-lost", "x1", { at: 120 }))
        .then([{ type: "TaskIndeterminate" }, { type: "RedispatchCommanded", targetWorkerId: "W-a" }]);
    });
  });

  describe("blocked correlations recover when a worker becomes eligible", () => {
    const story = (e: ReturnType<typeof events>) => {
      // the card mesh() gives w3
      const w3 = agentCard({
        org: "Three",
        states: lifecycle,
        taskStore: "durable",
        skills: [
          { id: "summarize", outputModes: ["text/plain"] },
          { id: "translate", outputModes: ["text/plain"] },
        ],
      });
      return {
        w3,
        blocked: [
          ...mesh(e, { w3Skill: "translate" }),
          e.dispatch("t", "w1", { at: 100 }),
          e.state("t", "w1", "a1", "input-required", { at: 110 }),
          e.notFound("t", "w1", "a1", { at: 120 }),
        ],
        probe: e.probe("w3", cardHash(w3), {
          at: 500,
          states: all,
          modes: ["text/plain"],
          skillId: "summarize",
          corr: "probe-w3",
        }),
      };
    };

    it("re-dispatches a blocked correlation, once, when a probe verifies the state it waits for", () => {
      const e = events();
      const s = story(e);
      const decisions = given(s.blocked).when(
        s.probe,
        e.probe("w3", cardHash(s.w3), {
          at: 600,
          states: all,
          modes: ["text/plain"],
          skillId: "summarize",
          corr: "probe-w3",
        }),
      ).all;
      const recovered = decisions.filter((d) => d.correlationId === "t" && d.type === "RedispatchCommanded");
      expect(recovered).toMatchObject([
        {
          targetWorkerId: "w3",
          resumeState: "TASK_STATE_INPUT_REQUIRED",
          attempt: 2,
          decidedAt: 500,
          decisionId: `${s.probe.eventId}:RedispatchCommanded:t`,
        },
      ]);
      expect(recovered[0]?.causeEventIds).toEqual([s.probe.eventId, s.blocked[s.blocked.length - 1]!.eventId]);
    });

    it("recovers the same in a later batch that only re-examines, as a reconciler on another partition does", () => {
      const e = events();
      const s = story(e);
      const decider = createDecider(defaultRuleSetV2);
      const policy = { trustedVendors: [] };
      const table = new CapabilityTable();
      const first = foldBatch({ decider, policy, capabilities: table, stateOf: () => undefined }, s.blocked);
      applyCapabilityUpdates(table, first);
      // the probe lands on another partition: this one only learns of its snapshot
      const probe = foldBatch({ decider, policy, capabilities: table, stateOf: () => undefined }, [s.probe]);
      applyCapabilityUpdates(table, probe);
      const blocked = [...first.states].filter(([, st]) => decider.isBlocked(st)).map(([id]) => id);
      const later = foldBatch(
        { decider, policy, capabilities: table, stateOf: (id) => first.states.get(id), blocked, recheck: true },
        [],
      );
      const whole = replay([...s.blocked, s.probe], defaultRuleSetV2, { policy });
      expect(later.decisions).toEqual(
        whole.filter((d) => d.type === "RedispatchCommanded" && d.correlationId === "t" && d.decidedAt === 500),
      );
      expect(later.decisions).toHaveLength(1);
    });

    it("re-dispatches at once a correlation that blocks when the table already holds the later probe that rescues it", () => {
      const e = events();
      const s = story(e);
      const decider = createDecider(defaultRuleSetV2);
      const policy = { trustedVendors: [] };
      const table = new CapabilityTable();
      // Another partition's probe (or one from an observer whose clock runs ahead) was processed first.
      applyCapabilityUpdates(
        table,
        foldBatch(
          { decider, policy, capabilities: table, stateOf: () => undefined },
          s.blocked.filter((o) => o.correlationId !== "t"),
        ),
      );
      applyCapabilityUpdates(
        table,
        foldBatch({ decider, policy, capabilities: table, stateOf: () => undefined }, [s.probe]),
      );
      const out = foldBatch(
        { decider, policy, capabilities: table, stateOf: () => undefined },
        s.blocked.filter((o) => o.correlationId === "t"),
      );
      const whole = replay([...s.blocked, s.probe], defaultRuleSetV2, { policy }).filter(
        (d) => d.correlationId === "t",
      );
      expect(out.decisions).toEqual(whole);
      expect(out.decisions.map((d) => d.type)).toEqual([
        "ContractViolation",
        "TaskIndeterminate",
        "ReconciliationBlocked",
        "RedispatchCommanded",
      ]);
      expect(decider.isBlocked(out.states.get("t")!)).toBe(false);
    });

    it("decides the same whichever of the loss and its rescuing probe comes first in the log", () => {
      const e = events();
      const s = story(e);
      const policy = { trustedVendors: [] };
      const lossFirst = replay([...s.blocked, s.probe], defaultRuleSetV2, { policy });
      const probeFirst = replay(
        [...s.blocked.slice(0, -1), s.probe, s.blocked[s.blocked.length - 1]!],
        defaultRuleSetV2,
        {
          policy,
        },
      );
      const sorted = (ds: typeof lossFirst) => ds.map((d) => d.decisionId).sort();
      expect(sorted(probeFirst)).toEqual(sorted(lossFirst));
      expect(probeFirst.filter((d) => d.type === "RedispatchCommanded" && d.correlationId === "t")).toHaveLength(1);
    });
  });
});

describe("default/3", () => {
  const given = givenUnder;

  /** Correlation t: lost on w1 in `state`, re-dispatched (attempt 2) to w2 and seen there in `state` again. */
  function lostThenRedispatched(e: Events, state: string) {
    return [
      e.dispatch("t", "w1", { at: 100 }),
      e.state("t", "w1", "a1", state, { at: 110 }),
      e.notFound("t", "w1", "a1", { at: 120 }),
      e.dispatch("t", "w2", { at: 130, attempt: 2, messageId: "t-m2" }),
      e.state("t", "w2", "a2", state, { at: 140 }),
    ];
  }

  describe("loss chains", () => {
    it("never sends a task lost again back to the worker that lost it first (default/2 ping-pongs back to w1)", () => {
      const e = events();
      const history = [
        ...probed(e, { w1: { states: noInterrupt }, w2: { states: noInterrupt }, w3: { states: noInterrupt } }),
        ...lostThenRedispatched(e, "working"),
      ];
      // the first loss went to w2 on both versions
      expect(
        given(history, { ruleSet: defaultRuleSetV3 })
          .when()
          .all.filter((d) => d.type === "RedispatchCommanded"),
      ).toMatchObject([{ targetWorkerId: "w2", attempt: 2 }]);
      const spec = fixedInDefault3(history).when(e.notFound("t", "w2", "a2", { at: 150 }));
      expect(spec.v2).toMatchObject([
        { type: "TaskIndeterminate", workerId: "w2" },
        { type: "RedispatchCommanded", targetWorkerId: "w1", attempt: 3 },
      ]);
      spec.then([
        { type: "TaskIndeterminate", workerId: "w2", serverTaskId: "a2", attempt: 2 },
        {
          type: "RedispatchCommanded",
          targetWorkerId: "w3",
          attempt: 3,
          candidates: [
            {
              workerId: "w1",
              eligible: false,
              reason: "lost the task at attempt 1 of this correlation: never a target again",
            },
            { workerId: "w2", eligible: false },
            { workerId: "w3", eligible: true },
          ],
        },
      ]);
    });

    it("keeps the task indeterminate and blocked, naming the workers passed over, when only workers that lost it are left", () => {
      const e = events();
      const history = [
        ...probed(e, { w1: { states: noInterrupt }, w2: { states: noInterrupt } }),
        ...lostThenRedispatched(e, "working"),
      ];
      const spec = fixedInDefault3(history).when(e.notFound("t", "w2", "a2", { at: 150 }));
      expect(spec.v2).toMatchObject([
        { type: "TaskIndeterminate" },
        { type: "RedispatchCommanded", targetWorkerId: "w1" },
      ]);
      spec.then([
        { type: "TaskIndeterminate", workerId: "w2", lastState: "TASK_STATE_WORKING" },
        {
          type: "ReconciliationBlocked",
          lastState: "TASK_STATE_WORKING",
          reason: expect.stringContaining("w1 would qualify but already lost the task in this correlation"),
        },
      ]);
      expect(spec.v3.some((d) => d.type === "TaskFailed")).toBe(false);
    });

    it("re-examines such a block: a re-probed loser never rescues it, a new worker does", () => {
      const e = events();
      const history = [
        ...probed(e, { w1: { states: noInterrupt }, w2: { states: noInterrupt } }),
        ...lostThenRedispatched(e, "working"),
        e.notFound("t", "w2", "a2", { at: 150 }),
      ];
      const w1Again = agentCard({ org: "Org-w1", version: "2", states: lifecycle, skills });
      const w4 = agentCard({ org: "Four", states: lifecycle, skills });
      const decisions = replay(
        [
          ...history,
          e.card("w1", w1Again, { at: 200 }),
          e.probe("w1", cardHash(w1Again), { at: 210, states: noInterrupt, modes: ["text/plain"] }),
          e.card("w4", w4, { at: 300 }),
          e.probe("w4", cardHash(w4), { at: 310, states: noInterrupt, modes: ["text/plain"] }),
        ],
        defaultRuleSetV3,
      ).filter(
        (d) => d.correlationId === "t" && (d.type === "RedispatchCommanded" || d.type === "ReconciliationBlocked"),
      );
      expect(decisions).toMatchObject([
        { type: "RedispatchCommanded", targetWorkerId: "w2", attempt: 2 },
        { type: "ReconciliationBlocked" },
        { type: "RedispatchCommanded", targetWorkerId: "w4", attempt: 3, decidedAt: 310 },
      ]);
    });

    it("lifts such a block the moment a loser's task is seen again, dated and caused by that sighting (not by an older probe)", () => {
      const e = events();
      const history = [
        ...probed(e, { w1: { states: noInterrupt }, w2: { states: noInterrupt } }),
        ...lostThenRedispatched(e, "working"),
        e.notFound("t", "w2", "a2", { at: 150 }),
      ];
      // w1's task a1 answers again: its TaskNotFound was not a loss, so w1 has lost nothing in this correlation.
      const sighting = e.state("t", "w1", "a1", "working", { at: 160 });
      const decisions = replay([...history, sighting], defaultRuleSetV3).filter(
        (d) => d.correlationId === "t" && (d.type === "RedispatchCommanded" || d.type === "ReconciliationBlocked"),
      );
      expect(decisions).toMatchObject([
        { type: "RedispatchCommanded", targetWorkerId: "w2", attempt: 2 },
        { type: "ReconciliationBlocked" },
        {
          type: "RedispatchCommanded",
          workerId: "w2",
          targetWorkerId: "w1",
          attempt: 3,
          decidedAt: 160,
          causeEventIds: [sighting.eventId, expect.any(String)],
        },
      ]);
      // default/2 never blocked on w1 (it went straight back to it): nothing to lift there.
      expect(
        replay([...history, sighting], defaultRuleSetV2).filter(
          (d) => d.correlationId === "t" && d.type === "ReconciliationBlocked",
        ),
      ).toEqual([]);
    });

    it("lifts it at the sighting also when the sighting decides a violation, and a later capability change does not date the command back at an older probe", () => {
      const e = events();
      const history = [
        ...probed(e, { w1: { states: noInterrupt }, w2: { states: noInterrupt } }),
        ...lostThenRedispatched(e, "working"),
        e.notFound("t", "w2", "a2", { at: 150 }),
      ];
      // w1's task a1 answers again, in a state w1's probe never verified: a violation, and w1 lost nothing after all.
      const sighting = e.state("t", "w1", "a1", "input-required", { at: 160 });
      const w3 = agentCard({ org: "Three", states: lifecycle, skills });
      const later = [
        e.card("w3", w3, { at: 200 }),
        e.probe("w3", cardHash(w3), { at: 210, states: [], modes: ["text/plain"] }),
      ];
      const before = new Set(replay(history, defaultRuleSetV3).map((d) => d.decisionId));
      const decisions = replay([...history, sighting, ...later], defaultRuleSetV3).filter(
        (d) => d.correlationId === "t" && !before.has(d.decisionId),
      );
      expect(decisions).toMatchObject([
        { type: "ContractViolation", kind: "STATE_NOT_VERIFIED", workerId: "w1", decidedAt: 160 },
        {
          type: "RedispatchCommanded",
          workerId: "w2",
          targetWorkerId: "w1",
          attempt: 3,
          decidedAt: 160,
          causeEventIds: [sighting.eventId, expect.any(String)],
        },
      ]);
      expect(decisions).toHaveLength(2);
    });
  });

  describe("a block is lifted only while its loss still needs a re-dispatch", () => {
    /** Correlation t lost on w1 while WORKING and blocked: w2 verifies nothing yet. */
    function blockedOnW1(e: Events) {
      return [
        ...probed(e, { w1: { states: noInterrupt }, w2: { states: [] } }),
        e.dispatch("t", "w1", { at: 100 }),
        e.state("t", "w1", "a1", "working", { at: 110 }),
        e.notFound("t", "w1", "a1", { at: 120 }),
      ];
    }
    const rescue = (e: Events) => {
      const w3 = agentCard({ org: "Three", states: lifecycle, skills });
      return [
        e.card("w3", w3, { at: 200 }),
        e.probe("w3", cardHash(w3), { at: 210, states: noInterrupt, modes: ["text/plain"] }),
      ];
    };
    const commands = (log: ReturnType<typeof blockedOnW1>, ruleSet: typeof defaultRuleSetV2) =>
      replay(log, ruleSet).filter(
        (d) => d.correlationId === "t" && (d.type === "RedispatchCommanded" || d.type === "ReconciliationBlocked"),
      );

    it("commands nothing once the orchestrator's own retry carries the task (default/2 re-dispatches the superseded attempt)", () => {
      const e = events();
      // The orchestrator retries on w1 by itself: a new task id there opens attempt 2, which supersedes the lost one.
      const log = [...blockedOnW1(e), e.state("t", "w1", "a2", "working", { at: 150 }), ...rescue(e)];
      expect(commands(log, defaultRuleSetV2)).toMatchObject([
        { type: "ReconciliationBlocked" },
        { type: "RedispatchCommanded", targetWorkerId: "w3", fromServerTaskId: "a1" },
      ]);
      expect(commands(log, defaultRuleSetV3)).toMatchObject([{ type: "ReconciliationBlocked" }]);
      expect(commands(log, defaultRuleSetV3)).toHaveLength(1);
    });

    it("commands nothing while the lost task is seen alive again, and reconciles it anew when it is lost again (default/2 runs it twice)", () => {
      const e = events();
      const alive = [...blockedOnW1(e), e.state("t", "w1", "a1", "working", { at: 150 }), ...rescue(e)];
      expect(commands(alive, defaultRuleSetV2)).toMatchObject([
        { type: "ReconciliationBlocked" },
        { type: "RedispatchCommanded", targetWorkerId: "w3", fromServerTaskId: "a1" },
      ]);
      expect(commands(alive, defaultRuleSetV3)).toMatchObject([{ type: "ReconciliationBlocked" }]);
      expect(commands(alive, defaultRuleSetV3)).toHaveLength(1);
      // Lost again: a loss of its own, decided by R6 at once against the table of then.
      const lostAgain = e.notFound("t", "w1", "a1", { at: 300 });
      expect(commands([...alive, lostAgain], defaultRuleSetV3)).toMatchObject([
        { type: "ReconciliationBlocked" },
        {
          type: "RedispatchCommanded",
          targetWorkerId: "w3",
          fromServerTaskId: "a1",
          decidedAt: 300,
          causeEventIds: [lostAgain.eventId],
        },
      ]);
    });
  });

  describe("a block lifted by a snapshot read late", () => {
    it("dates the re-dispatch no earlier than the correlation's latest observation, when the rescuing probe from before it is read after it", () => {
      const e = events();
      const history = [
        ...probed(e, { w1: { states: noInterrupt }, w2: { states: noInterrupt } }),
        ...lostThenRedispatched(e, "working"),
        e.notFound("t", "w2", "a2", { at: 150 }),
      ];
      // The correlation's own observation at 170 lifts nothing; w4's card and probe (160, 165) arrive after it.
      const own = e.artifact("t", "w1", "a1", { at: 170, mediaTypes: ["text/plain"] });
      const w4 = agentCard({ org: "Four", states: lifecycle, skills });
      const late = [
        e.card("w4", w4, { at: 160 }),
        e.probe("w4", cardHash(w4), { at: 165, states: noInterrupt, modes: ["text/plain"] }),
      ];
      const commands = replay([...history, own, ...late], defaultRuleSetV3).filter(
        (d) => d.correlationId === "t" && d.type === "RedispatchCommanded",
      );
      expect(commands).toMatchObject([
        { targetWorkerId: "w2", attempt: 2 },
        { targetWorkerId: "w4", attempt: 3, decidedAt: 170 },
      ]);
    });
  });

  describe("the loss of a dispatch's unanswered task is reconciled", () => {
    it("follows the TaskIndeterminate of a task id answering an open dispatch with R6, on that dispatch's terms (default/2 stops at the TaskIndeterminate)", () => {
      const e = events();
      const history = [
        ...probed(e, { w1: { states: noInterrupt }, w2: { states: noInterrupt } }),
        e.dispatch("t", "w1", { at: 100, accepted: ["text/plain"] }),
      ];
      const spec = fixedInDefault3(history).when(e.notFound("t", "w1", "x", { at: 110 }));
      expect(spec.v2).toMatchObject([
        { type: "TaskIndeterminate", workerId: "w1", serverTaskId: "x", lastState: "TASK_STATE_UNSPECIFIED" },
      ]);
      spec.then([
        { type: "TaskIndeterminate", workerId: "w1", serverTaskId: "x", attempt: 1 },
        {
          type: "RedispatchCommanded",
          targetWorkerId: "w2",
          fromServerTaskId: "x",
          skillId: "summarize",
          acceptedOutputModes: ["text/plain"],
          attempt: 2,
          resumeState: null,
        },
      ]);
    });
  });
});
