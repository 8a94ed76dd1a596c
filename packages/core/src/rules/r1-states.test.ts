/**
 * R1 (r1-states.ts): the states a worker emits, judged against the card in force (A) and, under verify,
 * against what a probe verified (V). "R1 emitted states" holds since default/1 (`givenEach` checks default/1
 * and default/2 alike); each `default/N` block holds what that version changed in R1, as specs that fail on
 * the version before (`fixedInDefaultN`, test/given.ts).
 */
import { describe, it } from "vitest";
import { agentCard, events, mesh } from "../../test/builders.ts";
import { fixedInDefault2, givenEach, given as givenUnder } from "../../test/given.ts";
import { cardHash } from "../card-hash.ts";

const card = agentCard({
  org: "Acme",
  states: ["submitted", "working", "input-required", "auth-required", "completed"],
  taskStore: "durable",
});
const verifiedWithoutAuth = [
  "TASK_STATE_SUBMITTED",
  "TASK_STATE_WORKING",
  "TASK_STATE_INPUT_REQUIRED",
  "TASK_STATE_COMPLETED",
] as const;

describe("R1 emitted states", () => {
  const given = givenEach;

  it("flags a state the card in force does not advertise, and still records it", () => {
    const e = events();
    const c = agentCard({ org: "Acme", states: ["submitted", "working", "completed"] });
    given([e.card("w1", c, { at: 1 }), e.dispatch("t", "w1", { at: 10 })])
      .when(e.state("t", "w1", "s1", "input-required", { at: 11 }))
      .then([
        {
          type: "ContractViolation",
          kind: "STATE_NOT_ADVERTISED",
          observed: "TASK_STATE_INPUT_REQUIRED",
          serverTaskId: "s1",
          cardHash: cardHash(c),
          allowed: ["TASK_STATE_SUBMITTED", "TASK_STATE_WORKING", "TASK_STATE_COMPLETED"],
        },
      ]);
  });

  it("under verify flags an advertised state the probe did not verify, once the probe verified the card", () => {
    const e = events();
    given([
      e.card("w1", card, { at: 1 }),
      e.probe("w1", cardHash(card), { at: 2, states: [...verifiedWithoutAuth], modes: ["text/plain"] }),
      e.dispatch("t", "w1", { at: 10 }),
    ])
      .when(e.state("t", "w1", "s1", "auth-required", { at: 11 }))
      .then([
        {
          type: "ContractViolation",
          kind: "STATE_NOT_VERIFIED",
          observed: "TASK_STATE_AUTH_REQUIRED",
          allowed: [...verifiedWithoutAuth],
        },
      ]);
  });

  it("does not flag unverified states before a probe verified the card: the outstanding ProbeRequested is the signal", () => {
    const e = events();
    given([e.card("w1", card, { at: 1 })])
      .when(e.state("t", "w1", "s1", "auth-required", { at: 11 }))
      .thenNothing();
  });

  it("does not flag unverified states of a trusted worker", () => {
    const e = events();
    given(
      [
        e.card("w1", card, { at: 1 }),
        e.probe("w1", cardHash(card), { at: 2, states: [...verifiedWithoutAuth], modes: ["text/plain"] }),
      ],
      { policy: { trustedVendors: ["Acme"] } },
    )
      .when(e.state("t", "w1", "s1", "auth-required", { at: 11 }))
      .thenNothing();
  });

  it("reports a violation once when several observers see the same state", () => {
    const e = events();
    const c = agentCard({ org: "Acme", states: ["working"] });
    given([e.card("w1", c, { at: 1 }), e.state("t", "w1", "s1", "completed", { at: 10, observer: "proxy" })])
      .when(e.state("t", "w1", "s1", "TASK_STATE_COMPLETED", { at: 11, observer: "orchestrator" }))
      .thenNothing();
  });

  it("never flags TASK_STATE_UNSPECIFIED (v0.3 unknown): it claims nothing", () => {
    const e = events();
    given([e.card("w1", agentCard({ org: "Acme", states: ["working"] }), { at: 1 })])
      .when(e.state("t", "w1", "s1", "unknown", { at: 10 }))
      .thenNothing();
  });

  it("judges nothing for a worker whose card was never seen", () => {
    const e = events();
    given([])
      .when(e.state("t", "w9", "s1", "working", { at: 10 }))
      .thenNothing();
  });
});

describe("default/2", () => {
  const given = givenUnder;

  describe("STATE_NOT_VERIFIED only for the states reconciliation relies on", () => {
    it("does not flag an advertised terminal failure a probe never reached", () => {
      const e = events();
      fixedInDefault2([...mesh(e), e.dispatch("t", "w2", { at: 100 })])
        .when(e.state("t", "w2", "a1", "failed", { at: 110 }))
        .thenNothing();
    });

    it("flags an advertised interrupted state the probe of the task's skill did not verify", () => {
      const e = events();
      given([...mesh(e), e.dispatch("t", "w2", { at: 100 })])
        .when(e.state("t", "w2", "a1", "input-required", { at: 110 }))
        .then([
          {
            type: "ContractViolation",
            kind: "STATE_NOT_VERIFIED",
            observed: "TASK_STATE_INPUT_REQUIRED",
            skillId: "summarize",
          },
        ]);
    });
  });
});
