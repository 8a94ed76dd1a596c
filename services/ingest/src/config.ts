/**
 * Service configuration from environment variables, validated: each bad value is one clear message,
 * and all of them are reported together.
 */
import { readFileSync } from "node:fs";
import { type CardKeyEntry, cardKeysSetting } from "@a2a-ledger/card-signatures";
import { envReader } from "@a2a-ledger/env";
import { type IngestToken, parseTokenEntries } from "./auth.ts";
import { isLogLevel, type LogLevel, logLevels } from "@a2a-ledger/logging";
import { endpointProblems, endpointsFromEnv, topicNames } from "@a2a-ledger/kafka";

export interface IngestConfig {
  host: string;
  port: number;
  brokers: string;
  registryUrl: string;
  topic: string;
  /** Largest request body in bytes. */
  maxBodyBytes: number;
  /** Most events in one request. */
  maxEvents: number;
  /** Largest encoded event in bytes; stays under the broker's max.message.bytes. */
  maxRecordBytes: number;
  /** Deepest JSON nesting accepted inside an event. */
  maxDepth: number;
  /** How long a batch may wait for Kafka's acknowledgement before the answer is 503. */
  produceTimeoutMs: number;
  /** Most records waiting for Kafka at once; beyond it new batches get 503 at once. */
  maxQueuedRecords: number;
  retryAfterSeconds: number;
  /** Bearer tokens with the observers each may claim; empty means no authentication. Never logged. */
  tokens: IngestToken[];
  /** Keys trusted to sign cards, per worker pattern (A2A_LEDGER_CARD_KEYS); empty: no card is checked. */
  cardKeys: readonly CardKeyEntry[];
  /** Requests per window per token (or per client address without tokens); 0: no limit. */
  rateLimit: number;
  rateLimitWindowMs: number;
  /** How long shutdown waits for in-flight batches. */
  shutdownGraceMs: number;
  logLevel: LogLevel;
}

export class IngestConfigError extends Error {
  override name = "IngestConfigError";
  constructor(readonly problems: string[]) {
    super(`Invalid ingest configuration:\n${problems.map((p) => `  - ${p}`).join("\n")}`);
  }
}

export const configDefaults = {
  host: "127.0.0.1",
  port: 18090,
  maxBodyBytes: 8 * 1024 * 1024,
  maxEvents: 5_000,
  maxRecordBytes: 1_000_000,
  maxDepth: 32,
  produceTimeoutMs: 10_000,
  maxQueuedRecords: 50_000,
  retryAfterSeconds: 5,
  rateLimit: 100_000,
  rateLimitWindowMs: 60_000,
  cardKeys: [],
  shutdownGraceMs: 15_000,
  logLevel: "info",
} as const;

export function loadConfig(env: NodeJS.ProcessEnv = process.env): IngestConfig {
  const reader = envReader(env, { renamed: { from: "INGEST_", to: "A2A_LEDGER_INGEST_" } });
  const { problems, text, int } = reader;

  const host = text("A2A_LEDGER_INGEST_HOST") ?? configDefaults.host;
  if (!/^[A-Za-z0-9.:\-[\]]+$/.test(host))
    problems.push(`A2A_LEDGER_INGEST_HOST=${JSON.stringify(host)} is not a host name or IP address`);

  const endpoints = endpointsFromEnv(env);
  problems.push(...endpointProblems(endpoints));

  const topic = text("A2A_LEDGER_INGEST_TOPIC") ?? topicNames.observations;
  if (!/^[A-Za-z0-9._-]{1,249}$/.test(topic))
    problems.push(`A2A_LEDGER_INGEST_TOPIC=${JSON.stringify(topic)} is not a legal Kafka topic name`);

  // Tokens are secrets: no problem ever quotes one.
  const tokens = parseTokenEntries(
    (text("A2A_LEDGER_INGEST_TOKENS") ?? "")
      .split(",")
      .map((t) => t.trim())
      .filter((t) => t !== ""),
    "A2A_LEDGER_INGEST_TOKENS",
    problems,
  );
  const tokensFile = text("A2A_LEDGER_INGEST_TOKENS_FILE");
  if (tokensFile !== undefined) {
    try {
      const lines = readFileSync(tokensFile, "utf8")
        .split(/\r?\n/)
        .map((l) => l.trim())
        .filter((l) => l !== "" && !l.startsWith("#"));
      tokens.push(...parseTokenEntries(lines, `A2A_LEDGER_INGEST_TOKENS_FILE (${tokensFile})`, problems));
    } catch (e) {
      problems.push(
        `A2A_LEDGER_INGEST_TOKENS_FILE=${JSON.stringify(tokensFile)} cannot be read (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`,
      );
    }
  }

  const keys = cardKeysSetting(text("A2A_LEDGER_CARD_KEYS"));
  if (keys.problem !== undefined) problems.push(keys.problem);

  const logLevel = (text("A2A_LEDGER_INGEST_LOG_LEVEL") ??
    text("A2A_LEDGER_LOG_LEVEL") ??
    configDefaults.logLevel) as IngestConfig["logLevel"];
  if (!isLogLevel(logLevel))
    problems.push(`A2A_LEDGER_INGEST_LOG_LEVEL=${JSON.stringify(logLevel)} must be one of ${logLevels.join(", ")}`);

  const config: IngestConfig = {
    host,
    port: int("A2A_LEDGER_INGEST_PORT", configDefaults.port, 0, 65535),
    brokers: endpoints.brokers,
    registryUrl: endpoints.registryUrl,
    topic,
    maxBodyBytes: int("A2A_LEDGER_INGEST_MAX_BODY_BYTES", configDefaults.maxBodyBytes, 1024, 1024 * 1024 * 1024),
    maxEvents: int("A2A_LEDGER_INGEST_MAX_EVENTS", configDefaults.maxEvents, 1, 1_000_000),
    maxRecordBytes: int("A2A_LEDGER_INGEST_MAX_RECORD_BYTES", configDefaults.maxRecordBytes, 1024, 100 * 1024 * 1024),
    maxDepth: int("A2A_LEDGER_INGEST_MAX_DEPTH", configDefaults.maxDepth, 2, 1000),
    produceTimeoutMs: int("A2A_LEDGER_INGEST_PRODUCE_TIMEOUT_MS", configDefaults.produceTimeoutMs, 100, 600_000),
    maxQueuedRecords: int("A2A_LEDGER_INGEST_MAX_QUEUED_RECORDS", configDefaults.maxQueuedRecords, 1, 10_000_000),
    retryAfterSeconds: int("A2A_LEDGER_INGEST_RETRY_AFTER_SECONDS", configDefaults.retryAfterSeconds, 1, 3600),
    tokens,
    cardKeys: keys.entries,
    rateLimit: int("A2A_LEDGER_INGEST_RATE_LIMIT", configDefaults.rateLimit, 0, 100_000_000),
    rateLimitWindowMs: int("A2A_LEDGER_INGEST_RATE_LIMIT_WINDOW_MS", configDefaults.rateLimitWindowMs, 100, 86_400_000),
    shutdownGraceMs: int("A2A_LEDGER_INGEST_SHUTDOWN_GRACE_MS", configDefaults.shutdownGraceMs, 0, 600_000),
    logLevel,
  };
  if (config.maxQueuedRecords < config.maxEvents)
    problems.push(
      `A2A_LEDGER_INGEST_MAX_QUEUED_RECORDS (${config.maxQueuedRecords}) must be at least A2A_LEDGER_INGEST_MAX_EVENTS (${config.maxEvents}), or no full batch could ever be queued`,
    );
  if (problems.length > 0) throw new IngestConfigError(problems);
  return config;
}
