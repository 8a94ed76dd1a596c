/** Whole-log replay: the same fold the reconciler does per partition, over one in-memory log. */
import type { CapabilitySnapshot, Decision, Observation } from "@a2a-ledger/schemas";
import { CapabilityTable, type CardRecord } from "./capabilities.ts";
import type { CorrelationState } from "./correlation-state.ts";
import { applyCapabilityUpdates, createDecider } from "./decider.ts";
import { defaultPolicyConfig, type PolicyConfig } from "./policy.ts";
import type { RuleSet } from "./rules/rule.ts";

export interface ReplayConfig {
  policy?: PolicyConfig;
  /** Capability snapshots known before the log starts (e.g. read from a2a.capabilities.v1). */
  capabilities?: Iterable<CapabilitySnapshot>;
  cards?: Iterable<CardRecord>;
}

export interface ReplayResult {
  decisions: Decision[];
  capabilities: CapabilityTable;
  correlations: Map<string, CorrelationState>;
}

/** Replays a log and returns everything it leaves behind. */
export function replayLog(observations: Iterable<Observation>, ruleSet: RuleSet, config: ReplayConfig = {}): ReplayResult {
  const decider = createDecider(ruleSet);
  const table = CapabilityTable.fromSnapshots(config.capabilities ?? [], config.cards ?? []);
  const ctx = { capabilities: table, policy: config.policy ?? defaultPolicyConfig };
  const correlations = new Map<string, CorrelationState>();
  const decisions: Decision[] = [];
  for (const obs of observations) {
    const state = correlations.get(obs.correlationId) ?? decider.initialState();
    const result = decider.step(ctx, state, obs);
    correlations.set(obs.correlationId, result.correlationState);
    applyCapabilityUpdates(table, result);
    for (const d of result.decisions) decisions.push(d);
  }
  return { decisions, capabilities: table, correlations };
}

/** The decisions a rule set takes on a log: same log and rules → byte-identical decisions. */
export function replay(observations: Iterable<Observation>, ruleSet: RuleSet, config: ReplayConfig = {}): Decision[] {
  return replayLog(observations, ruleSet, config).decisions;
}
