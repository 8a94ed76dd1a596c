/** @a2a-ledger/core — the pure ledger core: A2A model, card interpretation, rules R1–R10, the one fold, replay. */
export { normalizeTaskState, isTerminal, isInterrupted } from "./task-state.ts";
export { canonicalize, type JsonValue } from "./canonical-json.ts";
export { cardHash } from "./card-hash.ts";
export { interpretCard, lifecycleExtensionUri } from "./card.ts";
export { mediaTypeAllowed } from "./media-type.ts";
export { diffCards } from "./card-diff.ts";
export type { Policy, PolicyConfig } from "./policy.ts";
export { policyOf } from "./verification.ts";
export {
  isPolicyHistory,
  nextPolicyVersion,
  noRecordedPolicy,
  policyAt,
  withPolicyVersion,
  type PolicyHistory,
  type PolicySource,
  type PolicyVersion,
} from "./policy-history.ts";
export { CapabilityTable, type CapabilityView, type CardRecord } from "./capabilities.ts";
export {
  route,
  routableState,
  RouteQueryError,
  routeVerdicts,
  type RouteAnswer,
  type RouteQuery,
  type RoutedWorker,
} from "./route.ts";
export { earlierLosers, type LostTask, takeOverQuery, type TakeOverOptions } from "./rules/take-over.ts";
export {
  createDecider,
  type Decider,
  type DecideContext,
  type Decided,
  type LedgerState,
  type StepResult,
} from "./decider.ts";
export {
  dispatchTarget,
  isStatusDecision,
  lineageOf,
  nextAttemptNumber,
  openAttemptOf,
  plannedAttempt,
  replacesLastState,
  statusDecisions,
  type AttemptSlot,
  type DecidedStatus,
  type DispatchTarget,
  type LineageView,
  type StatusDecisionType,
} from "./lineage.ts";
export {
  BatchOrderFold,
  policyRead,
  SourcedCapabilities,
  type PartitionReads,
  type RecordedBatch,
  recordedBatch,
  type SnapshotSource,
} from "./batch-order.ts";
export { PartitionLedger, type LedgerFold, type LedgerFoldInput } from "./partition-ledger.ts";
export {
  foldBatch,
  applyCapabilityUpdates,
  type DecisionOrigin,
  type FoldInput,
  type FoldOutcome,
  type RejectedObservation,
} from "./fold.ts";
export { defaultRetention, StreamRetention, type RetentionPolicy } from "./retention.ts";
export { replay, replayLog, RulesFailedError, type ReplayConfig, type ReplayResult } from "./replay.ts";
export { CapabilityScope } from "./capability-scope.ts";
export {
  parseObservation,
  parseObservationJson,
  type IngestIssue,
  type IngestOptions,
  type IngestResult,
} from "./ingest-json.ts";
export {
  taskStateSpellings,
  channelSpellings,
  partKindSpellings,
  observationTypeNames,
  spellingsOf,
  type TaskStateSpelling,
  type ChannelSpelling,
  type PartKindSpelling,
} from "./vocabulary.ts";
export { isoDateTimePattern, toEpochMillis } from "./timestamp.ts";
export {
  defaultRuleSet,
  defaultRuleSetV2,
  defaultRuleSetV3,
  defaultRuleSetV4,
  restartFromScratchRuleSet,
  ruleSets,
  ruleSetByName,
  ruleSetNames,
} from "./rules/rule-sets.ts";
export { attributedToWorker, clientViolationKinds } from "./rules/violations.ts";
export { defaultRuleSetV1, restartFromScratchRuleSetV1 } from "./v1/rules/rule-sets.ts";
export { ruleModels, type RuleSet, type RuleSetV1, type RuleSetV2 } from "./rule-set.ts";
export type { Rule, RuleInput, RuleOutput, NamedRule } from "./rules/rule.ts";
