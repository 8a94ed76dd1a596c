/**
 * The projector's own settings (`A2A_LEDGER_PROJECTOR_*`), declared once: config.ts reads them, and the
 * README's table is this declaration's (settings.test.ts). Shared settings (KAFKA_BROKERS,
 * A2A_LEDGER_TOPIC_SUFFIX, …) are read in config.ts.
 */
import { defineSettings, settingShapes } from "@a2a-ledger/env";
import { type LogLevel, logLevels } from "@a2a-ledger/logging";

export type { LogLevel };

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

export const projectorSettings = defineSettings({
  host: {
    name: "A2A_LEDGER_PROJECTOR_HOST",
    ...settingShapes.host,
    default: configDefaults.host,
    doc: "The address the API and the page listen on.",
  },
  databaseUrl: {
    name: "A2A_LEDGER_PROJECTOR_DATABASE_URL",
    kind: "text",
    pattern: /^postgres(ql)?:\/\/\S+$/,
    shape: "a postgres:// or postgresql:// URL",
    secret: true,
    defaultText: "unset: SQLite",
    doc: "Selects PostgreSQL; the value may hold a password and is never logged or echoed.",
  },
  sqlitePath: {
    name: "A2A_LEDGER_PROJECTOR_SQLITE_PATH",
    kind: "text",
    defaultText: "`$A2A_LEDGER_DATA_DIR/projector.sqlite`",
    doc: "The SQLite file (`A2A_LEDGER_DATA_DIR` defaults to `./.a2a-ledger/`); `projector.<suffix>.sqlite` with a topic suffix.",
  },
  logLevel: {
    name: "A2A_LEDGER_PROJECTOR_LOG_LEVEL",
    kind: "choice",
    values: logLevels,
    default: configDefaults.logLevel,
    doc: "pino's level; logs are JSON lines.",
  },
  cursorSecret: {
    name: "A2A_LEDGER_PROJECTOR_CURSOR_SECRET",
    kind: "text",
    default: configDefaults.cursorSecret,
    pattern: /^[\s\S]{16,}$/,
    shape: "at least 16 characters",
    secret: true,
    doc: "Signs pagination cursors; set one shared by the instances behind one address.",
  },
  port: {
    name: "A2A_LEDGER_PROJECTOR_PORT",
    kind: "int",
    default: configDefaults.port,
    min: 0,
    max: 65535,
    doc: "The API's and the page's port; 0 picks a free one.",
  },
  groupId: {
    name: "A2A_LEDGER_PROJECTOR_GROUP",
    ...settingShapes.name,
    defaultText: "`a2a-ledger-projector` (`.<suffix>` appended with a topic suffix)",
    doc: "The consumer group.",
  },
  maxBatch: {
    name: "A2A_LEDGER_PROJECTOR_MAX_BATCH",
    kind: "int",
    default: configDefaults.maxBatch,
    min: 1,
    max: 10_000,
    doc: "Records per database transaction, at most.",
  },
  concurrency: {
    name: "A2A_LEDGER_PROJECTOR_CONCURRENCY",
    kind: "int",
    min: 1,
    max: 32,
    defaultText: "2 (SQLite), 4 (PostgreSQL)",
    doc: "Partitions projected at once.",
  },
  sessionTimeoutMs: {
    name: "A2A_LEDGER_PROJECTOR_SESSION_TIMEOUT_MS",
    kind: "int",
    default: configDefaults.sessionTimeoutMs,
    min: 6_000,
    max: 300_000,
    doc: "The consumer group's session timeout in milliseconds.",
  },
  maxStreams: {
    name: "A2A_LEDGER_PROJECTOR_MAX_STREAMS",
    kind: "int",
    default: configDefaults.maxStreams,
    min: 0,
    max: 10_000,
    doc: "Live streams (SSE) one instance serves at once.",
  },
  tokens: {
    name: "A2A_LEDGER_PROJECTOR_TOKENS",
    kind: "text",
    shape: "comma-separated tokens of at least 16 characters",
    defaultText: "none",
    doc: "Read tokens. When set, `/v1/*` (the stream too) and `/metrics` need `Authorization: Bearer <token>`; the page's files, `/healthz`, `/readyz` and `/openapi.json` stay open. The check is made on the route the request matched (as fastify's router decodes it), never on the raw URL, so \`/%761/tasks\` needs a token like \`/v1/tasks\`; a path that names no route is 404 without one. The page asks for the token once and keeps it in the tab's sessionStorage; it reads the live stream with fetch, so the token is only ever a header.",
  },
  metricsOpen: {
    name: "A2A_LEDGER_PROJECTOR_METRICS_OPEN",
    kind: "bool",
    default: false,
    doc: "`true` serves `/metrics` without a token even when tokens are set.",
  },
  rateLimit: {
    name: "A2A_LEDGER_PROJECTOR_RATE_LIMIT",
    kind: "int",
    default: configDefaults.rateLimit,
    min: 0,
    max: 100_000_000,
    doc: `Requests per window per read token (per client address without tokens) on every route a token guards (\`/v1/*\`, the stream's connection, \`/metrics\` unless open); the page's files, \`/healthz\`, \`/readyz\` and \`/openapi.json\` are not limited. Over it: 429 \`PROJECTOR_RATE_LIMITED\` with \`Retry-After\`. Counted by \`@fastify/rate-limit\` in each instance's memory; the caller is the token's position in the configuration, never the token. \`0\` switches the limit off. The default is far above what the page, the demo, the tests and the benchmarks (1,000 queries of each kind) send.`,
  },
  rateLimitWindowMs: {
    name: "A2A_LEDGER_PROJECTOR_RATE_LIMIT_WINDOW_MS",
    kind: "int",
    default: configDefaults.rateLimitWindowMs,
    min: 100,
    max: 86_400_000,
    doc: "The rate limit's window in milliseconds.",
  },
});
