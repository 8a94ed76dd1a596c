import { describe, it } from "vitest";
import { agentCard, events } from "../../test/builders.ts";
import { givenEach as given, givenV1 } from "../../test/given.ts";

const card = agentCard({ org: "Acme", skills: [{ id: "summarize", outputModes: ["text/plain", "text/markdown"] }] });

describe("R3 artifacts reconciled by correlation", () => {
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

  // default/2 compares unnamed artifacts by position instead (default-2.test.ts).
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
