/**
 * The projector's schema, versioned in code. Bookkeeping tables (migrations, generations, the active
 * generation) exist once; the view tables exist once per generation, named `v<gen>_<table>`, so that
 * a rebuild fills fresh tables beside the ones queries read and swaps them in when caught up.
 *
 * Migrations are append-only: each has a version, and `views(gen)` statements that bring one
 * generation's tables from the previous version to this one. A generation records the version it is
 * at; opening the store brings the active generation up to date. The same SQL runs on SQLite and
 * PostgreSQL (TEXT, BIGINT, INTEGER, ON CONFLICT upserts; no dialect functions).
 */

export interface Migration {
  version: number;
  description: string;
  /** Statements for one generation's view tables. */
  views(gen: number): string[];
}

/** Table names of one generation; `gen` is an integer the store chose, never user input. */
export function tableNames(gen: number) {
  if (!Number.isSafeInteger(gen) || gen < 1) throw new Error(`invalid generation ${gen}`);
  const t = (name: string) => `v${gen}_${name}`;
  return {
    offset: t("offset"),
    task: t("task"),
    taskKey: t("task_key"),
    event: t("event"),
    attempt: t("attempt"),
    serverTask: t("server_task"),
    artifact: t("artifact"),
    violation: t("violation"),
    worker: t("worker"),
    card: t("card"),
    probe: t("probe"),
    dlq: t("dlq"),
  } as const;
}

export type Tables = ReturnType<typeof tableNames>;

/** Bookkeeping, created once per database. */
export const bookkeeping: string[] = [
  `CREATE TABLE IF NOT EXISTS projector_migration (version INTEGER PRIMARY KEY, description TEXT NOT NULL)`,
  `CREATE TABLE IF NOT EXISTS projector_generation (gen INTEGER PRIMARY KEY, state TEXT NOT NULL, schema_version INTEGER NOT NULL, created_at BIGINT NOT NULL, activated_at BIGINT)`,
  `CREATE TABLE IF NOT EXISTS projector_active (id INTEGER PRIMARY KEY, gen INTEGER NOT NULL)`,
];

export const migrations: readonly Migration[] = [
  {
    version: 1,
    description:
      "views: tasks, attempts, server tasks, events, artifacts, violations, workers, cards, probes, dead letters; offsets",
    views(gen) {
      const n = tableNames(gen);
      return [
        `CREATE TABLE ${n.offset} (topic TEXT NOT NULL, log_partition INTEGER NOT NULL, next_offset BIGINT NOT NULL, last_record_at BIGINT, PRIMARY KEY (topic, log_partition))`,
        `CREATE TABLE ${n.task} (
          correlation_id TEXT PRIMARY KEY, has_task INTEGER NOT NULL, status TEXT NOT NULL,
          first_at BIGINT NOT NULL, last_at BIGINT NOT NULL, event_count INTEGER NOT NULL, violation_count INTEGER NOT NULL, attempt_count INTEGER NOT NULL,
          last_state TEXT, last_state_at BIGINT, last_state_event TEXT, last_observer TEXT,
          terminal_state TEXT, terminal_at BIGINT, terminal_event TEXT,
          decision_type TEXT, decision_at BIGINT, decision_rank INTEGER, decision_id TEXT,
          indeterminate_at BIGINT, blocked_reason TEXT, waiting_since BIGINT)`,
        `CREATE INDEX ${n.task}_list ON ${n.task} (has_task, first_at, correlation_id)`,
        `CREATE INDEX ${n.task}_status ON ${n.task} (status, has_task, first_at, correlation_id)`,
        `CREATE INDEX ${n.task}_queue ON ${n.task} (status, waiting_since, correlation_id)`,
        // first_at repeats the task's, so that "tasks of a worker, newest first" is one index range.
        `CREATE TABLE ${n.taskKey} (kind TEXT NOT NULL, value TEXT NOT NULL, correlation_id TEXT NOT NULL, first_at BIGINT NOT NULL, PRIMARY KEY (kind, value, correlation_id))`,
        `CREATE INDEX ${n.taskKey}_correlation ON ${n.taskKey} (correlation_id)`,
        `CREATE INDEX ${n.taskKey}_recent ON ${n.taskKey} (kind, value, first_at, correlation_id)`,
        `CREATE TABLE ${n.event} (
          correlation_id TEXT NOT NULL, id TEXT NOT NULL, kind TEXT NOT NULL, type TEXT NOT NULL, event_id TEXT NOT NULL,
          occurred_at BIGINT NOT NULL, observer TEXT, worker_id TEXT, server_task_id TEXT, attempt INTEGER, state TEXT,
          topic TEXT NOT NULL, log_partition INTEGER NOT NULL, log_offset BIGINT NOT NULL, body TEXT NOT NULL,
          PRIMARY KEY (correlation_id, id))`,
        `CREATE INDEX ${n.event}_timeline ON ${n.event} (correlation_id, occurred_at, id)`,
        `CREATE INDEX ${n.event}_event_id ON ${n.event} (event_id)`,
        // Only decisions are looked up by worker (the worker page); a partial index keeps observations out of it.
        `CREATE INDEX ${n.event}_worker_decisions ON ${n.event} (worker_id, occurred_at) WHERE kind = 'decision'`,
        `CREATE TABLE ${n.attempt} (
          correlation_id TEXT NOT NULL, attempt INTEGER NOT NULL, worker_id TEXT NOT NULL, skill_id TEXT, message_id TEXT,
          accepted_modes TEXT NOT NULL, card_hash TEXT, dispatched_at BIGINT, dispatch_event_id TEXT, observer TEXT, inferred INTEGER NOT NULL,
          PRIMARY KEY (correlation_id, attempt))`,
        `CREATE TABLE ${n.serverTask} (
          correlation_id TEXT NOT NULL, worker_id TEXT NOT NULL, server_task_id TEXT NOT NULL, attempt INTEGER NOT NULL, context_id TEXT,
          first_at BIGINT NOT NULL, last_state TEXT, last_state_at BIGINT, last_state_event TEXT, lost_at BIGINT, lost_event_id TEXT,
          PRIMARY KEY (correlation_id, worker_id, server_task_id))`,
        `CREATE INDEX ${n.serverTask}_worker ON ${n.serverTask} (worker_id, server_task_id)`,
        `CREATE TABLE ${n.artifact} (
          correlation_id TEXT NOT NULL, worker_id TEXT NOT NULL, server_task_id TEXT NOT NULL, artifact_id TEXT NOT NULL, attempt INTEGER NOT NULL,
          name TEXT, media_types TEXT NOT NULL, part_kinds TEXT NOT NULL, size_bytes BIGINT NOT NULL, chunks INTEGER NOT NULL, complete INTEGER NOT NULL,
          first_at BIGINT NOT NULL, last_at BIGINT NOT NULL, event_ids TEXT NOT NULL,
          PRIMARY KEY (correlation_id, worker_id, server_task_id, artifact_id))`,
        `CREATE TABLE ${n.violation} (
          decision_id TEXT PRIMARY KEY, correlation_id TEXT NOT NULL, worker_id TEXT, kind TEXT NOT NULL, server_task_id TEXT, skill_id TEXT,
          observed TEXT NOT NULL, allowed TEXT NOT NULL, card_hash TEXT, detail TEXT NOT NULL, output TEXT, attempts TEXT NOT NULL,
          decided_at BIGINT NOT NULL, cause_event_ids TEXT NOT NULL, rules_version TEXT NOT NULL)`,
        `CREATE INDEX ${n.violation}_time ON ${n.violation} (decided_at, decision_id)`,
        `CREATE INDEX ${n.violation}_kind ON ${n.violation} (kind, decided_at, decision_id)`,
        `CREATE INDEX ${n.violation}_worker ON ${n.violation} (worker_id, decided_at, decision_id)`,
        `CREATE INDEX ${n.violation}_correlation ON ${n.violation} (correlation_id, decided_at)`,
        `CREATE TABLE ${n.worker} (
          worker_id TEXT PRIMARY KEY, first_seen BIGINT, last_seen BIGINT, card_hash TEXT, card_url TEXT, vendor TEXT, task_store TEXT,
          snapshot TEXT, snapshot_valid_from BIGINT, probe_count INTEGER NOT NULL, card_count INTEGER NOT NULL)`,
        `CREATE TABLE ${n.card} (
          worker_id TEXT NOT NULL, card_hash TEXT NOT NULL, first_seen BIGINT NOT NULL, last_seen BIGINT NOT NULL, first_event_id TEXT NOT NULL,
          card TEXT NOT NULL, card_url TEXT NOT NULL, etag TEXT, max_age_seconds BIGINT, fetches INTEGER NOT NULL,
          PRIMARY KEY (worker_id, card_hash))`,
        `CREATE TABLE ${n.probe} (
          worker_id TEXT NOT NULL, event_id TEXT NOT NULL, correlation_id TEXT NOT NULL, card_hash TEXT NOT NULL, skill_id TEXT, occurred_at BIGINT NOT NULL,
          states_observed TEXT NOT NULL, reobservable TEXT NOT NULL, emitted_modes TEXT NOT NULL, durable INTEGER, parked_canaries TEXT NOT NULL,
          PRIMARY KEY (worker_id, event_id))`,
        `CREATE TABLE ${n.dlq} (
          topic TEXT NOT NULL, log_partition INTEGER NOT NULL, log_offset BIGINT NOT NULL, recorded_by TEXT NOT NULL, reason TEXT NOT NULL, detail TEXT NOT NULL,
          source_topic TEXT, source_partition INTEGER, source_offset BIGINT, record_key TEXT, value_bytes INTEGER NOT NULL, value_preview TEXT NOT NULL,
          recorded_at BIGINT NOT NULL, PRIMARY KEY (topic, log_partition, log_offset))`,
        `CREATE INDEX ${n.dlq}_time ON ${n.dlq} (recorded_at, topic, log_partition, log_offset)`,
      ];
    },
  },
  {
    version: 2,
    description: "views: an index of the emissions each worker's guard refused, for the worker page",
    views(gen) {
      const n = tableNames(gen);
      return [
        `CREATE INDEX ${n.event}_worker_refusals ON ${n.event} (worker_id, occurred_at) WHERE type = 'EmissionRefused'`,
      ];
    },
  },
  {
    version: 3,
    description: "views: an index of the correlations the reconciler re-dispatched, which every batch re-links whole",
    views(gen) {
      const n = tableNames(gen);
      return [
        `CREATE INDEX ${n.event}_redispatched ON ${n.event} (correlation_id) WHERE kind = 'decision' AND type = 'RedispatchCommanded'`,
      ];
    },
  },
  {
    version: 4,
    description: "views: an index of the operators' resolutions, the latest of which the queue shows",
    views(gen) {
      const n = tableNames(gen);
      return [
        `CREATE INDEX ${n.event}_resolutions ON ${n.event} (occurred_at) WHERE kind = 'observation' AND type = 'OperatorResolved'`,
      ];
    },
  },
];

export const latestVersion = migrations[migrations.length - 1]?.version ?? 0;

/** Every view table of a generation, for dropping it. */
export function viewTables(gen: number): string[] {
  return Object.values(tableNames(gen));
}
