/**
 * R4/R5 (r4-r5-not-found.ts): a TaskNotFound judged on the lost task's own last state — a purge (R4), a
 * loss (R5: TaskFailed under trust, TaskIndeterminate under verify), or a task id the correlation never
 * saw. "R4 purged after terminal" and "R5 lost non-terminal task" hold since default/1 (`givenEach` checks
 * default/1 and default/2 alike; `givenV1`, default/1 only); each `default/N` block holds what that version
 * changed in R4/R5 — and in the trust a loss is judged by — as specs that fail on the version before
 * (`fixedInDefaultN`, test/given.ts).
 */
import { describe, expect, it } from "vitest";
import { agentCard, all, events, lifecycle, mesh, noInterrupt, probed } from "../../test/builders.ts";
import {
  fixedInDefault2,
  fixedInDefault3,
  fixedInDefault4,
  givenEach,
  given as givenUnder,
  givenV1,
} from "../../test/given.ts";
import { cardHash } from "../card-hash.ts";
import { defaultRuleSetV2, defaultRuleSetV3, defaultRuleSetV4 } from "./rule-sets.ts";
import { attributedToWorker } from "./violations.ts";

const durableAcme = agentCard({
  org: "Acme",
  states: ["submitted", "working", "input-required", "auth-required", "completed"],
  taskStore: "durable",
});

describe("R4 purged after terminal", () => {
  const given = givenEach;

  it("takes no decision when TaskNotFound follows a terminal state", () => {
    const e = events();
    given([e.dispatch("t", "w1", { at: 10 }), e.state("t", "w1", "s1", "completed", { at: 11 })])
      .when(e.notFound("t", "w1", "s1", { at: 99 }))
      .thenNothing();
  });

  it("treats a stale non-terminal report after the terminal state as no change (terminal is absorbing)", () => {
    const e = events();
    given([
      e.dispatch("t", "w1", { at: 10 }),
      e.state("t", "w1", "s1", "completed", { at: 11, observer: "proxy" }),
      e.state("t", "w1", "s1", "working", { at: 50, observer: "orchestrator" }),
    ])
      .when(e.notFound("t", "w1", "s1", { at: 99 }))
      .thenNothing();
  });
});

describe("R5 lost non-terminal task", () => {
  const given = givenEach;

  it("under trust (listed vendor, durable store) fails the task", () => {
    const e = events();
    given(
      [
        e.card("w1", durableAcme, { at: 1 }),
        e.dispatch("t", "w1", { at: 10 }),
        e.state("t", "w1", "s1", "working", { at: 11 }),
      ],
      { policy: { trustedVendors: ["Acme"] } },
    )
      .when(e.notFound("t", "w1", "s1", { at: 99 }))
      .then([{ type: "TaskFailed", serverTaskId: "s1", lastState: "TASK_STATE_WORKING", workerId: "w1" }]);
  });

  it("verifies a listed vendor whose card does not claim a durable store: indeterminate, not failed", () => {
    const e = events();
    const ephemeral = agentCard({ org: "Acme", states: ["working"], taskStore: "ephemeral" });
    given(
      [
        e.card("w1", ephemeral, { at: 1 }),
        e.dispatch("t", "w1", { at: 10 }),
        e.state("t", "w1", "s1", "working", { at: 11 }),
      ],
      { policy: { trustedVendors: ["Acme"] } },
    )
      .when(e.notFound("t", "w1", "s1", { at: 99 }))
      .then([{ type: "TaskIndeterminate" }, { type: "ReconciliationBlocked" }]);
  });

  it("makes an auth-required task indeterminate and resumes it on a worker verifying auth-required", () => {
    const e = events();
    const auth = ["TASK_STATE_SUBMITTED", "TASK_STATE_AUTH_REQUIRED", "TASK_STATE_COMPLETED"] as const;
    const other = agentCard({ org: "Other", states: ["submitted", "auth-required", "completed"] });
    given([
      e.card("w1", durableAcme, { at: 1 }),
      e.card("w2", other, { at: 1 }),
      e.probe("w2", cardHash(other), { at: 2, states: [...auth], modes: ["text/plain"], durable: true }),
      e.dispatch("t", "w1", { at: 10 }),
      e.state("t", "w1", "s1", "auth-required", { at: 11, via: "push" }),
    ])
      .when(e.notFound("t", "w1", "s1", { at: 99 }))
      .then([
        { type: "TaskIndeterminate", lastState: "TASK_STATE_AUTH_REQUIRED" },
        { type: "RedispatchCommanded", targetWorkerId: "w2", resumeState: "TASK_STATE_AUTH_REQUIRED" },
      ]);
  });

  it("decides once when several observers report the same loss", () => {
    const e = events();
    given([
      e.dispatch("t", "w1", { at: 10 }),
      e.state("t", "w1", "s1", "working", { at: 11 }),
      e.notFound("t", "w1", "s1", { at: 90, observer: "proxy" }),
    ])
      .when(e.notFound("t", "w1", "s1", { at: 91, observer: "orchestrator" }))
      .thenNothing();
  });

  // A second loss under the same id as the first (a producer that named no sighting in it) is a new loss
  // only under default/4 (rule-sets.test.ts, "default/4").
  it("decides a loss after the task was seen again as a new loss, under the new id its producer derives", () => {
    // Producers name the last sighting in a TaskNotFound's id (ingest-client task-sightings.ts): the second
    // loss arrives with an id of its own, and the task, no longer standing lost once seen again, is lost again.
    for (const ruleSet of [defaultRuleSetV2, defaultRuleSetV3]) {
      const e = events();
      givenUnder(
        [
          e.dispatch("t", "w1", { at: 10 }),
          e.state("t", "w1", "s1", "working", { at: 11 }),
          e.notFound("t", "w1", "s1", { at: 20 }),
          e.state("t", "w1", "s1", "input-required", { at: 30 }),
        ],
        { ruleSet },
      )
        .when(e.notFound("t", "w1", "s1", { at: 40 }))
        .then([
          { type: "TaskIndeterminate", workerId: "w1", serverTaskId: "s1", lastState: "TASK_STATE_INPUT_REQUIRED" },
          // No other worker to take it: blocked, as after the first loss.
          { type: "ReconciliationBlocked" },
        ]);
    }
  });

  // default/2 never drops a loss: it is indeterminate, without a re-dispatch (the default/2 block below).
  it("ignores TaskNotFound for a task of a superseded attempt (default/1)", () => {
    const e = events();
    givenV1([
      e.dispatch("t", "w1", { at: 10 }),
      e.state("t", "w1", "s1", "working", { at: 11 }),
      e.dispatch("t", "w2", { at: 20, attempt: 2 }),
      e.state("t", "w2", "s2", "working", { at: 21 }),
    ])
      .when(e.notFound("t", "w1", "s1", { at: 99 }))
      .thenNothing();
  });

  it("reports an unobserved task as lost in TASK_STATE_UNSPECIFIED", () => {
    const e = events();
    const { decisions } = given([e.dispatch("t", "w1", { at: 10 })]).when(e.notFound("t", "w1", "s1", { at: 99 }));
    expect(decisions[0]).toMatchObject({
      type: "TaskIndeterminate",
      lastState: "TASK_STATE_UNSPECIFIED",
      lastObserver: "",
    });
  });
});

describe("default/2", () => {
  const given = givenUnder;

  describe("losses are judged per server task", () => {
    it("never lets another attempt's terminal state, seen by an observer with a later clock, silence a loss", () => {
      const e = events();
      fixedInDefault2([
        ...mesh(e),
        e.dispatch("t", "w1", { at: 100_000 }),
        e.state("t", "w1", "a1", "failed", { at: 100_100, observer: "orchestrator" }),
        e.dispatch("t", "w2", { at: 101_000, attempt: 2, messageId: "t-m2" }),
        // the proxy in front of w2 runs a minute behind
        e.state("t", "w2", "a2", "input-required", { at: 41_000, observer: "proxy" }),
      ])
        .when(e.notFound("t", "w2", "a2", { at: 42_000, observer: "proxy" }))
        .then([
          {
            type: "TaskIndeterminate",
            workerId: "w2",
            serverTaskId: "a2",
            lastState: "TASK_STATE_INPUT_REQUIRED",
            attempt: 2,
          },
          { type: "RedispatchCommanded", targetWorkerId: "w3", resumeState: "TASK_STATE_INPUT_REQUIRED", attempt: 3 },
        ]);
    });

    it("merges the last state over observers per server task: a late report about attempt 1 never sets attempt 2's resume state", () => {
      const e = events();
      fixedInDefault2([
        ...mesh(e),
        e.dispatch("t", "w1", { at: 100 }),
        e.state("t", "w1", "a1", "working", { at: 110 }),
        e.notFound("t", "w1", "a1", { at: 120 }),
        e.dispatch("t", "w3", { at: 130, attempt: 2, messageId: "t-m2" }),
        e.state("t", "w3", "a2", "input-required", { at: 140, observer: "proxy" }),
        // the orchestrator reports what it saw of attempt 1, later
        e.state("t", "w1", "a1", "working", { at: 150, observer: "orchestrator" }),
      ])
        .when(e.notFound("t", "w3", "a2", { at: 160 }))
        .then([
          {
            type: "TaskIndeterminate",
            workerId: "w3",
            serverTaskId: "a2",
            lastState: "TASK_STATE_INPUT_REQUIRED",
            lastObserver: "proxy",
          },
          { type: "ReconciliationBlocked", lastState: "TASK_STATE_INPUT_REQUIRED" },
        ]);
    });

    it("identifies a task by (workerId, serverTaskId): the same id ended on another worker is no purge", () => {
      const e = events();
      fixedInDefault2([
        ...mesh(e),
        e.dispatch("t", "w1", { at: 100 }),
        e.state("t", "w1", "task-1", "completed", { at: 110 }),
        e.dispatch("t", "w2", { at: 120, attempt: 2, messageId: "t-m2" }),
        e.state("t", "w2", "task-1", "working", { at: 130 }),
      ])
        .when(e.notFound("t", "w2", "task-1", { at: 140 }))
        .then([
          { type: "TaskIndeterminate", workerId: "w2", serverTaskId: "task-1", lastState: "TASK_STATE_WORKING" },
          { type: "RedispatchCommanded", targetWorkerId: "w1", resumeState: null },
        ]);
    });

    it("yields its own decision for a TaskNotFound of a task id the correlation never saw, not another task's loss", () => {
      const e = events();
      fixedInDefault2([
        ...mesh(e),
        e.dispatch("t", "w1", { at: 100 }),
        e.state("t", "w1", "a1", "working", { at: 110 }),
      ])
        .when(e.notFound("t", "w1", "someone-elses-task", { at: 120 }))
        .then([
          {
            type: "ContractViolation",
            kind: "UNSEEN_TASK_NOT_FOUND",
            workerId: "w1",
            serverTaskId: "someone-elses-task",
          },
        ]);
    });

    it("purges a task that ended, whatever the other attempts do (R4)", () => {
      const e = events();
      given([...mesh(e), e.dispatch("t", "w1", { at: 100 }), e.state("t", "w1", "a1", "completed", { at: 110 })])
        .when(e.notFound("t", "w1", "a1", { at: 120 }))
        .thenNothing();
    });
  });

  describe("trust is revoked by evidence", () => {
    it("puts a trusted worker whose parked canary was lost under verify: its later loss is indeterminate, not failed", () => {
      const e = events();
      const card = agentCard({ org: "Acme", states: lifecycle, taskStore: "durable" });
      fixedInDefault2(
        [
          e.card("w1", card, { at: 1 }),
          e.probe("w1", cardHash(card), {
            at: 2,
            corr: "probe-w1",
            states: all,
            modes: ["text/plain"],
            canaries: [{ serverTaskId: "canary", state: "input-required" }],
          }),
          e.notFound("probe-w1", "w1", "canary", { at: 50, observer: "dispatcher" }),
          e.dispatch("t", "w1", { at: 100 }),
          e.state("t", "w1", "a1", "working", { at: 110 }),
        ],
        { policy: { trustedVendors: ["Acme"] } },
      )
        .when(e.notFound("t", "w1", "a1", { at: 120 }))
        .then([
          { type: "TaskIndeterminate", workerId: "w1", reason: expect.stringContaining("under verify") },
          { type: "ReconciliationBlocked" },
        ]);
    });

    it("still fails a lost task of a trusted worker with a durable claim and no evidence against it", () => {
      const e = events();
      const card = agentCard({ org: "Acme", states: lifecycle, taskStore: "durable" });
      given(
        [
          e.card("w1", card, { at: 1 }),
          e.dispatch("t", "w1", { at: 100 }),
          e.state("t", "w1", "a1", "working", { at: 110 }),
        ],
        { policy: { trustedVendors: ["Acme"] } },
      )
        .when(e.notFound("t", "w1", "a1", { at: 120 }))
        .then([{ type: "TaskFailed", workerId: "w1", lastState: "TASK_STATE_WORKING" }]);
    });
  });
});

describe("default/3", () => {
  const given = givenUnder;

  describe("attributable violations", () => {
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
});

describe("default/4", () => {
  const given = givenUnder;
  /** A policy that trusts vendor Acme. */
  const acme = { policy: { trustedVendors: ["Acme"] } };

  describe("the trust in force before a loss governs it; the loss is evidence for what follows", () => {
    /** w1 (vendor Acme, claiming a durable task store) and w3, both verifying every state. */
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
  });
});
