/**
 * The shipped rule sets, selectable by name. A custom rule set is an object of the same shape; build it
 * from these (e.g. replace one rule by id) and give it its own rulesVersion.
 */
import { capabilities } from "./capability-rules.ts";
import { r1States } from "./r1-states.ts";
import { r2Artifacts } from "./r2-artifacts.ts";
import { r3Divergent } from "./r3-divergent.ts";
import { r4r5NotFound } from "./r4-r5-not-found.ts";
import { r6Reconcile } from "./r6-reconcile.ts";
import { r7Probes } from "./r7-probes.ts";
import { r8Cards } from "./r8-cards.ts";
import { r9Durability } from "./r9-durability.ts";
import { reconciled } from "./reconciled.ts";
import type { NamedRule, RuleSet } from "./rule.ts";

const common = (r6: NamedRule): NamedRule[] => [
  { id: "capabilities", apply: capabilities },
  { id: "R8", apply: r8Cards },
  { id: "R7", apply: r7Probes },
  { id: "R1", apply: r1States },
  { id: "R2", apply: r2Artifacts },
  { id: "R3", apply: r3Divergent },
  { id: "R9", apply: r9Durability },
  { id: "R4-R5", apply: r4r5NotFound },
  r6,
  { id: "reconciled", apply: reconciled },
];

/** DESIGN §4 as written: no eligible worker for the interrupted state → ReconciliationBlocked. */
export const defaultRuleSet: RuleSet = {
  name: "default",
  rulesVersion: "default/1",
  rules: common({ id: "R6", apply: r6Reconcile("block") }),
};

/** Variant: no worker for the interrupted state → restart from scratch on a worker that verifies completion. */
export const restartFromScratchRuleSet: RuleSet = {
  name: "restart-from-scratch",
  rulesVersion: "restart-from-scratch/1",
  rules: common({ id: "R6", apply: r6Reconcile("restart") }),
};

export const ruleSets: Readonly<Record<string, RuleSet>> = {
  [defaultRuleSet.name]: defaultRuleSet,
  [restartFromScratchRuleSet.name]: restartFromScratchRuleSet,
};

export function ruleSetByName(name: string): RuleSet | undefined {
  return Object.hasOwn(ruleSets, name) ? ruleSets[name] : undefined;
}
