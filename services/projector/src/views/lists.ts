/**
 * The paged lists: tasks (by status, worker, time and any id), violations, dead letters, and the
 * queue of the correlations that need an operator (indeterminate, blocked, expired), oldest first.
 * Every filter value is a bound parameter; cursors are opaque and bound to their filters.
 */
import type { Cursors } from "../cursor.ts";
import type { Tables } from "../store/schema.ts";
import type { Reader, SqlValue } from "../store/store.ts";
import { expiriesOf, iso, taskSummary, workersOf } from "./lineage.ts";
import { dlqCodec, taskCodec, type TaskStatus, violationCodec } from "./rows.ts";

export interface TaskFilter {
  status?: TaskStatus | undefined;
  workerId?: string | undefined;
  since?: number | undefined;
  until?: number | undefined;
  q?: string | undefined;
}

export interface Page {
  limit: number;
  cursor?: string | undefined;
}

const scopeOf = (route: string, filter: object) =>
  `${route}:${JSON.stringify(
    Object.entries(filter)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => a.localeCompare(b)),
  )}`;

/**
 * Tasks, newest first (by their first event). With a worker, the walk is along that worker's keys
 * (kept with the task's first_at), so the newest tasks of a worker are one index range however
 * common or rare the worker is.
 */
export async function taskList(r: Reader, t: Tables, cursors: Cursors, filter: TaskFilter, page: Page) {
  const byWorker = filter.workerId !== undefined;
  const order = byWorker ? { at: "k.first_at", id: "k.correlation_id" } : { at: "t.first_at", id: "t.correlation_id" };
  const where: string[] = [];
  const params: SqlValue[] = [];
  if (byWorker) {
    where.push("k.kind = 'worker' AND k.value = ?");
    params.push(filter.workerId as string);
  }
  if (filter.q === undefined) where.push("t.has_task = 1");
  if (filter.status !== undefined) {
    where.push("t.status = ?");
    params.push(filter.status);
  }
  if (filter.since !== undefined) {
    where.push(`${order.at} >= ?`);
    params.push(filter.since);
  }
  if (filter.until !== undefined) {
    where.push(`${order.at} < ?`);
    params.push(filter.until);
  }
  if (filter.q !== undefined) {
    // One IN over a UNION, not an OR: both databases then look each side up by its index.
    where.push(
      `t.correlation_id IN (SELECT ? UNION SELECT correlation_id FROM ${t.taskKey} WHERE kind IN ('server_task', 'context', 'worker') AND value = ?)`,
    );
    params.push(filter.q, filter.q);
  }
  const scope = scopeOf("tasks", filter);
  if (page.cursor !== undefined) {
    const [at, id] = cursors.decode(scope, page.cursor, ["number", "string"]) as [number, string];
    where.push(`(${order.at} < ? OR (${order.at} = ? AND ${order.id} < ?))`);
    params.push(at, at, id);
  }
  const from = byWorker ? `${t.taskKey} k JOIN ${t.task} t ON t.correlation_id = k.correlation_id` : `${t.task} t`;
  const sql = `SELECT t.* FROM ${from}${where.length > 0 ? ` WHERE ${where.join(" AND ")}` : ""} ORDER BY ${order.at} DESC, ${order.id} DESC LIMIT ?`;
  const rows = (await r.all(sql, [...params, page.limit + 1])).map((row) => taskCodec.decode(row));
  const shown = rows.slice(0, page.limit);
  const workers = await workersOf(
    r,
    t,
    shown.map((task) => task.correlationId),
  );
  const last = shown[shown.length - 1];
  return {
    items: shown.map((task) => taskSummary(task, workers.get(task.correlationId) ?? [])),
    nextCursor:
      rows.length > page.limit && last !== undefined ? cursors.encode(scope, [last.firstAt, last.correlationId]) : null,
  };
}

export interface ViolationFilter {
  kind?: string | undefined;
  workerId?: string | undefined;
}

/** Violations, newest first. */
export async function violationList(r: Reader, t: Tables, cursors: Cursors, filter: ViolationFilter, page: Page) {
  const where: string[] = [];
  const params: SqlValue[] = [];
  if (filter.kind !== undefined) {
    where.push("kind = ?");
    params.push(filter.kind);
  }
  if (filter.workerId !== undefined) {
    where.push("worker_id = ?");
    params.push(filter.workerId);
  }
  const scope = scopeOf("violations", filter);
  if (page.cursor !== undefined) {
    const [at, id] = cursors.decode(scope, page.cursor, ["number", "string"]) as [number, string];
    where.push("(decided_at < ? OR (decided_at = ? AND decision_id < ?))");
    params.push(at, at, id);
  }
  const rows = (
    await r.all(
      `SELECT * FROM ${t.violation}${where.length > 0 ? ` WHERE ${where.join(" AND ")}` : ""} ORDER BY decided_at DESC, decision_id DESC LIMIT ?`,
      [...params, page.limit + 1],
    )
  ).map((row) => violationCodec.decode(row));
  const shown = rows.slice(0, page.limit);
  const last = shown[shown.length - 1];
  return {
    items: shown.map((v) => ({ ...v, decidedAt: iso(v.decidedAt) })),
    nextCursor:
      rows.length > page.limit && last !== undefined ? cursors.encode(scope, [last.decidedAt, last.decisionId]) : null,
  };
}

/** Dead letters, newest first: the reconciler's DLQ topic and the records the projector could not project. */
export async function deadLetterList(
  r: Reader,
  t: Tables,
  cursors: Cursors,
  filter: { reason?: string | undefined },
  page: Page,
) {
  const where: string[] = [];
  const params: SqlValue[] = [];
  if (filter.reason !== undefined) {
    where.push("reason = ?");
    params.push(filter.reason);
  }
  const scope = scopeOf("dlq", filter);
  if (page.cursor !== undefined) {
    const [at, topic, partition, offset] = cursors.decode(scope, page.cursor, [
      "number",
      "string",
      "number",
      "number",
    ]) as [number, string, number, number];
    where.push(
      "(recorded_at < ? OR (recorded_at = ? AND (topic > ? OR (topic = ? AND (log_partition > ? OR (log_partition = ? AND log_offset > ?))))))",
    );
    params.push(at, at, topic, topic, partition, partition, offset);
  }
  const rows = (
    await r.all(
      `SELECT * FROM ${t.dlq}${where.length > 0 ? ` WHERE ${where.join(" AND ")}` : ""} ORDER BY recorded_at DESC, topic, log_partition, log_offset LIMIT ?`,
      [...params, page.limit + 1],
    )
  ).map((row) => dlqCodec.decode(row));
  const shown = rows.slice(0, page.limit);
  const last = shown[shown.length - 1];
  return {
    items: shown.map((d) => ({ ...d, recordedAt: iso(d.recordedAt) })),
    nextCursor:
      rows.length > page.limit && last !== undefined
        ? cursors.encode(scope, [last.recordedAt, last.topic, last.partition, last.offset])
        : null,
  };
}

/**
 * The statuses on the queue: a lost task not reconciled yet (indeterminate), one no worker can take
 * (blocked), and one the reconciler stopped watching without an outcome (expired).
 */
export const queueStatuses = ["indeterminate", "blocked", "expired"] as const satisfies readonly TaskStatus[];
export type QueueStatus = (typeof queueStatuses)[number];
const onQueue = `status IN (${queueStatuses.map((s) => `'${s}'`).join(", ")})`;

/** An operator's resolution (`a2a-ledger resolve`), as the queue shows it: who, what, why, and where the correlation stands now. */
export interface ResolutionView {
  correlationId: string;
  eventId: string;
  at: string;
  /** The principal ingest stamped, else the observer (`operator:<name>`). */
  by: string;
  action: string;
  workerId: string | null;
  reason: string;
}

/** How many of the latest resolutions the queue lists. */
export const recentResolutions = 20;

function resolutionOf(row: Record<string, unknown>): ResolutionView {
  const o = JSON.parse(String(row.body)) as {
    principal?: string | null;
    observer: string;
    action: string;
    workerId: string | null;
    reason: string;
  };
  return {
    correlationId: String(row.correlation_id),
    eventId: String(row.event_id),
    at: new Date(Number(row.occurred_at)).toISOString(),
    by: o.principal ?? o.observer,
    action: o.action,
    workerId: o.workerId,
    reason: o.reason,
  };
}

/** The operators' latest resolutions, newest first, each with its correlation's status now. */
async function latestResolutions(r: Reader, t: Tables): Promise<(ResolutionView & { status: string | null })[]> {
  const rows = await r.all(
    `SELECT e.correlation_id, e.event_id, e.occurred_at, e.body, k.status FROM ${t.event} e LEFT JOIN ${t.task} k ON k.correlation_id = e.correlation_id
     WHERE e.kind = 'observation' AND e.type = 'OperatorResolved' ORDER BY e.occurred_at DESC, e.event_id DESC LIMIT ?`,
    [recentResolutions],
  );
  return rows.map((row) => ({ ...resolutionOf(row), status: row.status === null ? null : String(row.status) }));
}

/** The resolutions recorded for each of `correlationIds`, oldest first. */
async function resolutionsOf(r: Reader, t: Tables, correlationIds: readonly string[]) {
  const out = new Map<string, ResolutionView[]>();
  if (correlationIds.length === 0) return out;
  const rows = await r.all(
    `SELECT correlation_id, event_id, occurred_at, body FROM ${t.event} WHERE correlation_id${r.inList} AND kind = 'observation' AND type = 'OperatorResolved' ORDER BY occurred_at, event_id`,
    [JSON.stringify(correlationIds)],
  );
  for (const row of rows) {
    const view = resolutionOf(row);
    out.set(view.correlationId, [...(out.get(view.correlationId) ?? []), view]);
  }
  return out;
}

/**
 * The correlations that need an operator — indeterminate, blocked and expired — the longest waiting
 * first, with how long each has waited (an expired one with its expiry) and the resolutions recorded for
 * it (one the rules could not carry out keeps it here); and the operators' latest resolutions, wherever
 * their correlations stand now (`resolved`).
 */
export async function queue(r: Reader, t: Tables, cursors: Cursors, now: number, page: Page) {
  const scope = "queue";
  const params: SqlValue[] = [];
  let after = "";
  if (page.cursor !== undefined) {
    const [at, id] = cursors.decode(scope, page.cursor, ["number", "string"]) as [number, string];
    after = " AND (waiting_since > ? OR (waiting_since = ? AND correlation_id > ?))";
    params.push(at, at, id);
  }
  const rows = (
    await r.all(
      `SELECT * FROM ${t.task} WHERE ${onQueue} AND waiting_since IS NOT NULL${after} ORDER BY waiting_since, correlation_id LIMIT ?`,
      [...params, page.limit + 1],
    )
  ).map((row) => taskCodec.decode(row));
  const shown = rows.slice(0, page.limit);
  const workers = await workersOf(
    r,
    t,
    shown.map((task) => task.correlationId),
  );
  const expiries = await expiriesOf(r, t, shown);
  const resolutions = await resolutionsOf(
    r,
    t,
    shown.map((task) => task.correlationId),
  );
  const last = shown[shown.length - 1];
  const counts = await r.all(`SELECT status, COUNT(*) AS n FROM ${t.task} WHERE ${onQueue} GROUP BY status`);
  return {
    counts: Object.fromEntries(
      queueStatuses.map((s) => [s, Number(counts.find((c) => c.status === s)?.n ?? 0)]),
    ) as Record<QueueStatus, number>,
    items: shown.map((task) => ({
      ...taskSummary(task, workers.get(task.correlationId) ?? []),
      waitedMs: Math.max(0, now - (task.waitingSince ?? now)),
      expiry: expiries.get(task.correlationId) ?? null,
      resolutions: resolutions.get(task.correlationId) ?? [],
    })),
    resolved: await latestResolutions(r, t),
    nextCursor:
      rows.length > page.limit && last !== undefined && last.waitingSince !== null
        ? cursors.encode(scope, [last.waitingSince, last.correlationId])
        : null,
  };
}

/** How many correlations wait in each state of the queue, and since when the oldest has waited (null when none): the operator's alert. */
export async function waitingByStatus(
  r: Reader,
  t: Tables,
): Promise<Record<QueueStatus, { count: number; oldestSince: number | null }>> {
  const rows = await r.all(
    `SELECT status, COUNT(*) AS n, MIN(waiting_since) AS oldest FROM ${t.task} WHERE ${onQueue} GROUP BY status`,
  );
  const of = (status: string) => {
    const row = rows.find((x) => x.status === status);
    return {
      count: Number(row?.n ?? 0),
      oldestSince: row?.oldest === undefined || row.oldest === null ? null : Number(row.oldest),
    };
  };
  return Object.fromEntries(queueStatuses.map((s) => [s, of(s)])) as Record<
    QueueStatus,
    { count: number; oldestSince: number | null }
  >;
}

export interface PartitionEnd {
  topic: string;
  partition: number;
  /** Kafka's end offset (the next offset to be written); undefined when unknown. */
  end: number | undefined;
}

/** How far the views are behind each topic partition: records not yet projected, and the time of the last one projected. */
export async function staleness(r: Reader, t: Tables, ends: readonly PartitionEnd[], now: number) {
  const rows = await r.all(`SELECT topic, log_partition, next_offset, last_record_at FROM ${t.offset}`);
  const stored = new Map(rows.map((row) => [`${row.topic}\u0000${row.log_partition}`, row]));
  const partitions = ends.map((e) => {
    const row = stored.get(`${e.topic}\u0000${e.partition}`);
    const next = row === undefined ? 0 : Number(row.next_offset);
    const lastRecordAt =
      row?.last_record_at === undefined || row.last_record_at === null ? null : Number(row.last_record_at);
    const lag = e.end === undefined ? null : Math.max(0, e.end - next);
    return {
      topic: e.topic,
      partition: e.partition,
      projectedOffset: next,
      endOffset: e.end ?? null,
      lagRecords: lag,
      lastRecordAt: iso(lastRecordAt),
      behindMs: lag === 0 || lastRecordAt === null ? 0 : Math.max(0, now - lastRecordAt),
    };
  });
  const topics = [...new Set(partitions.map((p) => p.topic))].map((topic) => {
    const of = partitions.filter((p) => p.topic === topic);
    return {
      topic,
      lagRecords: of.some((p) => p.lagRecords === null) ? null : of.reduce((n, p) => n + (p.lagRecords ?? 0), 0),
      behindMs: Math.max(0, ...of.map((p) => p.behindMs)),
      partitions: of,
    };
  });
  return { topics };
}
