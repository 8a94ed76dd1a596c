/**
 * R3 (r3-divergent.ts): the artifacts of a correlation's attempts compared output by output, a different
 * media type for the same output being DIVERGENT_ARTIFACTS. "R3 artifacts reconciled by correlation" holds
 * since default/1 (`givenEach` checks default/1 and default/2 alike; `givenV1`, default/1 only); the
 * `default/2` block holds what default/2 changed in R3, as specs that fail on default/1 (`fixedInDefault2`).
 */
import { describe, it } from "vitest";
import { agentCard, events, mesh } from "../../test/builders.ts";
import { fixedInDefault2, givenEach, given as givenUnder, givenV1 } from "../../test/given.ts";

describe("R3 artifacts reconciled by correlation", () => {
  const given = givenEach;
  const card = agentCard({ org: "Acme", skills: [{ id: "summarize", outputModes: ["text/plain", "text/markdown"] }] });

  it("treats a new server task id on the same worker as a new attempt and flags a different media type for the same output", () => {
    const e = events();
    given([
      e.card("w1", card, { at: 1 }),
      e.dispatch("t", "w1", { at: 10 }),
      e.artifact("t", "w1", "s1", { at: 11, mediaTypes: ["text/plain"] }),
    ])
      .when(e.artifact("t", "w1", "s2", { at: 21, mediaTypes: ["text/markdown"] }))
      .then([
        {
          type: "ContractViolation",
          kind: "DIVERGENT_ARTIFACTS",
          serverTaskId: "s2",
          observed: "text/markdown",
          allowed: ["text/plain"],
        },
      ]);
  });

  // default/2 compares unnamed artifacts by position instead (the default/2 block below).
  it("identifies the output by artifactId when the artifact has no name (default/1)", () => {
    const e = events();
    givenV1([
      e.dispatch("t", "w1", { at: 10 }),
      e.artifact("t", "w1", "s1", { at: 11, name: null, artifactId: "a1", mediaTypes: ["text/plain"] }),
    ])
      .when(e.artifact("t", "w1", "s2", { at: 21, name: null, artifactId: "a2", mediaTypes: ["text/markdown"] }))
      .thenNothing();
  });

  it("does not flag attempts that agree, nor a second chunk of the same attempt", () => {
    const e = events();
    given([e.dispatch("t", "w1", { at: 10 }), e.artifact("t", "w1", "s1", { at: 11, mediaTypes: ["text/plain"] })])
      .when(
        e.artifact("t", "w1", "s2", { at: 21, mediaTypes: ["text/plain"] }),
        e.artifact("t", "w1", "s2", { at: 22, mediaTypes: ["text/plain"] }),
      )
      .thenNothing();
  });

  it("reports a divergence once per output and pair of attempts", () => {
    const e = events();
    given([
      e.dispatch("t", "w1", { at: 10 }),
      e.artifact("t", "w1", "s1", { at: 11, mediaTypes: ["text/plain"] }),
      e.artifact("t", "w1", "s2", { at: 21, mediaTypes: ["text/markdown"] }),
    ])
      .when(e.artifact("t", "w1", "s2", { at: 22, mediaTypes: ["text/html"] }))
      .thenNothing();
  });
});

describe("default/2", () => {
  const given = givenUnder;

  describe("outputs compared as real traffic carries them", () => {
    it("compares the unnamed artifacts of two attempts by position although their ids differ", () => {
      const e = events();
      fixedInDefault2([
        ...mesh(e),
        e.dispatch("t", "w1", { at: 100 }),
        e.artifact("t", "w1", "a1", { at: 110, name: null, artifactId: "x-7f3", mediaTypes: ["application/json"] }),
        e.state("t", "w1", "a1", "completed", { at: 111 }),
      ])
        .when(
          e.dispatch("t", "w1", { at: 200, attempt: 2, messageId: "t-m2" }),
          e.artifact("t", "w1", "a2", { at: 210, name: null, artifactId: "y-19c", mediaTypes: ["text/plain"] }),
        )
        .then([
          { type: "ContractViolation", kind: "OUTPUT_MODE_NOT_ADVERTISED", observed: "text/plain" },
          {
            type: "ContractViolation",
            kind: "DIVERGENT_ARTIFACTS",
            output: "#1",
            attempts: [1, 2],
            observed: "text/plain",
            allowed: ["application/json"],
          },
        ]);
    });

    it("judges the streamed chunks of one artifact as one artifact, once its last chunk arrived", () => {
      const e = events();
      const card = agentCard({
        org: "Acme",
        skills: [{ id: "summarize", outputModes: ["text/plain", "application/json"] }],
      });
      fixedInDefault2([
        e.card("w1", card, { at: 1 }),
        e.dispatch("t", "w1", { at: 100 }),
        e.artifact("t", "w1", "a1", { at: 110, mediaTypes: ["text/plain", "application/json"] }),
        e.state("t", "w1", "a1", "completed", { at: 111 }),
        e.dispatch("t", "w1", { at: 200, attempt: 2, messageId: "t-m2" }),
      ])
        .when(
          e.artifact("t", "w1", "a2", { at: 210, artifactId: "s", mediaTypes: ["text/plain"], lastChunk: false }),
          e.artifact("t", "w1", "a2", {
            at: 211,
            artifactId: "s",
            mediaTypes: ["application/json"],
            append: true,
            lastChunk: true,
          }),
        )
        .thenNothing();
    });

    it("still reports a streamed artifact that diverges, once, when its task ends without a last chunk", () => {
      const e = events();
      const card = agentCard({
        org: "Acme",
        skills: [{ id: "summarize", outputModes: ["text/plain", "application/json"] }],
      });
      given([
        e.card("w1", card, { at: 1 }),
        e.dispatch("t", "w1", { at: 100 }),
        e.artifact("t", "w1", "a1", { at: 110, mediaTypes: ["application/json"] }),
        e.dispatch("t", "w1", { at: 200, attempt: 2, messageId: "t-m2" }),
        e.artifact("t", "w1", "a2", { at: 210, artifactId: "s", mediaTypes: ["text/plain"], lastChunk: false }),
      ])
        .when(
          e.state("t", "w1", "a2", "completed", { at: 220, observer: "proxy" }),
          e.state("t", "w1", "a2", "completed", { at: 221, observer: "orchestrator" }),
        )
        .then([{ type: "ContractViolation", kind: "DIVERGENT_ARTIFACTS", output: "summary", attempts: [1, 2] }]);
    });

    it("reports a divergence once however many observers report the artifact", () => {
      const e = events();
      given([
        ...mesh(e),
        e.dispatch("t", "w1", { at: 100 }),
        e.artifact("t", "w1", "a1", { at: 110, mediaTypes: ["application/json"] }),
        e.dispatch("t", "w2", { at: 200, attempt: 2, messageId: "t-m2" }),
      ])
        .when(
          e.artifact("t", "w2", "a2", { at: 210, mediaTypes: ["text/plain"], observer: "proxy" }),
          e.artifact("t", "w2", "a2", { at: 212, mediaTypes: ["text/plain"], observer: "orchestrator" }),
        )
        .then([{ type: "ContractViolation", kind: "DIVERGENT_ARTIFACTS", attempts: [1, 2] }]);
    });
  });
});
