/**
 * The lineage of one correlation (GET /v1/tasks/:correlationId): attempts with their server tasks,
 * dispatch and state timeline per observer, artifacts, violations, decisions and commands with their
 * cause events, and the events themselves, paged by cursor. Also the correlation's observations in the
 * ingest JSON shape, which `a2a-ledger replay` reads back.
 */
import type { Observation } from "@a2a-ledger/schemas";
import type { Cursors } from "../cursor.ts";
import type { Tables } from "../store/schema.ts";
import type { Reader, SqlValue } from "../store/store.ts";
import {
  artifactCodec,
  attemptCodec,
  dispatched,
  eventCodec,
  serverTaskCodec,
  taskCodec,
  type EventRow,
  type TaskRow,
  violationCodec,
} from "./rows.ts";
import { refusalsOfTask } from "./refusals.ts";
import { type DecisionMark, indeterminatePeriods, spansByAttempt, type StateSighting } from "./timeline.ts";

export const iso = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString());

/** Rows of one kind a lineage returns at most; more is flagged as truncated (the events are paged instead). */
export const lineageListLimit = 1_000;

export function taskSummary(t: TaskRow, workers: readonly string[]) {
  return {
    correlationId: t.correlationId,
    status: t.status,
    hasTask: t.hasTask,
    firstAt: iso(t.firstAt),
    lastAt: iso(t.lastAt),
    lastState: t.lastState,
    lastObserver: t.lastObserver,
    waitingSince: iso(t.waitingSince),
    statusDecision:
      t.decisionId === null ? null : { type: t.decisionType, decisionId: t.decisionId, decidedAt: iso(t.decisionAt) },
    blockedReason: t.status === "blocked" ? t.blockedReason : null,
    attemptCount: t.attemptCount,
    eventCount: t.eventCount,
    violationCount: t.violationCount,
    workers,
  };
}

export function eventView(e: EventRow) {
  return {
    id: e.id,
    kind: e.kind,
    type: e.type,
    eventId: e.eventId,
    occurredAt: iso(e.occurredAt),
    observer: e.observer,
    workerId: e.workerId,
    serverTaskId: e.serverTaskId,
    attempt: e.attempt,
    state: e.state,
    source: { topic: e.topic, partition: e.partition, offset: e.offset },
    record: JSON.parse(e.body) as Record<string, unknown>,
  };
}

export interface EventPage {
  limit: number;
  cursor?: string | undefined;
}

export const eventsScope = (correlationId: string) => `events:${correlationId}`;

export async function eventPage(r: Reader, t: Tables, cursors: Cursors, correlationId: string, page: EventPage) {
  const scope = eventsScope(correlationId);
  const after = page.cursor === undefined ? undefined : cursors.decode(scope, page.cursor, ["number", "string"]);
  const rows =
    after === undefined
      ? await r.all(`SELECT * FROM ${t.event} WHERE correlation_id = ? ORDER BY occurred_at, id LIMIT ?`, [
          correlationId,
          page.limit + 1,
        ])
      : await r.all(
          `SELECT * FROM ${t.event} WHERE correlation_id = ? AND (occurred_at > ? OR (occurred_at = ? AND id > ?)) ORDER BY occurred_at, id LIMIT ?`,
          [correlationId, after[0] as number, after[0] as number, after[1] as string, page.limit + 1],
        );
  const events = rows.slice(0, page.limit).map((row) => eventCodec.decode(row));
  const last = events[events.length - 1];
  return {
    items: events.map(eventView),
    nextCursor:
      rows.length > page.limit && last !== undefined ? cursors.encode(scope, [last.occurredAt, last.id]) : null,
  };
}

export async function workersOf(
  r: Reader,
  t: Tables,
  correlationIds: readonly string[],
): Promise<Map<string, string[]>> {
  const out = new Map<string, string[]>();
  if (correlationIds.length === 0) return out;
  // By correlation only (its own index); filtering the kind in SQL lets a planner prefer scanning every worker key.
  const rows = await r.all(`SELECT correlation_id, kind, value FROM ${t.taskKey} WHERE correlation_id${r.inList}`, [
    JSON.stringify(correlationIds),
  ]);
  for (const row of rows) {
    if (row.kind !== "worker") continue;
    const list = out.get(String(row.correlation_id)) ?? [];
    list.push(String(row.value));
    out.set(String(row.correlation_id), list);
  }
  for (const list of out.values()) list.sort();
  return out;
}

/** What an expired task's CorrelationExpired says: where it stood, its last event, the horizon and the reason. */
export interface ExpiryView {
  lastStatus: string;
  lastEventAt: string | null;
  idleMs: number;
  reason: string;
}

/** The expiry in force of each expired task among `tasks`, read from its stored decision (one indexed read). */
export async function expiriesOf(r: Reader, t: Tables, tasks: readonly TaskRow[]): Promise<Map<string, ExpiryView>> {
  const out = new Map<string, ExpiryView>();
  const expired = tasks.filter((task) => task.status === "expired" && task.decisionId !== null);
  if (expired.length === 0) return out;
  const rows = await r.all(
    `SELECT * FROM ${t.event} WHERE correlation_id${r.inList} AND id${r.inList} AND kind = 'decision'`,
    [
      JSON.stringify(expired.map((task) => task.correlationId)),
      JSON.stringify(expired.map((task) => `d:${task.decisionId}`)),
    ],
  );
  const wanted = new Map(expired.map((task) => [task.correlationId, task.decisionId]));
  for (const row of rows) {
    const e = eventCodec.decode(row);
    if (e.type !== "CorrelationExpired" || wanted.get(e.correlationId) !== e.eventId) continue;
    const d = JSON.parse(e.body) as { lastStatus: string; lastEventAt: number; idleMs: number; reason: string };
    out.set(e.correlationId, {
      lastStatus: d.lastStatus,
      lastEventAt: iso(d.lastEventAt),
      idleMs: d.idleMs,
      reason: d.reason,
    });
  }
  return out;
}

/** The whole lineage, or undefined when the correlation is unknown. */
export async function lineage(r: Reader, t: Tables, cursors: Cursors, correlationId: string, page: EventPage) {
  const taskRows = await r.all(`SELECT * FROM ${t.task} WHERE correlation_id = ?`, [correlationId]);
  if (taskRows[0] === undefined) return undefined;
  const task = taskCodec.decode(taskRows[0]);
  const limit = lineageListLimit + 1;
  const attempts = (
    await r.all(`SELECT * FROM ${t.attempt} WHERE correlation_id = ? ORDER BY attempt`, [correlationId])
  ).map((row) => attemptCodec.decode(row));
  const serverTasks = (
    await r.all(`SELECT * FROM ${t.serverTask} WHERE correlation_id = ? ORDER BY first_at, server_task_id`, [
      correlationId,
    ])
  ).map((row) => serverTaskCodec.decode(row));
  const artifacts = (
    await r.all(`SELECT * FROM ${t.artifact} WHERE correlation_id = ? ORDER BY first_at, artifact_id LIMIT ?`, [
      correlationId,
      limit,
    ])
  ).map((row) => artifactCodec.decode(row));
  const violations = (
    await r.all(`SELECT * FROM ${t.violation} WHERE correlation_id = ? ORDER BY decided_at, decision_id LIMIT ?`, [
      correlationId,
      limit,
    ])
  ).map((row) => violationCodec.decode(row));
  const decisionRows = (
    await r.all(
      `SELECT * FROM ${t.event} WHERE correlation_id = ? AND kind <> 'observation' ORDER BY occurred_at, id LIMIT ?`,
      [correlationId, limit],
    )
  ).map((row) => eventCodec.decode(row));
  const sightings = await r.all(
    `SELECT attempt, observer, server_task_id, state, occurred_at, event_id FROM ${t.event} WHERE correlation_id = ? AND type = 'TaskStateObserved' ORDER BY occurred_at, id`,
    [correlationId],
  );

  const decisions = decisionRows.slice(0, lineageListLimit).map((e) => ({
    ...eventView(e),
    causeEventIds: (JSON.parse(e.body) as { causeEventIds?: string[] }).causeEventIds ?? [],
  }));
  const causeIds = [
    ...new Set([...decisions.flatMap((d) => d.causeEventIds), ...violations.flatMap((v) => v.causeEventIds)]),
  ];
  const causes: Record<string, ReturnType<typeof eventView>> = {};
  if (causeIds.length > 0) {
    const rows = await r.all(`SELECT * FROM ${t.event} WHERE event_id${r.inList} AND kind = 'observation' LIMIT ?`, [
      JSON.stringify(causeIds),
      lineageListLimit,
    ]);
    for (const row of rows) {
      const e = eventCodec.decode(row);
      causes[e.eventId] ??= eventView(e);
    }
  }

  const lanes = spansByAttempt(
    sightings.map(
      (s): StateSighting => ({
        attempt: s.attempt === null ? null : Number(s.attempt),
        observer: String(s.observer),
        serverTaskId: s.server_task_id === null ? null : String(s.server_task_id),
        state: String(s.state),
        at: Number(s.occurred_at),
        eventId: String(s.event_id),
      }),
    ),
  );
  // A decision that names a server task but no attempt belongs to the attempt that server task joined.
  const attemptOfTask = new Map(serverTasks.map((s) => [s.serverTaskId, s.attempt]));
  const marks: DecisionMark[] = decisionRows
    .filter((e) => e.kind === "decision")
    .map((e) => ({
      type: e.type,
      decisionId: e.eventId,
      at: e.occurredAt,
      attempt: e.attempt ?? (e.serverTaskId === null ? null : (attemptOfTask.get(e.serverTaskId) ?? null)),
      serverTaskId: e.serverTaskId,
      state: e.state,
    }));
  const periods = indeterminatePeriods(
    marks,
    attempts.map((a) => ({ attempt: a.attempt, at: a.dispatchedAt })),
  );
  const workers = [...new Set([...attempts.map((a) => a.workerId)])].sort();
  // The last span of a lost server task ends where the task was lost.
  const lostAt = new Map(serverTasks.filter((s) => s.lostAt !== null).map((s) => [s.serverTaskId, s.lostAt as number]));
  const spanView = (lane: {
    observer: string;
    spans: {
      state: string;
      serverTaskId: string | null;
      from: number;
      to: number | null;
      eventId: string;
      sightings: number;
    }[];
  }) => ({
    observer: lane.observer,
    spans: lane.spans.map((s) => {
      const lost = s.serverTaskId === null ? undefined : lostAt.get(s.serverTaskId);
      return { ...s, from: iso(s.from), to: iso(s.to ?? (lost !== undefined && lost >= s.from ? lost : null)) };
    }),
  });

  return {
    ...taskSummary(task, (await workersOf(r, t, [correlationId])).get(correlationId) ?? workers),
    expiry: (await expiriesOf(r, t, [task])).get(correlationId) ?? null,
    attempts: attempts.map((a) => ({
      attempt: a.attempt,
      workerId: a.workerId,
      inferred: a.inferred,
      dispatch: !dispatched(a)
        ? null
        : {
            skillId: a.skillId,
            messageId: a.messageId,
            acceptedOutputModes: a.acceptedModes,
            cardHash: a.cardHash,
            dispatchedAt: iso(a.dispatchedAt),
            observer: a.observer,
            eventId: a.dispatchEventId,
          },
      serverTasks: serverTasks
        .filter((s) => s.attempt === a.attempt)
        .map((s) => ({
          serverTaskId: s.serverTaskId,
          workerId: s.workerId,
          contextId: s.contextId,
          firstAt: iso(s.firstAt),
          lastState: s.lastState,
          lostAt: iso(s.lostAt),
          lostEventId: s.lostEventId,
        })),
      timeline: (lanes.get(a.attempt) ?? []).map(spanView),
    })),
    indeterminate: periods.map((p) => ({ ...p, from: iso(p.from), to: iso(p.to) })),
    artifacts: artifacts.slice(0, lineageListLimit).map((a) => ({
      artifactId: a.artifactId,
      name: a.name,
      attempt: a.attempt,
      workerId: a.workerId,
      serverTaskId: a.serverTaskId,
      mediaTypes: a.mediaTypes,
      partKinds: a.partKinds,
      sizeBytes: a.sizeBytes,
      chunks: a.chunks,
      complete: a.complete,
      firstAt: iso(a.firstAt),
      lastAt: iso(a.lastAt),
      eventIds: a.eventIds,
    })),
    violations: violations.slice(0, lineageListLimit).map((v) => ({ ...v, decidedAt: iso(v.decidedAt) })),
    decisions,
    refusedEmissions: await refusalsOfTask(r, t, correlationId),
    causes,
    truncated: {
      artifacts: artifacts.length > lineageListLimit,
      violations: violations.length > lineageListLimit,
      decisions: decisionRows.length > lineageListLimit,
    },
    events: await eventPage(r, t, cursors, correlationId, page),
  };
}

export type Lineage = NonNullable<Awaited<ReturnType<typeof lineage>>>;

/** One observation in the ingest JSON shape: the Avro record with ISO-8601 times and the card as an object. */
export function toIngestJson(o: Observation): Record<string, unknown> {
  const out: Record<string, unknown> = { ...o, occurredAt: iso(o.occurredAt) };
  if (o.type === "AgentCardObserved") out.card = JSON.parse(o.card) as unknown;
  if (o.type === "TaskDispatched" && o.cardFetchedAt !== null) out.cardFetchedAt = iso(o.cardFetchedAt);
  return out;
}

/** Observations per read of events.ndjson: a correlation of any length is read and written this many at a time. */
export const ndjsonPageSize = 500;

/** Where a page of observations ended, in log order (the row's partition and offset; its id breaks a tie). */
interface LogPosition {
  partition: SqlValue;
  offset: SqlValue;
  id: SqlValue;
}

interface ObservationPage {
  /** NDJSON lines, each ending with a newline. */
  text: string;
  count: number;
  last: LogPosition | undefined;
}

/** Up to `limit` observations of the correlation after `after` (from the first without), in log order. */
async function observationPage(
  r: Reader,
  t: Tables,
  correlationId: string,
  after: LogPosition | undefined,
  limit: number,
): Promise<ObservationPage> {
  const columns = `SELECT id, log_partition, log_offset, body FROM ${t.event} WHERE correlation_id = ? AND kind = 'observation'`;
  const order = "ORDER BY log_partition, log_offset, id LIMIT ?";
  const rows =
    after === undefined
      ? await r.all(`${columns} ${order}`, [correlationId, limit])
      : await r.all(
          `${columns} AND (log_partition > ? OR (log_partition = ? AND (log_offset > ? OR (log_offset = ? AND id > ?)))) ${order}`,
          [correlationId, after.partition, after.partition, after.offset, after.offset, after.id, limit],
        );
  const tail = rows.at(-1);
  return {
    text: rows.map((row) => `${JSON.stringify(toIngestJson(JSON.parse(String(row.body)) as Observation))}\n`).join(""),
    count: rows.length,
    last:
      tail === undefined
        ? undefined
        : { partition: tail.log_partition ?? null, offset: tail.log_offset ?? null, id: tail.id ?? null },
  };
}

/** Runs a read against the views in force (a snapshot per call). */
export type ViewRead = <T>(fn: (r: Reader, t: Tables) => Promise<T>) => Promise<T>;

/**
 * The correlation's observations in log order as NDJSON (one line each, newline-terminated), or undefined
 * when the correlation is unknown. The first page is read at once (so an unknown correlation is known
 * before anything is written); each further page is read only when the consumer asks for it, one read per
 * page of `pageSize` keyed by the previous page's last log position, so neither the server nor the
 * database holds the correlation whole. Observations recorded while the stream is read and after its
 * position are included; a prune during it ends it early.
 */
export async function observationsNdjson(
  read: ViewRead,
  correlationId: string,
  pageSize: number = ndjsonPageSize,
): Promise<AsyncIterable<string> | undefined> {
  const first = await read(async (r, t) => {
    const page = await observationPage(r, t, correlationId, undefined, pageSize);
    if (page.count > 0) return page;
    const known = await r.all(`SELECT 1 AS known FROM ${t.task} WHERE correlation_id = ?`, [correlationId]);
    return known.length === 0 ? undefined : page;
  });
  if (first === undefined) return undefined;
  return (async function* pages() {
    let page = first;
    for (;;) {
      if (page.count > 0) yield page.text;
      const after = page.last;
      if (page.count < pageSize || after === undefined) return;
      page = await read((r, t) => observationPage(r, t, correlationId, after, pageSize));
    }
  })();
}
