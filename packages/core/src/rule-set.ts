/**
 * A rule set: a name, the version stamped on every decision, the state model its rules are written
 * against, and the ordered rules. default/2 (model correlation/2) is what the reconciler runs;
 * default/1 (model correlation/1) stays loadable so recorded history can be replayed through both.
 * A custom rule set is built from a shipped one — `{ ...defaultRuleSetV2, name, rulesVersion, rules }` —
 * and keeps its model.
 */
import type { Fallback } from "./rules/fallback.ts";
import type { Recovery } from "./rules/r6-reconcile.ts";
import type { NamedRule } from "./rules/rule.ts";
import type { TakeOverOptions } from "./rules/take-over.ts";
import type { NamedRule as NamedRuleV1 } from "./v1/rules/rule.ts";

interface RuleSetBase {
  name: string;
  /** Stamped on every decision; change it whenever what the rules decide changes. */
  rulesVersion: string;
}

export interface RuleSetV2 extends RuleSetBase {
  model: "correlation/2";
  rules: readonly NamedRule[];
  /** Re-examines a blocked correlation when capabilities change; none: blocked correlations wait for the operator. */
  recover?: Recovery;
  /**
   * A blocked correlation's fallback when the stream time passes its `fallbackAt` (default/4,
   * rules/fallback.ts); none: a block never falls back.
   */
  fallback?: Fallback;
  /** The options its R6 builds the route query of a lost task with (`takeOverQuery`); none: default/2's. */
  takeOver?: TakeOverOptions;
  /**
   * A TaskNotFound whose eventId was seen before is the task's next loss when the task was seen again
   * since and the TaskNotFound occurred after that sighting (default/4; see StateModel.lossAgain). Without
   * it, every repeat of an eventId is a duplicate.
   */
  lossesAfterSighting?: boolean;
}

export interface RuleSetV1 extends RuleSetBase {
  model: "correlation/1";
  rules: readonly NamedRuleV1[];
}

export type RuleSet = RuleSetV2 | RuleSetV1;

export const ruleModels = ["correlation/1", "correlation/2"] as const;
