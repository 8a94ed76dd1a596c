/**
 * Dispatcher configuration from environment variables, validated: each bad value is one clear message,
 * and all of them are reported together (with the workers file's problems, when it has some).
 */
import { envReader } from "@a2a-ledger/env";
import { hostname } from "node:os";
import { join, resolve } from "node:path";
import { endpointProblems, endpointsFromEnv, suffixedTopicNames, topicNames, type TopicNames } from "@a2a-ledger/kafka";
import { isLogLevel, levelFromEnv, logLevels, type LogLevel } from "@a2a-ledger/logging";
import { DispatcherConfigError } from "./errors.ts";
import { readWorkersConfig, type WorkersConfig } from "./worker-config.ts";

export interface DispatcherConfig {
  brokers: string;
  registryUrl: string;
  topics: TopicNames;
  groupId: string;
  instanceId: string;
  /**
   * A group without committed offsets starts at the earliest retained command (the default: a new
   * dispatcher runs every command its journal does not know), or, when false, at the end of the topic.
   */
  fromBeginning: boolean;
  /** Command partitions handled at the same time. */
  concurrency: number;
  sessionTimeoutMs: number;
  host: string;
  /** 0 picks a free port. */
  port: number;
  ingestUrl: string;
  /** Bearer token for the ingest API; never logged. */
  ingestToken: string | null;
  /** The SQLite file of the command journal and the parked canaries. */
  journalPath: string;
  workersFile: string | null;
  workers: WorkersConfig;
  canaryPollMs: number;
  /** How often the journal is read for the retries an operator asked for (`npm run retry`). */
  retryPollMs: number;
  /** Finished journal rows (and canaries, rejected records) older than this are removed. */
  journalRetentionMs: number;
  /** Longest a canary may take to reach a terminal or interrupted state. */
  probeTimeoutMs: number;
  /** Longest a re-dispatch may take to be answered. */
  dispatchTimeoutMs: number;
  logLevel: LogLevel;
  /**
   * How long a command whose worker could not be reached before anything was sent (its card not fetched:
   * the proxy restarting, a 5xx) is tried again, with backoff, before it fails (0: never; at most 50 s,
   * below the consumer group's rebalance timeout).
   */
  unavailableRetryMs: number;
}

export const configDefaults = {
  host: "127.0.0.1",
  port: 18096,
  ingestUrl: "http://127.0.0.1:18090",
  groupId: "a2a-ledger-dispatcher",
  concurrency: 3,
  sessionTimeoutMs: 30_000,
  canaryPollMs: 5_000,
  retryPollMs: 5_000,
  /** Twice the commands topic's retention (7 days): a command still in the topic is always still in the journal. */
  journalRetentionMs: 14 * 24 * 3_600_000,
  probeTimeoutMs: 30_000,
  dispatchTimeoutMs: 60_000,
  unavailableRetryMs: 30_000,
} as const;

/** The journal's file: A2A_LEDGER_DISPATCHER_JOURNAL_PATH, else `dispatcher[.<suffix>].sqlite` in A2A_LEDGER_DATA_DIR (what `npm run retry` opens too). */
export function journalPathOf(text: (name: string) => string | undefined): string {
  const suffix = text("A2A_LEDGER_TOPIC_SUFFIX");
  const dataDir = resolve(text("A2A_LEDGER_DATA_DIR") ?? ".a2a-ledger");
  return resolve(
    text("A2A_LEDGER_DISPATCHER_JOURNAL_PATH") ??
      join(dataDir, suffix === undefined ? "dispatcher.sqlite" : `dispatcher.${suffix}.sqlite`),
  );
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): DispatcherConfig {
  const reader = envReader(env, { renamed: { from: "DISPATCHER_", to: "A2A_LEDGER_DISPATCHER_" } });
  const { problems, text, int } = reader;
  const bool = (name: string): boolean => reader.bool(name);

  const { brokers, registryUrl } = endpointsFromEnv(env);
  problems.push(...endpointProblems({ brokers, registryUrl }));

  const suffix = text("A2A_LEDGER_TOPIC_SUFFIX");
  if (suffix !== undefined && !/^[A-Za-z0-9._-]{1,100}$/.test(suffix))
    problems.push(`A2A_LEDGER_TOPIC_SUFFIX=${JSON.stringify(suffix)}: letters, digits, '.', '_' and '-' only`);
  const groupId =
    text("A2A_LEDGER_DISPATCHER_GROUP") ??
    (suffix === undefined ? configDefaults.groupId : `${configDefaults.groupId}.${suffix}`);
  if (text("A2A_LEDGER_DISPATCHER_GROUP") !== undefined && !/^[A-Za-z0-9._-]{1,200}$/.test(groupId))
    problems.push(`A2A_LEDGER_DISPATCHER_GROUP=${JSON.stringify(groupId)}: letters, digits, '.', '_' and '-' only`);

  const host = text("A2A_LEDGER_DISPATCHER_HOST") ?? configDefaults.host;
  if (!/^[A-Za-z0-9.:\-[\]]+$/.test(host))
    problems.push(`A2A_LEDGER_DISPATCHER_HOST=${JSON.stringify(host)} is not a host name or IP address`);

  const ingestUrl = (text("A2A_LEDGER_DISPATCHER_INGEST_URL") ?? configDefaults.ingestUrl).replace(/\/+$/, "");
  if (!/^https?:\/\/[^\s/]+(\/\S*)?$/.test(ingestUrl))
    problems.push(`A2A_LEDGER_DISPATCHER_INGEST_URL=${JSON.stringify(ingestUrl)} is not an http(s) URL`);
  const ingestToken = text("A2A_LEDGER_DISPATCHER_INGEST_TOKEN") ?? null;
  if (ingestToken !== null && (ingestToken.length < 16 || /\s/.test(ingestToken)))
    problems.push(
      "A2A_LEDGER_DISPATCHER_INGEST_TOKEN must be at least 16 characters without whitespace (value not shown)",
    );

  const journalPath = journalPathOf(text);

  const logLevel = text("A2A_LEDGER_DISPATCHER_LOG_LEVEL") ?? levelFromEnv(env);
  if (!isLogLevel(logLevel))
    problems.push(`A2A_LEDGER_DISPATCHER_LOG_LEVEL=${JSON.stringify(logLevel)} must be one of ${logLevels.join(", ")}`);

  const workersFile = text("A2A_LEDGER_DISPATCHER_WORKERS_FILE") ?? null;
  let workers: WorkersConfig = { workers: new Map() };
  if (workersFile !== null) {
    try {
      workers = readWorkersConfig(resolve(workersFile));
    } catch (e) {
      if (!(e instanceof DispatcherConfigError)) throw e;
      problems.push(...e.problems.map((p) => `A2A_LEDGER_DISPATCHER_WORKERS_FILE ${p}`));
    }
  }

  const config: DispatcherConfig = {
    brokers,
    registryUrl,
    topics: suffix === undefined ? topicNames : suffixedTopicNames(suffix),
    groupId,
    instanceId: text("A2A_LEDGER_INSTANCE_ID") ?? `${hostname()}-${process.pid}`,
    fromBeginning: reader.bool("A2A_LEDGER_DISPATCHER_FROM_BEGINNING", true),
    concurrency: int("A2A_LEDGER_DISPATCHER_CONCURRENCY", configDefaults.concurrency, 1, 64),
    sessionTimeoutMs: int("A2A_LEDGER_DISPATCHER_SESSION_TIMEOUT_MS", configDefaults.sessionTimeoutMs, 6_000, 300_000),
    host,
    port: int("A2A_LEDGER_DISPATCHER_PORT", configDefaults.port, 0, 65535),
    ingestUrl,
    ingestToken,
    journalPath,
    workersFile,
    workers,
    canaryPollMs: int("A2A_LEDGER_DISPATCHER_CANARY_POLL_MS", configDefaults.canaryPollMs, 100, 3_600_000),
    retryPollMs: int("A2A_LEDGER_DISPATCHER_RETRY_POLL_MS", configDefaults.retryPollMs, 100, 3_600_000),
    journalRetentionMs: int(
      "A2A_LEDGER_DISPATCHER_JOURNAL_RETENTION_MS",
      configDefaults.journalRetentionMs,
      60_000,
      3_650 * 24 * 3_600_000,
    ),
    probeTimeoutMs: int("A2A_LEDGER_DISPATCHER_PROBE_TIMEOUT_MS", configDefaults.probeTimeoutMs, 1_000, 600_000),
    dispatchTimeoutMs: int(
      "A2A_LEDGER_DISPATCHER_DISPATCH_TIMEOUT_MS",
      configDefaults.dispatchTimeoutMs,
      1_000,
      600_000,
    ),
    // Below the group's rebalance timeout (kafkajs: 60 s): a member busy longer during a rebalance is
    // dropped from the group, and another instance would be handed the command while this one still tries.
    unavailableRetryMs: int("A2A_LEDGER_DISPATCHER_UNAVAILABLE_RETRY_MS", configDefaults.unavailableRetryMs, 0, 50_000),
    logLevel: logLevel as LogLevel,
  };
  if (problems.length > 0) throw new DispatcherConfigError(problems);
  return config;
}
