/**
 * The dispatcher's own settings (`A2A_LEDGER_DISPATCHER_*`), declared once: config.ts reads them, and the
 * README's table is this declaration's (settings.test.ts). Shared settings (KAFKA_BROKERS,
 * A2A_LEDGER_TOPIC_SUFFIX, …) are read in config.ts.
 */
import { defineSettings, settingShapes } from "@a2a-ledger/env";
import { logLevels } from "@a2a-ledger/logging";

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

export const dispatcherSettings = defineSettings({
  groupId: {
    name: "A2A_LEDGER_DISPATCHER_GROUP",
    ...settingShapes.name,
    defaultText: "`a2a-ledger-dispatcher` (`.<suffix>` with a topic suffix)",
    doc: "The consumer group.",
  },
  host: {
    name: "A2A_LEDGER_DISPATCHER_HOST",
    ...settingShapes.host,
    default: configDefaults.host,
    doc: "The address of `/healthz`, `/metrics` and the operations API.",
  },
  ingestUrl: {
    name: "A2A_LEDGER_DISPATCHER_INGEST_URL",
    kind: "text",
    default: configDefaults.ingestUrl,
    pattern: /^https?:\/\/[^\s/]+(\/\S*)?$/,
    shape: "an http(s) URL",
    refusal: "is not an http(s) URL",
    doc: "Where the dispatcher records its observations (ingest).",
  },
  ingestToken: {
    name: "A2A_LEDGER_DISPATCHER_INGEST_TOKEN",
    kind: "text",
    pattern: /^\S{16,}$/,
    shape: "at least 16 characters without whitespace",
    secret: true,
    defaultText: "none",
    doc: "The bearer token for ingest, never logged; bind it at ingest to the observer `dispatcher`.",
  },
  journalPath: {
    name: "A2A_LEDGER_DISPATCHER_JOURNAL_PATH",
    kind: "text",
    defaultText: "`$A2A_LEDGER_DATA_DIR/dispatcher.sqlite`",
    doc: "The journal, a SQLite file (`A2A_LEDGER_DATA_DIR` defaults to `./.a2a-ledger/`); `dispatcher.<suffix>.sqlite` with a topic suffix.",
  },
  logLevel: {
    name: "A2A_LEDGER_DISPATCHER_LOG_LEVEL",
    kind: "choice",
    values: logLevels,
    defaultText: "`A2A_LEDGER_LOG_LEVEL`, else `info`",
    doc: "pino's level; logs are JSON lines.",
  },
  workersFile: {
    name: "A2A_LEDGER_DISPATCHER_WORKERS_FILE",
    kind: "text",
    defaultText: "none (every command is refused)",
    doc: "The workers file: the workers the dispatcher may reach, and each skill's canaries and re-dispatch options.",
  },
  fromBeginning: {
    name: "A2A_LEDGER_DISPATCHER_FROM_BEGINNING",
    kind: "bool",
    default: true,
    doc: "A group without committed offsets starts at the earliest retained command; `false`, at the end of the topic.",
  },
  concurrency: {
    name: "A2A_LEDGER_DISPATCHER_CONCURRENCY",
    kind: "int",
    default: configDefaults.concurrency,
    min: 1,
    max: 64,
    doc: "Command partitions handled at once.",
  },
  sessionTimeoutMs: {
    name: "A2A_LEDGER_DISPATCHER_SESSION_TIMEOUT_MS",
    kind: "int",
    default: configDefaults.sessionTimeoutMs,
    min: 6_000,
    max: 300_000,
    doc: "The consumer group's session timeout in milliseconds.",
  },
  port: {
    name: "A2A_LEDGER_DISPATCHER_PORT",
    kind: "int",
    default: configDefaults.port,
    min: 0,
    max: 65535,
    doc: "The port of `/healthz`, `/metrics` and the operations API; `0` picks a free one.",
  },
  canaryPollMs: {
    name: "A2A_LEDGER_DISPATCHER_CANARY_POLL_MS",
    kind: "int",
    default: configDefaults.canaryPollMs,
    min: 100,
    max: 3_600_000,
    doc: "How often, in milliseconds, parked canaries are polled.",
  },
  retryPollMs: {
    name: "A2A_LEDGER_DISPATCHER_RETRY_POLL_MS",
    kind: "int",
    default: configDefaults.retryPollMs,
    min: 100,
    max: 3_600_000,
    doc: "How often, in milliseconds, the journal is read for the retries an operator asked for (`npm run retry`).",
  },
  journalRetentionMs: {
    name: "A2A_LEDGER_DISPATCHER_JOURNAL_RETENTION_MS",
    kind: "int",
    default: configDefaults.journalRetentionMs,
    min: 60_000,
    max: 3_650 * 24 * 3_600_000,
    doc: "Finished journal rows (and canaries, rejected records) older than this, in milliseconds (the default is 14 days), are removed; keep it above the commands topic's 7 days.",
  },
  probeTimeoutMs: {
    name: "A2A_LEDGER_DISPATCHER_PROBE_TIMEOUT_MS",
    kind: "int",
    default: configDefaults.probeTimeoutMs,
    min: 1_000,
    max: 600_000,
    doc: "Longest a canary may take, in milliseconds, to reach a terminal or interrupted state.",
  },
  dispatchTimeoutMs: {
    name: "A2A_LEDGER_DISPATCHER_DISPATCH_TIMEOUT_MS",
    kind: "int",
    default: configDefaults.dispatchTimeoutMs,
    min: 1_000,
    max: 600_000,
    doc: "Longest a re-dispatch may take to be answered, in milliseconds.",
  },
  unavailableRetryMs: {
    name: "A2A_LEDGER_DISPATCHER_UNAVAILABLE_RETRY_MS",
    kind: "int",
    default: configDefaults.unavailableRetryMs,
    min: 0,
    // Below the group's rebalance timeout (kafkajs: 60 s): a member busy longer during a rebalance is
    // dropped from the group, and another instance would be handed the command while this one still tries.
    max: 50_000,
    doc: "How long, in milliseconds, a command whose worker's proxy could not be reached before anything was sent (connection refused, a timeout or a 5xx/429 fetching the card: a proxy restarting) is tried again, with backoff up to 5 s, before `DISPATCHER_CARD_UNAVAILABLE` fails it; `0`: never. At most 50,000, below the consumer group's rebalance timeout (60 s), past which another instance could be handed the command while this one still tries.",
  },
});
