/** The declared rule order, checked at load: every shipped version holds it, and an out-of-order or repeated rule is refused by name. */
import { describe, expect, it } from "vitest";
import { createDecider } from "../decider.ts";
import { checkRuleOrder, RuleOrderError, ruleOrder } from "./rule-order.ts";
import { defaultRuleSetV2, defaultRuleSetV3, defaultRuleSetV4, restartFromScratchRuleSet } from "./rule-sets.ts";
import { composeRules, ruleVariants } from "./variants.ts";

describe("the declared rule order", () => {
  it("holds in every shipped version, and names only rules that exist", () => {
    for (const set of [defaultRuleSetV2, restartFromScratchRuleSet, defaultRuleSetV3, defaultRuleSetV4])
      expect(() => checkRuleOrder(set.rulesVersion, set.rules)).not.toThrow();
    const ids = new Set(Object.values(ruleVariants).map((r) => r.id));
    for (const [first, after] of ruleOrder) expect([ids.has(first), ids.has(after)]).toEqual([true, true]);
  });

  it("refuses a rule set that runs R6 before R4/R5 when it is loaded, saying why", () => {
    const rules = composeRules(["R9", "R6/block", "R4-R5"]);
    expect(() => createDecider({ ...defaultRuleSetV2, rulesVersion: "custom/1", rules })).toThrow(RuleOrderError);
    expect(() => checkRuleOrder("custom/1", rules)).toThrow(
      "rule set custom/1 runs R6 before R4-R5, but R6 reconciles the TaskIndeterminate that R4/R5 decided in the same step",
    );
  });

  it("refuses a rule set that runs one rule twice, and one whose table rules come after card admission's consumers", () => {
    expect(() => checkRuleOrder("custom/2", composeRules(["R1", "R4-R5", "R4-R5/client-unseen"]))).toThrow(
      "rule set custom/2 runs rule R4-R5 twice",
    );
    expect(() => checkRuleOrder("custom/3", composeRules(["R7", "capabilities"]))).toThrow(
      /runs R7 before capabilities/,
    );
    // A pair with one rule absent constrains nothing.
    expect(() => checkRuleOrder("custom/4", composeRules(["R6/block", "R1"]))).not.toThrow();
  });
});
