/**
 * Service configuration from environment variables, validated: each bad value is one clear message,
 * and all of them are reported together. Its own settings are declared in settings.ts.
 */
import { readFileSync } from "node:fs";
import { type CardKeyEntry, cardKeysSetting } from "@a2a-ledger/card-signatures";
import { ConfigError, envReader } from "@a2a-ledger/env";
import { type IngestToken, parseTokenEntries } from "./auth.ts";
import { isLogLevel, type LogLevel, logLevels } from "@a2a-ledger/logging";
import { endpointProblems, endpointsFromEnv } from "@a2a-ledger/kafka";
import { configDefaults, ingestSettings } from "./settings.ts";

export { configDefaults };

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

export function loadConfig(env: NodeJS.ProcessEnv = process.env): IngestConfig {
  const reader = envReader(env, { renamed: { from: "INGEST_", to: "A2A_LEDGER_INGEST_" } });
  const { problems, text } = reader;
  const endpoints = endpointsFromEnv(env);
  problems.push(...endpointProblems(endpoints));
  const { tokens: tokenEntries, tokensFile, logLevel, ...own } = ingestSettings.read(reader);

  // Tokens are secrets: no problem ever quotes one.
  const tokens = parseTokenEntries(
    (tokenEntries ?? "")
      .split(",")
      .map((t) => t.trim())
      .filter((t) => t !== ""),
    "A2A_LEDGER_INGEST_TOKENS",
    problems,
  );
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

  const sharedLevel = text("A2A_LEDGER_LOG_LEVEL") ?? configDefaults.logLevel;
  if (logLevel === undefined && !isLogLevel(sharedLevel))
    problems.push(`A2A_LEDGER_LOG_LEVEL=${JSON.stringify(sharedLevel)} must be one of ${logLevels.join(", ")}`);

  const config: IngestConfig = {
    ...own,
    brokers: endpoints.brokers,
    registryUrl: endpoints.registryUrl,
    tokens,
    cardKeys: keys.entries,
    logLevel: logLevel ?? (isLogLevel(sharedLevel) ? sharedLevel : configDefaults.logLevel),
  };
  if (config.maxQueuedRecords < config.maxEvents)
    problems.push(
      `A2A_LEDGER_INGEST_MAX_QUEUED_RECORDS (${config.maxQueuedRecords}) must be at least A2A_LEDGER_INGEST_MAX_EVENTS (${config.maxEvents}), or no full batch could ever be queued`,
    );
  if (problems.length > 0) throw new ConfigError("ingest", "INGEST_CONFIG_INVALID", problems);
  return config;
}
