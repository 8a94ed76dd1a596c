/** @a2a-ledger/core — the pure ledger core: A2A model, card interpretation, rules R1–R10, replay. */
export { normalizeTaskState, specStates, terminalStates, interruptedStates, isTerminal, isInterrupted, sortStates } from "./task-state.ts";
export { canonicalize, CanonicalJsonError, type JsonValue } from "./canonical-json.ts";
export { cardHash } from "./card-hash.ts";
export { interpretCard, outputModesFor, lifecycleExtensionUri, type AdvertisedCapabilities, type TaskStoreClaim } from "./card.ts";
export { diffCards } from "./card-diff.ts";
export { mediaTypeAllowed, essence as mediaTypeEssence } from "./media-type.ts";
export { policyFor, defaultPolicyConfig, type Policy, type PolicyConfig } from "./policy.ts";
export { CapabilityTable, withUpdates, type CapabilityView, type CardRecord } from "./capabilities.ts";
export { deriveCapabilities, snapshotFromCard, snapshotFromProbe, snapshotRevokingInterrupted, type DerivedCapabilities } from "./capability-snapshots.ts";
export {
  initialCorrelationState,
  serializeCorrelationState,
  deserializeCorrelationState,
  CorrelationStateFormatError,
  type CorrelationState,
  type CorrelationStatus,
  type Attempt,
  type LastState,
  type OutputRecord,
  type ParkedCanaryRecord,
  type Loss,
} from "./correlation-state.ts";
export { evolve } from "./evolve.ts";
export { finalizeDecisions, violationKey, decisionKind, type DecisionDraft } from "./decisions.ts";
export { createDecider, applyCapabilityUpdates, type Decider, type DecideContext, type Decided, type StepResult } from "./decider.ts";
export { replay, replayLog, type ReplayConfig, type ReplayResult } from "./replay.ts";
export { parseObservation, parseObservationJson, type IngestIssue, type IngestOptions, type IngestResult } from "./ingest-json.ts";
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
export { parseIsoTimestamp, toEpochMillis } from "./timestamp.ts";
export { defaultRuleSet, restartFromScratchRuleSet, ruleSets, ruleSetByName } from "./rules/rule-sets.ts";
export type { Rule, RuleInput, RuleOutput, NamedRule, RuleSet } from "./rules/rule.ts";
export { verdict as candidateVerdict, verdicts as candidateVerdicts, type Need } from "./rules/eligibility.ts";
