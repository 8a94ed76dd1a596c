/**
 * The shipped rule sets, by name and by version: `default` names default/2 (what the reconciler runs
 * unless A2A_LEDGER_RULES says otherwise) and `restart-from-scratch` restart-from-scratch/2; default/3
 * is loaded by its version (`--candidate default/3`, A2A_LEDGER_RULES=default/3) until it becomes what
 * `default` names (packages/core/README.md says why not yet); `default/1` and `restart-from-scratch/1`
 * remain, frozen, for replays.
 */
import type { RuleSet, RuleSetV2 } from "../rule-set.ts";
import { defaultRuleSetV1, restartFromScratchRuleSetV1 } from "../v1/rules/rule-sets.ts";
import { capabilities } from "./capabilities.ts";
import { cardAdmissionRule, onAdmittedCards } from "./card-admission.ts";
import { r1States } from "./r1-states.ts";
import { r2Artifacts } from "./r2-artifacts.ts";
import { r3Divergent } from "./r3-divergent.ts";
import { r4r5NotFound, r4r5NotFoundWith } from "./r4-r5-not-found.ts";
import { r6Reconcile, recoverBlocked } from "./r6-reconcile.ts";
import { r7Probes } from "./r7-probes.ts";
import { r8Cards } from "./r8-cards.ts";
import { r9Durability } from "./r9-durability.ts";
import { r9LostTasks, r9LostTasksWith } from "./r9-lost-tasks.ts";
import { reconciled } from "./reconciled.ts";
import type { NamedRule, RuleInput, RuleOutput } from "./rule.ts";
import { skillAdvertised } from "./skills.ts";

const common = (r6: (input: RuleInput) => RuleOutput): NamedRule[] => [
  { id: "capabilities", on: ["AgentCardObserved", "ProbeCompleted"], apply: capabilities },
  { id: "R8", on: ["AgentCardObserved", "TaskDispatched"], apply: r8Cards },
  { id: "R7", on: ["AgentCardObserved"], apply: r7Probes },
  { id: "skills", on: ["TaskDispatched"], apply: skillAdvertised },
  { id: "R1", on: ["TaskStateObserved"], apply: r1States },
  { id: "R2", on: ["ArtifactEmitted"], apply: r2Artifacts },
  { id: "R3", on: ["ArtifactEmitted", "TaskStateObserved"], apply: r3Divergent },
  { id: "R9", on: ["TaskNotFoundObserved"], apply: r9Durability },
  { id: "R4-R5", on: ["TaskNotFoundObserved"], apply: r4r5NotFound },
  { id: "R6", on: ["TaskNotFoundObserved"], apply: r6 },
  { id: "reconciled", on: ["TaskStateObserved"], apply: reconciled },
];

/** DESIGN §4 with the default/2 fixes (frozen): no eligible worker for the interrupted state → ReconciliationBlocked. */
export const defaultRuleSet: RuleSetV2 = {
  name: "default",
  rulesVersion: "default/2",
  model: "correlation/2",
  rules: common(r6Reconcile("block")),
  recover: recoverBlocked("block"),
};

/** Variant: no worker for the interrupted state → restart from scratch on a worker that verifies completion. */
export const restartFromScratchRuleSet: RuleSetV2 = {
  name: "restart-from-scratch",
  rulesVersion: "restart-from-scratch/2",
  model: "correlation/2",
  rules: common(r6Reconcile("restart")),
  recover: recoverBlocked("restart"),
};

const default3TakeOver = { neverBackToLosers: true, reconcileUnanswered: true } as const;
const default3Reconcile = { ...default3TakeOver, reexamineOnObservation: true, standingLossOnly: true } as const;

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
  rules: common(r6Reconcile("block", default3Reconcile)).flatMap((r): NamedRule[] => {
    if (r.id === "R9") return [r, { id: "R9-tasks", on: ["TaskNotFoundObserved"], apply: r9LostTasks }];
    if (r.id === "R4-R5") return [{ ...r, apply: r4r5NotFoundWith({ unseen: "client" }) }];
    return [r];
  }),
  recover: recoverBlocked("block", default3Reconcile),
  takeOver: default3TakeOver,
};

/**
 * default/3 with the default/4 changes so far (packages/core/README.md, "default/4"): a task lost, seen
 * again and lost again is two losses, also under the one eventId producers derived before they named the
 * last sighting (`lossesAfterSighting`); the trust in force before a loss governs it (R4/R5 judge by the
 * table before the loss's own evidence), and the loss is evidence for what follows — under a card that
 * claims a durable task store, a task lost in any state that is not terminal marks it not durable; a
 * card replaces the one in force only when admitted (card-admission.ts: a failed or dropped signature is
 * a violation, another vendor's sighting is not taken).
 * Loadable by its version while it is being built; its decisions may still change until `default` names it.
 */
export const defaultRuleSetV4: RuleSetV2 = {
  name: "default",
  rulesVersion: "default/4",
  model: "correlation/2",
  rules: common(r6Reconcile("block", default3Reconcile)).flatMap((r): NamedRule[] => {
    if (r.id === "capabilities")
      return [{ id: "card-admission", on: ["AgentCardObserved"], apply: cardAdmissionRule }, onAdmittedCards(r)];
    if (r.id === "R8" || r.id === "R7") return [onAdmittedCards(r)];
    if (r.id === "R9")
      return [
        r,
        {
          id: "R9-tasks",
          on: ["TaskNotFoundObserved"],
          apply: r9LostTasksWith({ evidence: "interrupted-or-durable-claim" }),
        },
      ];
    if (r.id === "R4-R5") return [{ ...r, apply: r4r5NotFoundWith({ unseen: "client", trustOf: "before-the-loss" }) }];
    return [r];
  }),
  recover: recoverBlocked("block", default3Reconcile),
  takeOver: default3TakeOver,
  lossesAfterSighting: true,
};

/** Every shipped rule set by its rulesVersion. */
export const ruleSets: Readonly<Record<string, RuleSet>> = {
  [defaultRuleSetV4.rulesVersion]: defaultRuleSetV4,
  [defaultRuleSetV3.rulesVersion]: defaultRuleSetV3,
  [defaultRuleSet.rulesVersion]: defaultRuleSet,
  [restartFromScratchRuleSet.rulesVersion]: restartFromScratchRuleSet,
  [defaultRuleSetV1.rulesVersion]: defaultRuleSetV1,
  [restartFromScratchRuleSetV1.rulesVersion]: restartFromScratchRuleSetV1,
};

/** What a bare name means: `default` is default/2, what the reconciler runs unless A2A_LEDGER_RULES names another. */
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
