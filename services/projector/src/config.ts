/**
 * Projector configuration from environment variables, validated: every bad value is one clear
 * message, and all of them are reported together. Its own settings are declared in settings.ts.
 */
import { envReader, tokenList } from "@a2a-ledger/env";
import { hostname } from "node:os";
import { join } from "node:path";
import type { PolicyConfig } from "@a2a-ledger/core";
import { endpointProblems, endpointsFromEnv, suffixedTopicNames, topicNames, type TopicNames } from "@a2a-ledger/kafka";
import { configError } from "./errors.ts";
import { configDefaults, type LogLevel, projectorSettings } from "./settings.ts";

export { configDefaults, type LogLevel };

export type StoreConfig = { kind: "sqlite"; path: string } | { kind: "postgres"; url: string };

export interface ProjectorConfig {
  host: string;
  port: number;
  brokers: string;
  registryUrl: string;
  topics: TopicNames;
  store: StoreConfig;
  groupId: string;
  instanceId: string;
  policy: PolicyConfig;
  /** Records per database transaction. */
  maxBatch: number;
  /** Input partitions projected at the same time. */
  concurrency: number;
  sessionTimeoutMs: number;
  /** Signs pagination cursors; instances behind one load balancer share it. */
  cursorSecret: string;
  /** Live streams (SSE) one instance serves at once. */
  maxStreams: number;
  /** Read tokens (A2A_LEDGER_PROJECTOR_TOKENS): when set, the API, the live stream and /metrics need one. Never logged. */
  tokens: string[];
  /** A2A_LEDGER_PROJECTOR_METRICS_OPEN=true serves /metrics without a token even when tokens are set. */
  metricsOpen: boolean;
  /** Requests per window per read token (or per client address without tokens); 0: no limit. */
  rateLimit: number;
  rateLimitWindowMs: number;
  logLevel: LogLevel;
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): ProjectorConfig {
  const reader = envReader(env, { renamed: { from: "PROJECTOR_", to: "A2A_LEDGER_PROJECTOR_" } });
  const { problems, text } = reader;
  const endpoints = endpointsFromEnv(env);
  problems.push(...endpointProblems(endpoints));
  const suffix = text("A2A_LEDGER_TOPIC_SUFFIX");
  if (suffix !== undefined && !/^[A-Za-z0-9._-]{1,100}$/.test(suffix))
    problems.push(`A2A_LEDGER_TOPIC_SUFFIX=${JSON.stringify(suffix)}: letters, digits, '.', '_' and '-' only`);
  const instanceId = text("A2A_LEDGER_INSTANCE_ID") ?? `${hostname()}-${process.pid}`.replace(/[^A-Za-z0-9._-]/g, "-");
  if (!/^[A-Za-z0-9._-]{1,200}$/.test(instanceId))
    problems.push(`A2A_LEDGER_INSTANCE_ID=${JSON.stringify(instanceId)}: letters, digits, '.', '_' and '-' only`);

  const { databaseUrl, sqlitePath, groupId, concurrency, tokens, ...own } = projectorSettings.read(reader);
  // A side-by-side topic set (A2A_LEDGER_TOPIC_SUFFIX) gets its own file and group, so two sets never mix.
  const store: StoreConfig =
    databaseUrl !== undefined
      ? { kind: "postgres", url: databaseUrl }
      : {
          kind: "sqlite",
          path:
            sqlitePath ??
            join(
              text("A2A_LEDGER_DATA_DIR") ?? configDefaults.dataDir,
              suffix === undefined ? "projector.sqlite" : `projector.${suffix}.sqlite`,
            ),
        };
  const config: ProjectorConfig = {
    ...own,
    brokers: endpoints.brokers,
    registryUrl: endpoints.registryUrl,
    topics: suffix === undefined ? topicNames : suffixedTopicNames(suffix),
    store,
    groupId: groupId ?? (suffix === undefined ? configDefaults.groupId : `${configDefaults.groupId}.${suffix}`),
    instanceId,
    policy: {
      trustedVendors: (env.A2A_LEDGER_TRUSTED_VENDORS ?? "")
        .split(",")
        .map((v) => v.trim())
        .filter((v) => v !== ""),
    },
    concurrency: concurrency ?? (store.kind === "postgres" ? 4 : 2),
    tokens: tokenList("A2A_LEDGER_PROJECTOR_TOKENS", tokens, problems),
  };
  if (problems.length > 0) throw configError(problems);
  return config;
}
