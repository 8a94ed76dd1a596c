/**
 * Reconciler configuration from environment variables; each bad value is a clear error.
 */
import { hostname } from "node:os";
import { ruleSetByName, ruleSetNames, type PolicyConfig, type RuleSet } from "@a2a-ledger/core";
import { correlationPartitions, endpointsFromEnv, suffixedTopicNames, topicNames, type TopicNames } from "@a2a-ledger/kafka";
import { ReconcilerConfigError } from "./errors.ts";

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
  /** Input partitions processed at the same time by one instance. */
  concurrency: number;
  /** How often partitions without traffic re-examine their blocked correlations after a capability change. */
  recheckMs: number;
}

function integer(env: NodeJS.ProcessEnv, name: string, min: number, max: number): number | undefined {
  const raw = env[name]?.trim();
  if (raw === undefined || raw === "") return undefined;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) throw new ReconcilerConfigError(`${name}=${JSON.stringify(raw)}: expected an integer from ${min} to ${max}`);
  return value;
}

export function loadReconcilerConfig(env: NodeJS.ProcessEnv = process.env): ReconcilerConfig {
  const { brokers, registryUrl } = endpointsFromEnv(env);
  const rulesName = env.A2A_LEDGER_RULES?.trim() || "default";
  const ruleSet = ruleSetByName(rulesName);
  if (ruleSet === undefined) throw new ReconcilerConfigError(`A2A_LEDGER_RULES=${JSON.stringify(rulesName)}: expected one of ${ruleSetNames.join(", ")}`);
  const suffix = env.A2A_LEDGER_TOPIC_SUFFIX?.trim();
  if (suffix !== undefined && suffix !== "" && !/^[A-Za-z0-9._-]{1,100}$/.test(suffix)) {
    throw new ReconcilerConfigError(`A2A_LEDGER_TOPIC_SUFFIX=${JSON.stringify(suffix)}: letters, digits, '.', '_' and '-' only`);
  }
  const groupId = env.A2A_LEDGER_RECONCILER_GROUP?.trim() || "a2a-ledger-reconciler";
  if (!/^[A-Za-z0-9._-]{1,200}$/.test(groupId)) throw new ReconcilerConfigError(`A2A_LEDGER_RECONCILER_GROUP=${JSON.stringify(groupId)}: letters, digits, '.', '_' and '-' only`);
  const trustedVendors = (env.A2A_LEDGER_TRUSTED_VENDORS ?? "").split(",").map((v) => v.trim()).filter((v) => v !== "");
  return {
    brokers,
    registryUrl,
    groupId,
    instanceId: env.A2A_LEDGER_INSTANCE_ID?.trim() || `${hostname()}-${process.pid}`,
    topics: suffix ? suffixedTopicNames(suffix) : topicNames,
    ruleSet,
    policy: { trustedVendors },
    metricsPort: integer(env, "A2A_LEDGER_RECONCILER_METRICS_PORT", 1024, 65535),
    maxBatch: integer(env, "A2A_LEDGER_RECONCILER_MAX_BATCH", 1, 100_000) ?? 2_000,
    sessionTimeoutMs: integer(env, "A2A_LEDGER_RECONCILER_SESSION_TIMEOUT_MS", 6_000, 300_000) ?? 10_000,
    heartbeatMs: 1_000,
    transactionStepTimeoutMs: integer(env, "A2A_LEDGER_RECONCILER_TRANSACTION_STEP_TIMEOUT_MS", 1_000, 600_000) ?? 30_000,
    concurrency: integer(env, "A2A_LEDGER_RECONCILER_CONCURRENCY", 1, 64) ?? correlationPartitions,
    recheckMs: integer(env, "A2A_LEDGER_RECONCILER_RECHECK_MS", 50, 600_000) ?? 500,
  };
}
