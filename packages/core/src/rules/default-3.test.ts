/**
 * What default/3 decides differently from default/2: one spec per change, each run on both versions —
 * fixedInDefault3 checks that default/2 decides otherwise (and several specs pin what it decides), and
 * that default/3 decides what the spec says.
 */
import { describe, expect, it } from "vitest";
import { agentCard, all, events, lifecycle, noInterrupt, probed, skills } from "../../test/builders.ts";
import { fixedInDefault3, given } from "../../test/given.ts";
import { cardHash } from "../card-hash.ts";
import { replay } from "../replay.ts";
import { defaultRuleSet, defaultRuleSetV3, ruleSetByName } from "./rule-sets.ts";
import { attributedToWorker } from "./violations.ts";

/** Correlation t: lost on w1 in `state`, re-dispatched (attempt 2) to w2 and seen there in `state` again. */
type Events = ReturnType<typeof events>;

function lostThenRedispatched(e: Events, state: string) {
  return [
    e.dispatch("t", "w1", { at: 100 }),
    e.state("t", "w1", "a1", state, { at: 110 }),
    e.notFound("t", "w1", "a1", { at: 120 }),
    e.dispatch("t", "w2", { at: 130, attempt: 2, messageId: "t-m2" }),
    e.state("t", "w2", "a2", state, { at: 140 }),
  ];
}

describe("default/3: loss chains", () => {
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
      replay([...history, sighting], defaultRuleSet).filter(
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

describe("default/3: a block is lifted only while its loss still needs a re-dispatch", () => {
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
  const commands = (log: ReturnType<typeof blockedOnW1>, ruleSet: typeof defaultRuleSet) =>
    replay(log, ruleSet).filter(
      (d) => d.correlationId === "t" && (d.type === "RedispatchCommanded" || d.type === "ReconciliationBlocked"),
    );

  it("commands nothing once the orchestrator's own retry carries the task (default/2 re-dispatches the superseded attempt)", () => {
    const e = events();
    // The orchestrator retries on w1 by itself: a new task id there opens attempt 2, which supersedes the lost one.
    const log = [...blockedOnW1(e), e.state("t", "w1", "a2", "working", { at: 150 }), ...rescue(e)];
    expect(commands(log, defaultRuleSet)).toMatchObject([
      { type: "ReconciliationBlocked" },
      { type: "RedispatchCommanded", targetWorkerId: "w3", fromServerTaskId: "a1" },
    ]);
    expect(commands(log, defaultRuleSetV3)).toMatchObject([{ type: "ReconciliationBlocked" }]);
    expect(commands(log, defaultRuleSetV3)).toHaveLength(1);
  });

  it("commands nothing while the lost task is seen alive again, and reconciles it anew when it is lost again (default/2 runs it twice)", () => {
    const e = events();
    const alive = [...blockedOnW1(e), e.state("t", "w1", "a1", "working", { at: 150 }), ...rescue(e)];
    expect(commands(alive, defaultRuleSet)).toMatchObject([
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

describe("default/3: a block lifted by a snapshot read late", () => {
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

describe("default/3: a real task lost in an interrupted state is evidence against the worker's V", () => {
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

describe("default/3: attributable violations", () => {
  it("records a TaskNotFound for a task id no observer saw as the client's mistake, which does not count against the worker", () => {
    const e = events();
    const history = [
      ...probed(e, { w1: { states: noInterrupt } }),
      e.dispatch("t", "w1", { at: 100 }),
      e.state("t", "w1", "a1", "working", { at: 110 }),
    ];
    const spec = fixedInDefault3(history).when(e.notFound("t", "w1", "tck-made-up-id", { at: 120 }));
    expect(spec.v2).toMatchObject([{ type: "ContractViolation", kind: "UNSEEN_TASK_NOT_FOUND", workerId: "w1" }]);
    const [d] = spec.then([
      {
        type: "ContractViolation",
        kind: "CLIENT_UNKNOWN_TASK",
        workerId: "w1",
        serverTaskId: "tck-made-up-id",
        observed: "TaskNotFound (-32001 on GetTask)",
      },
    ]);
    expect(d?.type === "ContractViolation" && attributedToWorker(d.kind)).toBe(false);
    expect(attributedToWorker("UNSEEN_TASK_NOT_FOUND")).toBe(true);
  });

  it("records each unknown id once, however many observers report it", () => {
    const e = events();
    const history = [
      ...probed(e, { w1: { states: noInterrupt } }),
      e.dispatch("t", "w1", { at: 100 }),
      e.state("t", "w1", "a1", "working", { at: 105 }),
    ];
    const probes = given(history, { ruleSet: defaultRuleSetV3 }).when(
      e.notFound("t", "w1", "probe-1", { at: 110 }),
      e.notFound("t", "w1", "probe-1", { at: 111, observer: "proxy" }),
      e.notFound("t", "w1", "probe-2", { at: 112 }),
    );
    expect(
      probes.decisions.map((d) => (d.type === "ContractViolation" ? `${d.kind}:${d.serverTaskId}` : d.type)),
    ).toEqual(["CLIENT_UNKNOWN_TASK:probe-1", "CLIENT_UNKNOWN_TASK:probe-2"]);
  });
});

describe("default/3: the loss of a dispatch's unanswered task is reconciled", () => {
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

describe("default/3 as a rule set", () => {
  it("is loaded by its version, beside default/2 (what `default` still names) and its frozen rules", () => {
    expect(ruleSetByName("default")).toBe(defaultRuleSet);
    expect(ruleSetByName("default/3")).toBe(defaultRuleSetV3);
    expect(ruleSetByName("default/2")).toBe(defaultRuleSet);
    expect(defaultRuleSetV3.rules.map((r) => r.id)).toEqual([
      "capabilities",
      "R8",
      "R7",
      "skills",
      "R1",
      "R2",
      "R3",
      "R9",
      "R9-tasks",
      "R4-R5",
      "R6",
      "reconciled",
    ]);
    const e = events();
    const decisions = replay(
      [
        ...probed(e, { w1: { states: noInterrupt } }),
        e.dispatch("t", "w1", { at: 100 }),
        e.notFound("t", "w1", "a1", { at: 110 }),
      ],
      defaultRuleSetV3,
    );
    expect(new Set(decisions.map((d) => d.rulesVersion))).toEqual(new Set(["default/3"]));
  });
});
