/**
 * The shipped rule sets as wholes (rule-sets.ts), not one rule of them: how a version is loaded and what it
 * runs, and what a version changed in how its decider takes observations rather than in a rule — default/4's
 * `lossesAfterSighting`, by which a task lost, seen again and lost again is two losses. One `default/N` block
 * per version. What a version changed in a rule is in that rule's spec file (r1-states.test.ts, …), in its
 * `default/N` block; the declared rule order is rule-order.test.ts's.
 */
import type { Observation } from "@a2a-ledger/schemas";
import { describe, expect, it } from "vitest";
import { all, events, noInterrupt, probed } from "../../test/builders.ts";
import { replay } from "../replay.ts";
import type { RuleSet } from "../rule-set.ts";
import { defaultRuleSetV2, defaultRuleSetV3, defaultRuleSetV4, ruleSetByName } from "./rule-sets.ts";

describe("default/3", () => {
  describe("as a rule set", () => {
    it("is loaded by its version, beside default/2 and default/4 (what `default` names) and its frozen rules", () => {
      expect(ruleSetByName("default")).toBe(defaultRuleSetV4);
      expect(ruleSetByName("default/4")).toBe(defaultRuleSetV4);
      expect(ruleSetByName("default/3")).toBe(defaultRuleSetV3);
      expect(ruleSetByName("default/2")).toBe(defaultRuleSetV2);
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
});

describe("default/4", () => {
  /**
   * The decisions `event` adds after `history` (the spec helpers tell a \`when\` event's decisions by its
   * eventId, which these specs repeat on purpose).
   */
  const decidedAfter = (ruleSet: RuleSet, history: readonly Observation[], event: Observation) =>
    replay([...history, event], ruleSet).slice(replay(history, ruleSet).length);

  describe("a task lost, seen again and lost again is two losses", () => {
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
});
