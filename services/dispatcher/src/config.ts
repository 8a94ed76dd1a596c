/**
 * Dispatcher configuration from environment variables, validated: each bad value is one clear message,
 * and all of them are reported together (with the workers file's problems, when it has some). Its own
 * settings are declared in settings.ts.
 */
import { envReader, ConfigError } from "@a2a-ledger/env";
import { hostname } from "node:os";
import { join, resolve } from "node:path";
import { endpointProblems, endpointsFromEnv, suffixedTopicNames, topicNames, type TopicNames } from "@a2a-ledger/kafka";
import { levelFromEnv, type LogLevel } from "@a2a-ledger/logging";
import { configError } from "./errors.ts";
import { configDefaults, dispatcherSettings } from "./settings.ts";
import { readWorkersConfig, type WorkersConfig } from "./worker-config.ts";

export { configDefaults };

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

/** The journal's file: A2A_LEDGER_DISPATCHER_JOURNAL_PATH (declared in settings.ts), else `dispatcher[.<suffix>].sqlite` in A2A_LEDGER_DATA_DIR (what `npm run retry` opens too). */
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
  const { problems, text } = reader;

  const { brokers, registryUrl } = endpointsFromEnv(env);
  problems.push(...endpointProblems({ brokers, registryUrl }));
  const suffix = text("A2A_LEDGER_TOPIC_SUFFIX");
  if (suffix !== undefined && !/^[A-Za-z0-9._-]{1,100}$/.test(suffix))
    problems.push(`A2A_LEDGER_TOPIC_SUFFIX=${JSON.stringify(suffix)}: letters, digits, '.', '_' and '-' only`);

  const {
    groupId,
    ingestUrl,
    ingestToken,
    journalPath: _,
    logLevel,
    workersFile,
    ...own
  } = dispatcherSettings.read(reader);
  const fallbackLevel = levelFromEnv(env);
  let workers: WorkersConfig = { workers: new Map() };
  if (workersFile !== undefined) {
    try {
      workers = readWorkersConfig(resolve(workersFile));
    } catch (e) {
      if (!(e instanceof ConfigError)) throw e;
      problems.push(...e.problems.map((p) => `A2A_LEDGER_DISPATCHER_WORKERS_FILE ${p}`));
    }
  }

  const config: DispatcherConfig = {
    ...own,
    brokers,
    registryUrl,
    topics: suffix === undefined ? topicNames : suffixedTopicNames(suffix),
    groupId: groupId ?? (suffix === undefined ? configDefaults.groupId : `${configDefaults.groupId}.${suffix}`),
    instanceId: text("A2A_LEDGER_INSTANCE_ID") ?? `${hostname()}-${process.pid}`,
    ingestUrl: ingestUrl.replace(/\/+$/, ""),
    ingestToken: ingestToken ?? null,
    journalPath: journalPathOf(text),
    workersFile: workersFile ?? null,
    workers,
    logLevel: logLevel ?? fallbackLevel,
  };
  if (problems.length > 0) throw configError(problems);
  return config;
}
