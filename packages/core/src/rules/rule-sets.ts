/**
 * The shipped rule sets, by name and by version: `default` names default/4 (what the reconciler runs
 * unless A2A_LEDGER_RULES says otherwise) and `restart-from-scratch` restart-from-scratch/2; default/2
 * and default/3 stay loadable by their versions (`--baseline default/2`, A2A_LEDGER_RULES=default/3), and
 * `default/1` and `restart-from-scratch/1` remain, all frozen, for replays. Each version lists the named rule variants it runs, in order
 * (variants.ts); the decider checks that order against the declared one (rule-order.ts) when it loads a set.
 */
import type { RuleSet, RuleSetV2 } from "../rule-set.ts";
import { defaultRuleSetV1, restartFromScratchRuleSetV1 } from "../v1/rules/rule-sets.ts";
import { fallbackRestart } from "./fallback.ts";
import { composeRules, neverBackTakeOver, recoveries, type RuleVariant } from "./variants.ts";

/** What default/2 runs, in order (variants.ts names each variant). */
const default2: readonly RuleVariant[] = [
  "capabilities",
  "R8",
  "R7",
  "skills",
  "R1",
  "R2",
  "R3",
  "R9",
  "R4-R5",
  "R6/block",
  "reconciled",
];

/** restart-from-scratch/2: default/2 but R6 restarts from scratch where default/2 blocks. */
const restartFromScratch2: readonly RuleVariant[] = default2.map((r) => (r === "R6/block" ? "R6/restart" : r));

/** What default/3 runs: never back to losers (R6), lost real tasks as evidence (R9-tasks), unseen ids the client's. */
const default3: readonly RuleVariant[] = [
  "capabilities",
  "R8",
  "R7",
  "skills",
  "R1",
  "R2",
  "R3",
  "R9",
  "R9-tasks/interrupted",
  "R4-R5/client-unseen",
  "R6/block-never-back",
  "reconciled",
];

/**
 * What default/4 runs: default/3's with cards admitted first, trust before the loss, a durable claim's
 * loss as evidence, and a revocation earned back (a revoked card re-probed; a canary that outlived a restart).
 */
const default4: readonly RuleVariant[] = [
  "card-admission",
  "capabilities/admitted-cards",
  "R8/admitted-cards",
  "R7/admitted-cards",
  "R7-reprobe/admitted-cards",
  "skills",
  "R1",
  "R2",
  "R3",
  "R9",
  "R9-tasks/interrupted-or-durable-claim",
  "R9-earn-back",
  "R4-R5/client-unseen+before-the-loss",
  "R6/block-never-back+fallback",
  "reconciled",
  "resolve",
];

/** DESIGN §4 with the default/2 fixes (frozen): no eligible worker for the interrupted state → ReconciliationBlocked. */
export const defaultRuleSetV2: RuleSetV2 = {
  name: "default",
  rulesVersion: "default/2",
  model: "correlation/2",
  rules: composeRules(default2),
  recover: recoveries.block,
};

/** Variant: no worker for the interrupted state → restart from scratch on a worker that verifies completion. */
export const restartFromScratchRuleSet: RuleSetV2 = {
  name: "restart-from-scratch",
  rulesVersion: "restart-from-scratch/2",
  model: "correlation/2",
  rules: composeRules(restartFromScratch2),
  recover: recoveries.restart,
};

/**
 * default/2 with the default/3 changes (packages/core/README.md): a task lost again never goes back to a
 * worker that already lost it in the correlation; a real task lost in an interrupted state revokes the
 * worker's interrupted states like a lost canary (R9 for tasks); a TaskNotFound for a task id no observer
 * saw is the client's (CLIENT_UNKNOWN_TASK), not the worker's violation; the loss of a dispatch's
 * unanswered task is reconciled (R6) like any other.
 */
export const defaultRuleSetV3: RuleSetV2 = {
  name: "default",
  rulesVersion: "default/3",
  model: "correlation/2",
  rules: composeRules(default3),
  recover: recoveries["block-never-back"],
  takeOver: neverBackTakeOver,
};

/**
 * default/3 with the default/4 changes so far (packages/core/README.md, "default/4"): a task lost, seen
 * again and lost again is two losses, also under the one eventId producers derived before they named the
 * last sighting (`lossesAfterSighting`); the trust in force before a loss governs it (R4/R5 judge by the
 * table before the loss's own evidence), and the loss is evidence for what follows — under a card that
 * claims a durable task store, a task lost in any state that is not terminal marks it not durable; a
 * card replaces the one in force only when admitted (card-admission.ts: a failed or dropped signature is
 * a violation, another vendor's sighting is not taken).
 * What `default` names.
 */
export const defaultRuleSetV4: RuleSetV2 = {
  name: "default",
  rulesVersion: "default/4",
  model: "correlation/2",
  rules: composeRules(default4),
  recover: recoveries["block-never-back"],
  fallback: fallbackRestart(neverBackTakeOver),
  takeOver: neverBackTakeOver,
  lossesAfterSighting: true,
};

/** Every shipped rule set by its rulesVersion. */
export const ruleSets: Readonly<Record<string, RuleSet>> = {
  [defaultRuleSetV4.rulesVersion]: defaultRuleSetV4,
  [defaultRuleSetV3.rulesVersion]: defaultRuleSetV3,
  [defaultRuleSetV2.rulesVersion]: defaultRuleSetV2,
  [restartFromScratchRuleSet.rulesVersion]: restartFromScratchRuleSet,
  [defaultRuleSetV1.rulesVersion]: defaultRuleSetV1,
  [restartFromScratchRuleSetV1.rulesVersion]: restartFromScratchRuleSetV1,
};

/** What `default` names: default/4, what the reconciler runs unless A2A_LEDGER_RULES names another. */
export const defaultRuleSet: RuleSetV2 = defaultRuleSetV4;

/** What a bare name means: `default` is default/4, what the reconciler runs unless A2A_LEDGER_RULES names another. */
const latest: Readonly<Record<string, RuleSet>> = {
  [defaultRuleSet.name]: defaultRuleSet,
  [restartFromScratchRuleSet.name]: restartFromScratchRuleSet,
};

/** A shipped rule set by name (its newest version) or by exact rulesVersion, e.g. "default/1". */
export function ruleSetByName(name: string): RuleSet | undefined {
  if (Object.hasOwn(latest, name)) return latest[name];
  return Object.hasOwn(ruleSets, name) ? ruleSets[name] : undefined;
}

/** Names ruleSetByName accepts. */
export const ruleSetNames: readonly string[] = [...Object.keys(latest), ...Object.keys(ruleSets)];
