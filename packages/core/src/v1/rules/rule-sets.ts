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
import type { RuleSetV1 } from "../../rule-set.ts";
import { decisionsOnly, partial, type NamedRule } from "./rule.ts";

const common = (r6: NamedRule): NamedRule[] => [
  { id: "capabilities", apply: partial(capabilities) },
  { id: "R8", apply: decisionsOnly(r8Cards) },
  { id: "R7", apply: decisionsOnly(r7Probes) },
  { id: "R1", apply: decisionsOnly(r1States) },
  { id: "R2", apply: decisionsOnly(r2Artifacts) },
  { id: "R3", apply: decisionsOnly(r3Divergent) },
  { id: "R9", apply: partial(r9Durability) },
  { id: "R4-R5", apply: decisionsOnly(r4r5NotFound) },
  r6,
  { id: "reconciled", apply: decisionsOnly(reconciled) },
];

/** DESIGN §4 as written: no eligible worker for the interrupted state → ReconciliationBlocked. */
export const defaultRuleSetV1: RuleSetV1 = {
  name: "default",
  model: "correlation/1",
  rulesVersion: "default/1",
  rules: common({ id: "R6", apply: decisionsOnly(r6Reconcile("block")) }),
};

/** Variant: no worker for the interrupted state → restart from scratch on a worker that verifies completion. */
export const restartFromScratchRuleSetV1: RuleSetV1 = {
  name: "restart-from-scratch",
  model: "correlation/1",
  rulesVersion: "restart-from-scratch/1",
  rules: common({ id: "R6", apply: decisionsOnly(r6Reconcile("restart")) }),
};
