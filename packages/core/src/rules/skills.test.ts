/**
 * The skills rule (skills.ts): a dispatch to a skill the card in force does not list is SKILL_NOT_ADVERTISED,
 * and R2 does not judge its artifacts against the card's defaultOutputModes instead. New in default/2: the
 * `default/2` block holds it as a spec that fails on default/1 (`fixedInDefault2`, test/given.ts).
 */
import { describe, it } from "vitest";
import { agentCard, events } from "../../test/builders.ts";
import { fixedInDefault2 } from "../../test/given.ts";

describe("default/2", () => {
  describe("a dispatch to a skill the card in force does not list", () => {
    it("flags a dispatch to a skill the card in force does not list, and does not judge its artifacts against defaultOutputModes", () => {
      const e = events();
      const card = agentCard({ org: "Acme", defaultOutputModes: ["text/csv"], skills: [{ id: "other" }] });
      const history = [e.card("w1", card, { at: 1 })];
      fixedInDefault2(history)
        .when(
          e.dispatch("t", "w1", { at: 10, skillId: "summarize" }),
          e.artifact("t", "w1", "s1", { at: 13, mediaTypes: ["text/plain"] }),
        )
        .then([
          {
            type: "ContractViolation",
            kind: "SKILL_NOT_ADVERTISED",
            observed: "summarize",
            allowed: ["other"],
            skillId: "summarize",
          },
        ]);
    });
  });
});
