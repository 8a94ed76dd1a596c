/**
 * R2 (r2-artifacts.ts): artifacts judged at emission, against the card in force then, the dispatch's
 * accepted output modes and, under verify, what a probe saw emitted. "R2 artifacts at emission" holds since
 * default/1 (`givenEach` checks default/1 and default/2 alike; `givenV1`, default/1 only); the `default/2`
 * block holds what default/2 changed in R2, as a spec that fails on default/1 (`fixedInDefault2`).
 */
import { describe, it } from "vitest";
import { agentCard, events, noInterrupt } from "../../test/builders.ts";
import { fixedInDefault2, givenEach as given, givenV1 } from "../../test/given.ts";
import { cardHash } from "../card-hash.ts";

const v1 = agentCard({ org: "Acme", skills: [{ id: "summarize", outputModes: ["text/plain", "application/pdf"] }] });
const v2 = agentCard({ org: "Acme", version: "2", skills: [{ id: "summarize", outputModes: ["text/plain"] }] });

describe("R2 artifacts at emission", () => {
  it("checks an artifact against the card in force at emission, not the card at dispatch", () => {
    const e = events();
    given([
      e.card("w1", v1, { at: 1 }),
      e.dispatch("t", "w1", { at: 10, cardHash: cardHash(v1) }),
      e.state("t", "w1", "s1", "working", { at: 11 }),
      e.card("w1", v2, { at: 12 }),
    ])
      .when(e.artifact("t", "w1", "s1", { at: 13, mediaTypes: ["application/pdf"] }))
      .then([
        {
          type: "ContractViolation",
          kind: "OUTPUT_MODE_NOT_ADVERTISED",
          observed: "application/pdf",
          allowed: ["text/plain"],
          cardHash: cardHash(v2),
        },
      ]);
  });

  it("uses the card in force at the artifact's time even when a newer card was logged first", () => {
    const e = events();
    given([e.card("w1", v1, { at: 1 }), e.dispatch("t", "w1", { at: 10 }), e.card("w1", v2, { at: 20 })])
      .when(e.artifact("t", "w1", "s1", { at: 15, mediaTypes: ["application/pdf"] }))
      .thenNothing();
  });

  it("flags media types outside the dispatch's acceptedOutputModes as not negotiated", () => {
    const e = events();
    given([e.card("w1", v1, { at: 1 }), e.dispatch("t", "w1", { at: 10, accepted: ["text/plain"] })])
      .when(e.artifact("t", "w1", "s1", { at: 13, mediaTypes: ["application/pdf; version=1.7"] }))
      .then([
        {
          type: "ContractViolation",
          kind: "OUTPUT_MODE_NOT_NEGOTIATED",
          observed: "application/pdf",
          allowed: ["text/plain"],
        },
      ]);
  });

  it("accepts anything when the dispatch accepted nothing in particular", () => {
    const e = events();
    given([e.card("w1", v1, { at: 1 }), e.dispatch("t", "w1", { at: 10, accepted: [] })])
      .when(e.artifact("t", "w1", "s1", { at: 13, mediaTypes: ["application/pdf"] }))
      .thenNothing();
  });

  it("under verify flags an advertised media type the probe never saw emitted", () => {
    const e = events();
    given([
      e.card("w1", v1, { at: 1 }),
      e.probe("w1", cardHash(v1), { at: 2, states: ["TASK_STATE_COMPLETED"], modes: ["text/plain"] }),
      e.dispatch("t", "w1", { at: 10 }),
    ])
      .when(e.artifact("t", "w1", "s1", { at: 13, mediaTypes: ["application/pdf"] }))
      .then([
        {
          type: "ContractViolation",
          kind: "OUTPUT_MODE_NOT_VERIFIED",
          observed: "application/pdf",
          allowed: ["text/plain"],
        },
      ]);
  });

  // default/2 flags the dispatch as SKILL_NOT_ADVERTISED instead (skills.test.ts).
  it("falls back to defaultOutputModes for a skill the card does not list (default/1)", () => {
    const e = events();
    const c = agentCard({ org: "Acme", defaultOutputModes: ["text/csv"], skills: [{ id: "other" }] });
    givenV1([e.card("w1", c, { at: 1 }), e.dispatch("t", "w1", { at: 10, skillId: "summarize" })])
      .when(e.artifact("t", "w1", "s1", { at: 13, mediaTypes: ["text/plain"] }))
      .then([{ type: "ContractViolation", kind: "OUTPUT_MODE_NOT_ADVERTISED", allowed: ["text/csv"] }]);
  });
});

describe("default/2", () => {
  describe("OUTPUT_MODE_NOT_VERIFIED per skill", () => {
    it("judges OUTPUT_MODE_NOT_VERIFIED against what the probe of the task's own skill emitted", () => {
      const e = events();
      const card = agentCard({
        org: "Acme",
        skills: [
          { id: "summarize", outputModes: ["text/plain", "application/json"] },
          { id: "extract", outputModes: ["text/plain", "application/json"] },
        ],
      });
      fixedInDefault2([
        e.card("w1", card, { at: 1 }),
        e.probe("w1", cardHash(card), { at: 2, states: noInterrupt, modes: ["text/plain"], skillId: "summarize" }),
        e.probe("w1", cardHash(card), { at: 3, states: noInterrupt, modes: ["application/json"], skillId: "extract" }),
        e.dispatch("t", "w1", { at: 10, skillId: "summarize" }),
      ])
        .when(e.artifact("t", "w1", "s1", { at: 13, mediaTypes: ["application/json"] }))
        .then([
          {
            type: "ContractViolation",
            kind: "OUTPUT_MODE_NOT_VERIFIED",
            observed: "application/json",
            allowed: ["text/plain"],
            skillId: "summarize",
          },
        ]);
    });
  });
});
