/**
 * Every rule the shipped rule sets are composed of, by a name that says which variant it is. A version
 * lists the names it runs, in order (rule-sets.ts); what distinguishes two versions is which variants
 * they name, never a flag. A variant keeps its rule's `id` (`R6`, `R4-R5`, …), so a custom rule set can
 * still replace one rule by id.
 *
 * The options behind a variant stay inside this file:
 * - `R4-R5/client-unseen`: a TaskNotFound for a task id no observer saw is the client's (CLIENT_UNKNOWN_TASK);
 *   `…+before-the-loss` also judges trust by the table before the loss's own evidence (default/4);
 * - `R9-tasks/interrupted`: a real task lost in an interrupted state revokes the card's interrupted states;
 *   `/interrupted-or-durable-claim` also a task lost in any state under a card claiming a durable store;
 * - `R6/block-never-back`: R6 as default/3 runs it: never back to a worker that lost the task, a
 *   dispatch's unanswered task reconciled, a block re-examined on its own observations and lifted only
 *   while its loss still stands (`recoveries["block-never-back"]` is its re-examination);
 * - `…/admitted-cards`: the rule runs on a card only when card-admission admits it (default/4);
 * - `R7-reprobe` and `R9-earn-back` (default/4, earn-back.ts): a revoked card is probed again on a
 *   schedule, and a canary that outlived a restart earns its states back;
 * - `resolve` (default/4, operator-resolution.ts): an operator's resolution of a blocked correlation;
 * - `R6/block-never-back+fallback` (default/4): a block names when the trust policy's fallback for the
 *   task's skill restarts it from scratch (fallback.ts runs it).
 */
import { capabilities } from "./capabilities.ts";
import { cardAdmissionRule, onAdmittedCards } from "./card-admission.ts";
import { earnBack, reprobeRevoked } from "./earn-back.ts";
import { operatorResolution } from "./operator-resolution.ts";
import { r1States } from "./r1-states.ts";
import { r2Artifacts } from "./r2-artifacts.ts";
import { r3Divergent } from "./r3-divergent.ts";
import { r4r5NotFound, r4r5NotFoundWith } from "./r4-r5-not-found.ts";
import { type ReconcileOptions, type Recovery, r6Reconcile, recoverBlocked } from "./r6-reconcile.ts";
import { r7Probes } from "./r7-probes.ts";
import { r8Cards } from "./r8-cards.ts";
import { r9Durability } from "./r9-durability.ts";
import { r9LostTasksWith } from "./r9-lost-tasks.ts";
import { reconciled } from "./reconciled.ts";
import type { NamedRule } from "./rule.ts";
import { skillAdvertised } from "./skills.ts";
import type { TakeOverOptions } from "./take-over.ts";

/** default/3's take-over: never back to a worker that lost the task; a dispatch's unanswered task is reconciled. */
export const neverBackTakeOver: TakeOverOptions = { neverBackToLosers: true, reconcileUnanswered: true };
const neverBack: ReconcileOptions = { ...neverBackTakeOver, reexamineOnObservation: true, standingLossOnly: true };
/** default/4's: default/3's, and a block names when the policy's fallback for its skill restarts it. */
const neverBackWithFallback: ReconcileOptions = { ...neverBack, fallback: true };

const capabilitiesRule: NamedRule = {
  id: "capabilities",
  on: ["AgentCardObserved", "ProbeCompleted"],
  apply: capabilities,
};
const r8: NamedRule = { id: "R8", on: ["AgentCardObserved", "TaskDispatched"], apply: r8Cards };
const r7: NamedRule = { id: "R7", on: ["AgentCardObserved"], apply: r7Probes };
const lost = ["TaskNotFoundObserved"] as const;

export const ruleVariants = {
  "card-admission": { id: "card-admission", on: ["AgentCardObserved"], apply: cardAdmissionRule },
  capabilities: capabilitiesRule,
  "capabilities/admitted-cards": onAdmittedCards(capabilitiesRule),
  R8: r8,
  "R8/admitted-cards": onAdmittedCards(r8),
  R7: r7,
  "R7/admitted-cards": onAdmittedCards(r7),
  "R7-reprobe/admitted-cards": onAdmittedCards({ id: "R7-reprobe", on: ["AgentCardObserved"], apply: reprobeRevoked }),
  skills: { id: "skills", on: ["TaskDispatched"], apply: skillAdvertised },
  R1: { id: "R1", on: ["TaskStateObserved"], apply: r1States },
  R2: { id: "R2", on: ["ArtifactEmitted"], apply: r2Artifacts },
  R3: { id: "R3", on: ["ArtifactEmitted", "TaskStateObserved"], apply: r3Divergent },
  R9: { id: "R9", on: lost, apply: r9Durability },
  "R9-earn-back": { id: "R9-earn-back", on: ["TaskStateObserved"], apply: earnBack },
  "R9-tasks/interrupted": { id: "R9-tasks", on: lost, apply: r9LostTasksWith({ evidence: "interrupted" }) },
  "R9-tasks/interrupted-or-durable-claim": {
    id: "R9-tasks",
    on: lost,
    apply: r9LostTasksWith({ evidence: "interrupted-or-durable-claim" }),
  },
  "R4-R5": { id: "R4-R5", on: lost, apply: r4r5NotFound },
  "R4-R5/client-unseen": { id: "R4-R5", on: lost, apply: r4r5NotFoundWith({ unseen: "client" }) },
  "R4-R5/client-unseen+before-the-loss": {
    id: "R4-R5",
    on: lost,
    apply: r4r5NotFoundWith({ unseen: "client", trustOf: "before-the-loss" }),
  },
  "R6/block": { id: "R6", on: lost, apply: r6Reconcile("block") },
  "R6/restart": { id: "R6", on: lost, apply: r6Reconcile("restart") },
  "R6/block-never-back": { id: "R6", on: lost, apply: r6Reconcile("block", neverBack) },
  "R6/block-never-back+fallback": { id: "R6", on: lost, apply: r6Reconcile("block", neverBackWithFallback) },
  reconciled: { id: "reconciled", on: ["TaskStateObserved"], apply: reconciled },
  resolve: { id: "resolve", on: ["OperatorResolved"], apply: operatorResolution },
} as const satisfies Record<string, NamedRule>;

export type RuleVariant = keyof typeof ruleVariants;

/** How a version re-examines its blocked correlations, by the R6 variant it runs. */
export const recoveries = {
  block: recoverBlocked("block"),
  restart: recoverBlocked("restart"),
  "block-never-back": recoverBlocked("block", neverBack),
} as const satisfies Record<string, Recovery>;

/** The rules of the named variants, in the order given. */
export function composeRules(names: readonly RuleVariant[]): NamedRule[] {
  return names.map((n) => ruleVariants[n]);
}
