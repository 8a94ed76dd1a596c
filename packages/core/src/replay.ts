/** Whole-log replay: the one fold (fold.ts) over a log held in memory or streamed. */
import type { CapabilitySnapshot, Decision, Observation } from "@a2a-ledger/schemas";
import { CapabilityTable, type CardRecord } from "./capabilities.ts";
import { createDecider, type LedgerState } from "./decider.ts";
import { applyCapabilityUpdates, type RejectedObservation } from "./fold.ts";
import { PartitionLedger } from "./partition-ledger.ts";
import { defaultPolicyConfig } from "./policy.ts";
import type { PolicySource } from "./policy-history.ts";
import type { RetentionPolicy } from "./retention.ts";
import type { RuleSet } from "./rule-set.ts";

export interface ReplayConfig {
  /** The recorded policy history, or a fixed vendor list (default: none trusted). */
  policy?: PolicySource;
  /** Capability snapshots known before the log starts (e.g. read from a2a.capabilities.v1). */
  capabilities?: Iterable<CapabilitySnapshot>;
  cards?: Iterable<CardRecord>;
  /** Evict as the reconciler does (retention.ts), the whole log as one stream; none: keep every correlation. */
  retention?: RetentionPolicy;
}

export interface ReplayResult {
  decisions: Decision[];
  capabilities: CapabilityTable;
  correlations: Map<string, LedgerState>;
  /**
   * Observations the rules threw on, in log order: what the reconciler dead-letters
   * (RECONCILER_RULES_REJECTED) and goes on. Each left its correlation as it was; the rest was decided.
   */
  rejected: RejectedObservation[];
  /** Observations too late to fold under `retention` (fold.ts `late`), in log order: what the reconciler dead-letters too. */
  late: Observation[];
}

/** The rules threw on an observation: replay never presents a partial result as complete. */
export class RulesFailedError extends Error {
  override name = "RulesFailedError";
  constructor(
    readonly rulesVersion: string,
    readonly index: number,
    readonly eventId: string,
    override readonly cause: Error,
  ) {
    super(
      `rules ${rulesVersion} failed on observation ${index + 1} (eventId ${JSON.stringify(eventId)}): ${cause.message}`,
    );
  }
}

/**
 * Replays a log and returns everything it leaves behind. Like the reconciler, an observation the rules
 * throw on is rejected (listed in `rejected`) and the rest of the log is still decided.
 */
export function replayLog(
  observations: Iterable<Observation>,
  ruleSet: RuleSet,
  config: ReplayConfig = {},
): ReplayResult {
  const decider = createDecider(ruleSet);
  const table = CapabilityTable.fromSnapshots(config.capabilities ?? [], config.cards ?? []);
  const ledger = new PartitionLedger(
    decider,
    config.retention === undefined ? {} : { retention: config.retention, streamTime: null },
  );
  const outcome = ledger.fold({ policy: config.policy ?? defaultPolicyConfig, capabilities: table }, observations);
  applyCapabilityUpdates(table, outcome);
  return {
    decisions: outcome.decisions,
    capabilities: table,
    correlations: new Map(ledger.entries()),
    rejected: outcome.rejected,
    late: outcome.late.map((l) => l.observation),
  };
}

/**
 * The decisions a rule set takes on a log: same log and rules → byte-identical decisions. It returns
 * decisions only, so it cannot report a rejection: it throws RulesFailedError (the first one) instead;
 * `replayLog` lists them and decides the rest, as the reconciler does.
 */
export function replay(observations: Iterable<Observation>, ruleSet: RuleSet, config: ReplayConfig = {}): Decision[] {
  const result = replayLog(observations, ruleSet, config);
  const failed = result.rejected[0];
  if (failed !== undefined)
    throw new RulesFailedError(ruleSet.rulesVersion, failed.index, failed.observation.eventId, failed.error);
  return result.decisions;
}
