/**
 * The view rows as TypeScript values, and how each maps to its table's columns. One codec per table
 * serves the writer (values in column order) and the readers (a database row back to a value).
 */
import type { DeadLetterView } from "../inputs.ts";
import type { Row, SqlValue } from "../store/store.ts";

type FieldKind = "text" | "int" | "bool" | "json";
type FieldSpec<T> = { [K in keyof T]: readonly [column: string, kind: FieldKind] };

export interface Codec<T> {
  columns: readonly string[];
  key: readonly string[];
  values(value: T): SqlValue[];
  decode(row: Row): T;
}

function codec<T>(fields: FieldSpec<T>, key: readonly (keyof T)[]): Codec<T> {
  const entries = Object.entries(fields) as [keyof T & string, readonly [string, FieldKind]][];
  const columns = entries.map(([, [column]]) => column);
  return {
    columns,
    key: key.map((k) => fields[k][0]),
    values: (value) =>
      entries.map(([prop, [, kind]]) => {
        const v = value[prop] as unknown;
        if (v === null || v === undefined) return null;
        if (kind === "json") return JSON.stringify(v);
        if (kind === "bool") return v ? 1 : 0;
        return v as SqlValue;
      }),
    decode: (row) => {
      const out: Record<string, unknown> = {};
      for (const [prop, [column, kind]] of entries) {
        const v = row[column];
        out[prop] =
          v === null || v === undefined
            ? null
            : kind === "json"
              ? JSON.parse(String(v))
              : kind === "bool"
                ? Number(v) !== 0
                : kind === "int"
                  ? Number(v)
                  : String(v);
      }
      return out as T;
    },
  };
}

export const taskStatuses = [
  "running",
  "indeterminate",
  "blocked",
  "re-dispatched",
  "reconciled",
  "expired",
  "completed",
  "failed",
  "canceled",
  "rejected",
] as const;
export type TaskStatus = (typeof taskStatuses)[number];

export interface TaskRow {
  correlationId: string;
  /** Whether any task activity (dispatch, state, artifact, loss, task decision) was seen; card and probe correlations have none. */
  hasTask: boolean;
  status: TaskStatus;
  firstAt: number;
  lastAt: number;
  eventCount: number;
  violationCount: number;
  attemptCount: number;
  lastState: string | null;
  lastStateAt: number | null;
  lastStateEvent: string | null;
  lastObserver: string | null;
  terminalState: string | null;
  terminalAt: number | null;
  terminalEvent: string | null;
  decisionType: string | null;
  decisionAt: number | null;
  decisionRank: number | null;
  decisionId: string | null;
  indeterminateAt: number | null;
  blockedReason: string | null;
  waitingSince: number | null;
}

export const taskCodec = codec<TaskRow>(
  {
    correlationId: ["correlation_id", "text"],
    hasTask: ["has_task", "bool"],
    status: ["status", "text"],
    firstAt: ["first_at", "int"],
    lastAt: ["last_at", "int"],
    eventCount: ["event_count", "int"],
    violationCount: ["violation_count", "int"],
    attemptCount: ["attempt_count", "int"],
    lastState: ["last_state", "text"],
    lastStateAt: ["last_state_at", "int"],
    lastStateEvent: ["last_state_event", "text"],
    lastObserver: ["last_observer", "text"],
    terminalState: ["terminal_state", "text"],
    terminalAt: ["terminal_at", "int"],
    terminalEvent: ["terminal_event", "text"],
    decisionType: ["decision_type", "text"],
    decisionAt: ["decision_at", "int"],
    decisionRank: ["decision_rank", "int"],
    decisionId: ["decision_id", "text"],
    indeterminateAt: ["indeterminate_at", "int"],
    blockedReason: ["blocked_reason", "text"],
    waitingSince: ["waiting_since", "int"],
  },
  ["correlationId"],
);

export interface TaskKeyRow {
  kind: "worker" | "server_task" | "context";
  value: string;
  correlationId: string;
  /** The task's first_at, kept equal to it. */
  firstAt: number;
}

export const taskKeyCodec = codec<TaskKeyRow>(
  {
    kind: ["kind", "text"],
    value: ["value", "text"],
    correlationId: ["correlation_id", "text"],
    firstAt: ["first_at", "int"],
  },
  ["kind", "value", "correlationId"],
);

export type EventKind = "observation" | "decision" | "command";

export interface EventRow {
  correlationId: string;
  /** `o:<eventId>`, `d:<decisionId>` or `c:<decisionId>`: unique per correlation. */
  id: string;
  kind: EventKind;
  type: string;
  /** The eventId of an observation, the decisionId of a decision or command. */
  eventId: string;
  occurredAt: number;
  observer: string | null;
  workerId: string | null;
  serverTaskId: string | null;
  attempt: number | null;
  state: string | null;
  topic: string;
  partition: number;
  offset: number;
  /** The record as decoded, JSON. */
  body: string;
}

export const eventCodec = codec<EventRow>(
  {
    correlationId: ["correlation_id", "text"],
    id: ["id", "text"],
    kind: ["kind", "text"],
    type: ["type", "text"],
    eventId: ["event_id", "text"],
    occurredAt: ["occurred_at", "int"],
    observer: ["observer", "text"],
    workerId: ["worker_id", "text"],
    serverTaskId: ["server_task_id", "text"],
    attempt: ["attempt", "int"],
    state: ["state", "text"],
    topic: ["topic", "text"],
    partition: ["log_partition", "int"],
    offset: ["log_offset", "int"],
    body: ["body", "text"],
  },
  ["correlationId", "id"],
);

export interface AttemptRow {
  correlationId: string;
  attempt: number;
  workerId: string;
  skillId: string | null;
  messageId: string | null;
  acceptedModes: string[];
  cardHash: string | null;
  dispatchedAt: number | null;
  dispatchEventId: string | null;
  observer: string | null;
  /** A server task id no dispatch announced opened this attempt (not one a re-dispatch planned). */
  inferred: boolean;
}

/** Whether the attempt's dispatch was seen (an inferred attempt, or a planned re-dispatch not executed yet, has none). */
export const dispatched = (a: AttemptRow): boolean => a.dispatchEventId !== null;

export const attemptCodec = codec<AttemptRow>(
  {
    correlationId: ["correlation_id", "text"],
    attempt: ["attempt", "int"],
    workerId: ["worker_id", "text"],
    skillId: ["skill_id", "text"],
    messageId: ["message_id", "text"],
    acceptedModes: ["accepted_modes", "json"],
    cardHash: ["card_hash", "text"],
    dispatchedAt: ["dispatched_at", "int"],
    dispatchEventId: ["dispatch_event_id", "text"],
    observer: ["observer", "text"],
    inferred: ["inferred", "bool"],
  },
  ["correlationId", "attempt"],
);

export interface ServerTaskRow {
  correlationId: string;
  workerId: string;
  serverTaskId: string;
  attempt: number;
  contextId: string | null;
  firstAt: number;
  lastState: string | null;
  lastStateAt: number | null;
  lastStateEvent: string | null;
  lostAt: number | null;
  lostEventId: string | null;
}

export const serverTaskCodec = codec<ServerTaskRow>(
  {
    correlationId: ["correlation_id", "text"],
    workerId: ["worker_id", "text"],
    serverTaskId: ["server_task_id", "text"],
    attempt: ["attempt", "int"],
    contextId: ["context_id", "text"],
    firstAt: ["first_at", "int"],
    lastState: ["last_state", "text"],
    lastStateAt: ["last_state_at", "int"],
    lastStateEvent: ["last_state_event", "text"],
    lostAt: ["lost_at", "int"],
    lostEventId: ["lost_event_id", "text"],
  },
  ["correlationId", "workerId", "serverTaskId"],
);

export interface ArtifactRow {
  correlationId: string;
  workerId: string;
  serverTaskId: string;
  artifactId: string;
  attempt: number;
  name: string | null;
  mediaTypes: string[];
  partKinds: string[];
  sizeBytes: number;
  /** Streamed chunks of one artifactId are one artifact. */
  chunks: number;
  complete: boolean;
  firstAt: number;
  lastAt: number;
  eventIds: string[];
}

export const artifactCodec = codec<ArtifactRow>(
  {
    correlationId: ["correlation_id", "text"],
    workerId: ["worker_id", "text"],
    serverTaskId: ["server_task_id", "text"],
    artifactId: ["artifact_id", "text"],
    attempt: ["attempt", "int"],
    name: ["name", "text"],
    mediaTypes: ["media_types", "json"],
    partKinds: ["part_kinds", "json"],
    sizeBytes: ["size_bytes", "int"],
    chunks: ["chunks", "int"],
    complete: ["complete", "bool"],
    firstAt: ["first_at", "int"],
    lastAt: ["last_at", "int"],
    eventIds: ["event_ids", "json"],
  },
  ["correlationId", "workerId", "serverTaskId", "artifactId"],
);

export interface ViolationRow {
  decisionId: string;
  correlationId: string;
  workerId: string | null;
  kind: string;
  serverTaskId: string | null;
  skillId: string | null;
  observed: string;
  allowed: string[];
  cardHash: string | null;
  detail: string;
  output: string | null;
  attempts: number[];
  decidedAt: number;
  causeEventIds: string[];
  rulesVersion: string;
}

export const violationCodec = codec<ViolationRow>(
  {
    decisionId: ["decision_id", "text"],
    correlationId: ["correlation_id", "text"],
    workerId: ["worker_id", "text"],
    kind: ["kind", "text"],
    serverTaskId: ["server_task_id", "text"],
    skillId: ["skill_id", "text"],
    observed: ["observed", "text"],
    allowed: ["allowed", "json"],
    cardHash: ["card_hash", "text"],
    detail: ["detail", "text"],
    output: ["output", "text"],
    attempts: ["attempts", "json"],
    decidedAt: ["decided_at", "int"],
    causeEventIds: ["cause_event_ids", "json"],
    rulesVersion: ["rules_version", "text"],
  },
  ["decisionId"],
);

export interface WorkerRow {
  workerId: string;
  firstSeen: number | null;
  lastSeen: number | null;
  cardHash: string | null;
  cardUrl: string | null;
  vendor: string | null;
  taskStore: string | null;
  /** The newest CapabilitySnapshot (by validFrom), JSON. */
  snapshot: string | null;
  snapshotValidFrom: number | null;
  probeCount: number;
  cardCount: number;
}

export const workerCodec = codec<WorkerRow>(
  {
    workerId: ["worker_id", "text"],
    firstSeen: ["first_seen", "int"],
    lastSeen: ["last_seen", "int"],
    cardHash: ["card_hash", "text"],
    cardUrl: ["card_url", "text"],
    vendor: ["vendor", "text"],
    taskStore: ["task_store", "text"],
    snapshot: ["snapshot", "text"],
    snapshotValidFrom: ["snapshot_valid_from", "int"],
    probeCount: ["probe_count", "int"],
    cardCount: ["card_count", "int"],
  },
  ["workerId"],
);

export interface CardRow {
  workerId: string;
  cardHash: string;
  firstSeen: number;
  lastSeen: number;
  firstEventId: string;
  card: string;
  cardUrl: string;
  etag: string | null;
  maxAgeSeconds: number | null;
  fetches: number;
}

export const cardCodec = codec<CardRow>(
  {
    workerId: ["worker_id", "text"],
    cardHash: ["card_hash", "text"],
    firstSeen: ["first_seen", "int"],
    lastSeen: ["last_seen", "int"],
    firstEventId: ["first_event_id", "text"],
    card: ["card", "text"],
    cardUrl: ["card_url", "text"],
    etag: ["etag", "text"],
    maxAgeSeconds: ["max_age_seconds", "int"],
    fetches: ["fetches", "int"],
  },
  ["workerId", "cardHash"],
);

export interface ProbeRow {
  workerId: string;
  eventId: string;
  correlationId: string;
  cardHash: string;
  skillId: string | null;
  occurredAt: number;
  statesObserved: string[];
  reobservable: string[];
  emittedModes: string[];
  durable: boolean | null;
  parkedCanaries: { serverTaskId: string; state: string }[];
}

export const probeCodec = codec<ProbeRow>(
  {
    workerId: ["worker_id", "text"],
    eventId: ["event_id", "text"],
    correlationId: ["correlation_id", "text"],
    cardHash: ["card_hash", "text"],
    skillId: ["skill_id", "text"],
    occurredAt: ["occurred_at", "int"],
    statesObserved: ["states_observed", "json"],
    reobservable: ["reobservable", "json"],
    emittedModes: ["emitted_modes", "json"],
    durable: ["durable", "bool"],
    parkedCanaries: ["parked_canaries", "json"],
  },
  ["workerId", "eventId"],
);

/** A dead letter where it was read (topic, partition, offset) and when Kafka recorded it. */
export interface DlqRow extends DeadLetterView {
  topic: string;
  partition: number;
  offset: number;
  recordedAt: number;
}

export const dlqCodec = codec<DlqRow>(
  {
    topic: ["topic", "text"],
    partition: ["log_partition", "int"],
    offset: ["log_offset", "int"],
    recordedBy: ["recorded_by", "text"],
    reason: ["reason", "text"],
    detail: ["detail", "text"],
    sourceTopic: ["source_topic", "text"],
    sourcePartition: ["source_partition", "int"],
    sourceOffset: ["source_offset", "int"],
    key: ["record_key", "text"],
    valueBytes: ["value_bytes", "int"],
    valuePreview: ["value_preview", "text"],
    recordedAt: ["recorded_at", "int"],
  },
  ["topic", "partition", "offset"],
);
