/**
 * Projector configuration from environment variables, validated: every bad value is one clear
 * message, and all of them are reported together.
 */
import { envReader, tokenList } from "@a2a-ledger/env";
import { hostname } from "node:os";
import { join } from "node:path";
import type { PolicyConfig } from "@a2a-ledger/core";
import { endpointProblems, endpointsFromEnv, suffixedTopicNames, topicNames, type TopicNames } from "@a2a-ledger/kafka";
import { ProjectorConfigError } from "./errors.ts";

export type LogLevel = "fatal" | "error" | "warn" | "info" | "debug" | "trace" | "silent";
const logLevels: readonly LogLevel[] = ["fatal", "error", "warn", "info", "debug", "trace", "silent"];

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

export const configDefaults = {
  host: "127.0.0.1",
  port: 18095,
  dataDir: "./.a2a-ledger",
  groupId: "a2a-ledger-projector",
  maxBatch: 1_000,
  sessionTimeoutMs: 10_000,
  cursorSecret: "a2a-ledger-projector-cursor",
  maxStreams: 100,
  rateLimit: 100_000,
  rateLimitWindowMs: 60_000,
  logLevel: "info" as LogLevel,
} as const;

export function loadConfig(env: NodeJS.ProcessEnv = process.env): ProjectorConfig {
  const reader = envReader(env, { renamed: { from: "PROJECTOR_", to: "A2A_LEDGER_PROJECTOR_" } });
  const { problems, text, int } = reader;
  const name = (variable: string, fallback: string): string => {
    const value = text(variable) ?? fallback;
    if (!/^[A-Za-z0-9._-]{1,200}$/.test(value))
      problems.push(`${variable}=${JSON.stringify(value)}: letters, digits, '.', '_' and '-' only`);
    return value;
  };

  const host = text("A2A_LEDGER_PROJECTOR_HOST") ?? configDefaults.host;
  if (!/^[A-Za-z0-9.:\-[\]]+$/.test(host))
    problems.push(`A2A_LEDGER_PROJECTOR_HOST=${JSON.stringify(host)} is not a host name or IP address`);
  const endpoints = endpointsFromEnv(env);
  problems.push(...endpointProblems(endpoints));
  const suffix = text("A2A_LEDGER_TOPIC_SUFFIX");
  if (suffix !== undefined && !/^[A-Za-z0-9._-]{1,100}$/.test(suffix))
    problems.push(`A2A_LEDGER_TOPIC_SUFFIX=${JSON.stringify(suffix)}: letters, digits, '.', '_' and '-' only`);

  const url = text("A2A_LEDGER_PROJECTOR_DATABASE_URL");
  let store: StoreConfig;
  if (url !== undefined) {
    // The value may hold a password: it is never echoed.
    if (!/^postgres(ql)?:\/\/\S+$/.test(url))
      problems.push("A2A_LEDGER_PROJECTOR_DATABASE_URL must be a postgres:// or postgresql:// URL (value not shown)");
    store = { kind: "postgres", url };
  } else {
    // A side-by-side topic set (A2A_LEDGER_TOPIC_SUFFIX) gets its own file, so two sets never mix in one view.
    const file = suffix === undefined ? "projector.sqlite" : `projector.${suffix}.sqlite`;
    store = {
      kind: "sqlite",
      path:
        text("A2A_LEDGER_PROJECTOR_SQLITE_PATH") ?? join(text("A2A_LEDGER_DATA_DIR") ?? configDefaults.dataDir, file),
    };
  }

  const logLevel = (text("A2A_LEDGER_PROJECTOR_LOG_LEVEL") ?? configDefaults.logLevel) as LogLevel;
  if (!logLevels.includes(logLevel))
    problems.push(`A2A_LEDGER_PROJECTOR_LOG_LEVEL=${JSON.stringify(logLevel)} must be one of ${logLevels.join(", ")}`);
  const cursorSecret = text("A2A_LEDGER_PROJECTOR_CURSOR_SECRET") ?? configDefaults.cursorSecret;
  if (cursorSecret.length < 16)
    problems.push("A2A_LEDGER_PROJECTOR_CURSOR_SECRET must be at least 16 characters (value not shown)");

  const config: ProjectorConfig = {
    host,
    port: int("A2A_LEDGER_PROJECTOR_PORT", configDefaults.port, 0, 65535),
    brokers: endpoints.brokers,
    registryUrl: endpoints.registryUrl,
    topics: suffix === undefined ? topicNames : suffixedTopicNames(suffix),
    store,
    groupId: name(
      "A2A_LEDGER_PROJECTOR_GROUP",
      suffix === undefined ? configDefaults.groupId : `${configDefaults.groupId}.${suffix}`,
    ),
    instanceId: name("A2A_LEDGER_INSTANCE_ID", `${hostname()}-${process.pid}`.replace(/[^A-Za-z0-9._-]/g, "-")),
    policy: {
      trustedVendors: (env.A2A_LEDGER_TRUSTED_VENDORS ?? "")
        .split(",")
        .map((v) => v.trim())
        .filter((v) => v !== ""),
    },
    maxBatch: int("A2A_LEDGER_PROJECTOR_MAX_BATCH", configDefaults.maxBatch, 1, 10_000),
    concurrency: int("A2A_LEDGER_PROJECTOR_CONCURRENCY", store.kind === "postgres" ? 4 : 2, 1, 32),
    sessionTimeoutMs: int("A2A_LEDGER_PROJECTOR_SESSION_TIMEOUT_MS", configDefaults.sessionTimeoutMs, 6_000, 300_000),
    cursorSecret,
    maxStreams: int("A2A_LEDGER_PROJECTOR_MAX_STREAMS", configDefaults.maxStreams, 0, 10_000),
    tokens: tokenList("A2A_LEDGER_PROJECTOR_TOKENS", reader.text("A2A_LEDGER_PROJECTOR_TOKENS"), problems),
    metricsOpen: reader.bool("A2A_LEDGER_PROJECTOR_METRICS_OPEN", false),
    rateLimit: int("A2A_LEDGER_PROJECTOR_RATE_LIMIT", configDefaults.rateLimit, 0, 100_000_000),
    rateLimitWindowMs: int(
      "A2A_LEDGER_PROJECTOR_RATE_LIMIT_WINDOW_MS",
      configDefaults.rateLimitWindowMs,
      100,
      86_400_000,
    ),
    logLevel,
  };
  if (problems.length > 0) throw new ProjectorConfigError(problems);
  return config;
}
