/**
 * The order rules must run in, declared once, and checked whenever a rule set is loaded (the decider
 * checks every rule set it is given, shipped or custom). Rules of one step see the decisions earlier
 * rules took (`emitted`) and the table with earlier rules' updates (`capabilities`), so an order that
 * reads a result before it exists would decide silently otherwise. Each pair names its reason; a pair
 * whose rules are not both present constrains nothing.
 */
import type { NamedRule } from "./rule.ts";

/** [runs first, runs after, why]. By rule id, so every variant of a rule is held to it. */
export const ruleOrder: readonly (readonly [string, string, string])[] = [
  ["card-admission", "capabilities", "a card must be admitted before the table learns from it"],
  ["capabilities", "R7", "R7 judges first contact by the policy of the card the table just took"],
  ["R9", "R4-R5", "R4/R5 judge a loss with the table after a lost canary revoked it"],
  ["R9-tasks", "R4-R5", "R4/R5 judge a loss with the table after a lost task revoked it"],
  ["R4-R5", "R6", "R6 reconciles the TaskIndeterminate that R4/R5 decided in the same step"],
];

export class RuleOrderError extends Error {
  override name = "RuleOrderError";
}

/** Throws, naming the rule set and the pair, when two rules run out of the declared order or an id repeats. */
export function checkRuleOrder(rulesVersion: string, rules: readonly NamedRule[]): void {
  const position = new Map<string, number>();
  rules.forEach((r, i) => {
    if (position.has(r.id)) throw new RuleOrderError(`rule set ${rulesVersion} runs rule ${r.id} twice`);
    position.set(r.id, i);
  });
  for (const [first, after, why] of ruleOrder) {
    const a = position.get(first);
    const b = position.get(after);
    if (a !== undefined && b !== undefined && a > b)
      throw new RuleOrderError(`rule set ${rulesVersion} runs ${after} before ${first}, but ${why}`);
  }
}
