import { describe, expect, it } from "vitest";
import { agentCard, events } from "../../test/builders.ts";
import { given as givenUnder, givenEach as given, givenV1 } from "../../test/given.ts";
import { defaultRuleSet, defaultRuleSetV3 } from "./rule-sets.ts";
import { cardHash } from "../card-hash.ts";

const durableAcme = agentCard({
  org: "Acme",
  states: ["submitted", "working", "input-required", "auth-required", "completed"],
  taskStore: "durable",
});

describe("R4 purged after terminal", () => {
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

  it("decides a loss after the task was seen again as a new loss, under the new id its producer derives", () => {
    // Producers name the last sighting in a TaskNotFound's id (ingest-client task-sightings.ts): the second
    // loss arrives with an id of its own, and the task, no longer standing lost once seen again, is lost again.
    for (const ruleSet of [defaultRuleSet, defaultRuleSetV3]) {
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

  // default/2 never drops a loss: it is indeterminate, without a re-dispatch (default-2.test.ts).
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
