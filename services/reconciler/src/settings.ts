/**
 * The reconciler's own settings (`A2A_LEDGER_RECONCILER_*`), declared once: config.ts reads them, and the
 * README's table is this declaration's (settings.test.ts). Shared settings (KAFKA_BROKERS, A2A_LEDGER_RULES, …)
 * are read in config.ts.
 */
import { defaultRetention } from "@a2a-ledger/core";
import { defineSettings, settingShapes } from "@a2a-ledger/env";
import { defaultMaxCorrelations } from "./correlation-budget.ts";

/** Ten years: a horizon beyond it keeps every correlation for the ledger's life. */
const maxRetentionMs = 3_650 * 86_400_000;

export const reconcilerSettings = defineSettings({
  groupId: {
    name: "A2A_LEDGER_RECONCILER_GROUP",
    ...settingShapes.name,
    default: "a2a-ledger-reconciler",
    doc: "The consumer group every instance joins; its transactional ids derive from it.",
  },
  metricsPort: {
    name: "A2A_LEDGER_RECONCILER_METRICS_PORT",
    kind: "int",
    min: 1024,
    max: 65535,
    doc: "Serves `/metrics`, `/healthz` (200 while running) and `/readyz` on 127.0.0.1; `/readyz` is 503 while not running or while observations wait for the correlation budget, with `status`, `live`, `max` and `waitingPartitions`. Unset, none.",
  },
  maxBatch: {
    name: "A2A_LEDGER_RECONCILER_MAX_BATCH",
    kind: "int",
    default: 2_000,
    min: 1,
    max: 100_000,
    doc: "Observations per transaction, at most.",
  },
  sessionTimeoutMs: {
    name: "A2A_LEDGER_RECONCILER_SESSION_TIMEOUT_MS",
    kind: "int",
    default: 10_000,
    min: 6_000,
    max: 300_000,
    doc: "The consumer group's session timeout in milliseconds: how long a dead instance holds its partitions.",
  },
  transactionStepTimeoutMs: {
    name: "A2A_LEDGER_RECONCILER_TRANSACTION_STEP_TIMEOUT_MS",
    kind: "int",
    default: 30_000,
    min: 1_000,
    max: 600_000,
    doc: "Longest a step of a transaction may take, in milliseconds, before its outcome counts as unknown and its producer is replaced.",
  },
  concurrency: {
    name: "A2A_LEDGER_RECONCILER_CONCURRENCY",
    kind: "int",
    min: 1,
    max: 64,
    defaultText: "the observations topic's partition count",
    doc: "Input partitions processed at once; unset, as many as the observations topic has (its metadata, read at start).",
  },
  recheckMs: {
    name: "A2A_LEDGER_RECONCILER_RECHECK_MS",
    kind: "int",
    default: 500,
    min: 50,
    max: 600_000,
    doc: "How often, in milliseconds, partitions without traffic re-examine their blocked correlations after a capability change.",
  },
  maxCorrelations: {
    name: "A2A_LEDGER_RECONCILER_MAX_CORRELATIONS",
    kind: "int",
    default: defaultMaxCorrelations(),
    min: 1,
    max: 1_000_000_000,
    defaultText: "half the heap limit at 8 KiB each",
    doc: 'The memory budget: live correlations one instance holds, every partition together (see "State").',
  },
  finishedMs: {
    name: "A2A_LEDGER_RECONCILER_RETENTION",
    kind: "duration",
    default: defaultRetention.finishedMs,
    min: 1_000,
    max: maxRetentionMs,
    doc: "How long a finished correlation stays after its last event, by stream time.",
  },
  staleMs: {
    name: "A2A_LEDGER_RECONCILER_STALE_AFTER",
    kind: "duration",
    default: defaultRetention.staleMs,
    min: 1_000,
    max: maxRetentionMs,
    doc: 'How long a correlation without an outcome stays before it leaves with `CorrelationExpired` (see "State").',
  },
  stateDir: {
    name: "A2A_LEDGER_RECONCILER_STATE_DIR",
    kind: "text",
    doc: 'Where a clean stop leaves each partition\'s state, for the next restore to read only the changelog after it; unset, every restore reads the changelog whole (see "State").',
  },
});
