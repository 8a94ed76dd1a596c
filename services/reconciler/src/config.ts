/**
 * Reconciler configuration from environment variables (envReader): every bad value is collected, and
 * the service refuses to start with all of them listed at once. Its own settings are
 * `A2A_LEDGER_RECONCILER_*`, declared in settings.ts; the others are shared by every process
 * (sharedSettings in @a2a-ledger/env).
 */
import { hostname } from "node:os";
import { type PolicyConfig, type RetentionPolicy, type RuleSet, ruleSetByName, ruleSetNames } from "@a2a-ledger/core";
import { envReader } from "@a2a-ledger/env";
import { endpointProblems, endpointsFromEnv, suffixedTopicNames, topicNames, type TopicNames } from "@a2a-ledger/kafka";
import { configError } from "./errors.ts";
import { reconcilerSettings } from "./settings.ts";

export interface ReconcilerConfig {
  brokers: string;
  registryUrl: string;
  groupId: string;
  instanceId: string;
  topics: TopicNames;
  ruleSet: RuleSet;
  policy: PolicyConfig;
  /** Port of /metrics and /healthz; undefined to serve none. */
  metricsPort: number | undefined;
  /** Upper bound of observations per transaction. */
  maxBatch: number;
  /** Consumer group session timeout: how long a dead instance holds its partitions. */
  sessionTimeoutMs: number;
  /** How often a member heartbeats, also while it restores a changelog. */
  heartbeatMs: number;
  /** Longest a step of a transaction may take before its outcome counts as unknown and its producer is replaced. */
  transactionStepTimeoutMs: number;
  /** Input partitions processed at the same time by one instance; undefined: as many as the observations topic has (its metadata, at start). */
  concurrency: number | undefined;
  /** How often partitions without traffic re-examine their blocked correlations after a capability change. */
  recheckMs: number;
  /** Live correlations this instance may hold in memory, every partition together (correlation-budget.ts). */
  maxCorrelations: number;
  /**
   * When a correlation leaves the state (core retention.ts): `A2A_LEDGER_RECONCILER_RETENTION` after an
   * outcome (7 days), `A2A_LEDGER_RECONCILER_STALE_AFTER` without one (30 days, with CorrelationExpired).
   */
  retention: RetentionPolicy;
  /**
   * `A2A_LEDGER_RECONCILER_STATE_DIR`: where a clean stop leaves each partition's state, so the next
   * restore reads only the changelog after it (state-snapshot.ts); undefined: every restore reads it whole.
   */
  stateDir: string | undefined;
}

export function loadReconcilerConfig(env: NodeJS.ProcessEnv = process.env): ReconcilerConfig {
  const reader = envReader(env);
  const { problems, text } = reader;
  const endpoints = endpointsFromEnv(env);
  problems.push(...endpointProblems(endpoints));
  const rulesName = text("A2A_LEDGER_RULES") ?? "default";
  const ruleSet = ruleSetByName(rulesName);
  if (ruleSet === undefined)
    problems.push(`A2A_LEDGER_RULES=${JSON.stringify(rulesName)}: expected one of ${ruleSetNames.join(", ")}`);
  const suffix = text("A2A_LEDGER_TOPIC_SUFFIX");
  if (suffix !== undefined && !/^[A-Za-z0-9._-]{1,100}$/.test(suffix))
    problems.push(`A2A_LEDGER_TOPIC_SUFFIX=${JSON.stringify(suffix)}: letters, digits, '.', '_' and '-' only`);
  const trustedVendors = (text("A2A_LEDGER_TRUSTED_VENDORS") ?? "")
    .split(",")
    .map((v) => v.trim())
    .filter((v) => v !== "");
  const { finishedMs, staleMs, ...own } = reconcilerSettings.read(reader);
  const config = {
    ...own,
    brokers: endpoints.brokers,
    registryUrl: endpoints.registryUrl,
    instanceId: text("A2A_LEDGER_INSTANCE_ID") ?? `${hostname()}-${process.pid}`,
    topics: suffix ? suffixedTopicNames(suffix) : topicNames,
    policy: { trustedVendors },
    heartbeatMs: 1_000,
    retention: { finishedMs, staleMs },
  };
  if (problems.length > 0 || ruleSet === undefined) throw configError(problems);
  return { ...config, ruleSet };
}
