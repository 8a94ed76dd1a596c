/**
 * Writes one batch of one (topic, partition) into a generation, exactly once: the consumed offset is
 * read (and locked) first, records below it are skipped (a redelivery changes nothing), the rows the
 * batch touches are locked and loaded, projected, written, and the offset is advanced with a
 * compare-and-set — all in one database transaction.
 */
import type { ProjectorInput } from "../inputs.ts";
import { type Tables, tableNames } from "../store/schema.ts";
import { powerOfTwoChunks, type Row, type Store, tuplesIn, type Tx } from "../store/store.ts";
import { artifactKey, cardKey, type Changes, emptyLoaded, eventKey, type Loaded, serverTaskKey } from "./batch-rows.ts";
import { type Needs, needsOf, project } from "./projection.ts";
import { relinkRedispatched } from "./relink.ts";
import {
  artifactCodec,
  attemptCodec,
  cardCodec,
  type Codec,
  dlqCodec,
  eventCodec,
  probeCodec,
  serverTaskCodec,
  taskCodec,
  taskKeyCodec,
  violationCodec,
  workerCodec,
} from "./rows.ts";

/** Advisory lock namespaces (PostgreSQL): the correlation a task's rows belong to, a worker's rows, a partition's offset. */
export const lockSpace = { correlation: 1, worker: 2, offset: 3 } as const;

export type BatchOutcome =
  /** Written; `next` is the new consumed offset. */
  | { kind: "written"; next: number; changes: Changes; projected: number }
  /** Every record was projected before. */
  | { kind: "already-projected"; next: number }
  /** The batch starts after the stored offset: the consumer must seek back to `next`. */
  | { kind: "gap"; next: number };

export class OffsetConflictError extends Error {
  override name = "OffsetConflictError";
}

export interface WriteBatchOptions {
  /**
   * The partition's first offset still held by Kafka (its low watermark): where a partition with no
   * stored offset starts, and where one resumes whose stored offset retention has already deleted.
   */
  lowWatermark: number;
  /**
   * The offset after the batch as Kafka fetched it, when control records (transaction markers) or
   * aborted records follow the last record delivered; the stored offset moves past them too.
   */
  batchEnd?: number;
  /**
   * The offset the fetch covered from: records between it and the first record delivered were
   * transaction markers or aborted records, not a gap.
   */
  readFrom?: number;
}

async function storedOffset(tx: Tx, t: Tables, topic: string, partition: number): Promise<number | undefined> {
  const rows = await tx.all(
    `SELECT next_offset FROM ${t.offset} WHERE topic = ? AND log_partition = ?${tx.forUpdate}`,
    [topic, partition],
  );
  const next = rows[0]?.next_offset;
  return next === undefined || next === null ? undefined : Number(next);
}

const json = (values: readonly string[]) => JSON.stringify(values);

async function load(tx: Tx, t: Tables, needs: Needs): Promise<Loaded> {
  const loaded = emptyLoaded();
  const decodeAll = <T>(rows: Row[], codec: Codec<T>) => rows.map((r) => codec.decode(r));
  if (needs.correlations.length > 0) {
    const corr = json(needs.correlations);
    for (const task of decodeAll(
      await tx.all(`SELECT * FROM ${t.task} WHERE correlation_id${tx.inList}`, [corr]),
      taskCodec,
    ))
      loaded.tasks.set(task.correlationId, task);
    for (const a of decodeAll(
      await tx.all(`SELECT * FROM ${t.attempt} WHERE correlation_id${tx.inList} ORDER BY correlation_id, attempt`, [
        corr,
      ]),
      attemptCodec,
    )) {
      const list = loaded.attempts.get(a.correlationId) ?? [];
      list.push(a);
      loaded.attempts.set(a.correlationId, list);
    }
    for (const s of decodeAll(
      await tx.all(`SELECT * FROM ${t.serverTask} WHERE correlation_id${tx.inList}`, [corr]),
      serverTaskCodec,
    ))
      loaded.serverTasks.set(serverTaskKey(s.correlationId, s.workerId, s.serverTaskId), s);
    if (needs.artifactIds.length > 0) {
      for (const a of decodeAll(
        await tx.all(`SELECT * FROM ${t.artifact} WHERE correlation_id${tx.inList} AND artifact_id${tx.inList}`, [
          corr,
          json(needs.artifactIds),
        ]),
        artifactCodec,
      )) {
        loaded.artifacts.set(artifactKey(a.correlationId, a.workerId, a.serverTaskId, a.artifactId), a);
      }
    }
    // Correlations re-dispatched (a decision stored, or in the batch): every stored event, for the re-link.
    const stored = await tx.all(
      `SELECT DISTINCT correlation_id FROM ${t.event} WHERE correlation_id${tx.inList} AND kind = 'decision' AND type = 'RedispatchCommanded'`,
      [corr],
    );
    const redispatched = [...new Set([...stored.map((r) => String(r.correlation_id)), ...needs.redispatched])].sort();
    if (redispatched.length > 0) {
      for (const e of decodeAll(
        await tx.all(`SELECT * FROM ${t.event} WHERE correlation_id${tx.inList}`, [json(redispatched)]),
        eventCodec,
      )) {
        (
          loaded.redispatched.get(e.correlationId) ?? loaded.redispatched.set(e.correlationId, []).get(e.correlationId)
        )?.push(e);
      }
    }
    for (const chunk of powerOfTwoChunks(needs.eventKeys)) {
      for (const r of await tx.all(
        `SELECT correlation_id, id FROM ${t.event} WHERE ${tuplesIn(["correlation_id", "id"], chunk.length)}`,
        chunk.flat(),
      ))
        loaded.events.add(eventKey(String(r.correlation_id), String(r.id)));
    }
  }
  if (needs.workers.length > 0) {
    for (const w of decodeAll(
      await tx.all(`SELECT * FROM ${t.worker} WHERE worker_id${tx.inList}`, [json(needs.workers)]),
      workerCodec,
    ))
      loaded.workers.set(w.workerId, w);
    if (needs.cardHashes.length > 0) {
      for (const c of decodeAll(
        await tx.all(`SELECT * FROM ${t.card} WHERE worker_id${tx.inList} AND card_hash${tx.inList}`, [
          json(needs.workers),
          json(needs.cardHashes),
        ]),
        cardCodec,
      ))
        loaded.cards.set(cardKey(c.workerId, c.cardHash), c);
    }
  }
  return loaded;
}

async function save(tx: Tx, t: Tables, changes: Changes): Promise<void> {
  const upsert = <T>(table: string, codec: Codec<T>, rows: readonly T[]) =>
    tx.upsert(
      table,
      codec.columns,
      codec.key,
      rows.map((r) => codec.values(r)),
    );
  const insert = <T>(table: string, codec: Codec<T>, rows: readonly T[]) =>
    tx.insertIgnore(
      table,
      codec.columns,
      rows.map((r) => codec.values(r)),
    );
  await upsert(t.task, taskCodec, changes.tasks);
  for (const moved of changes.movedTasks)
    await tx.run(`UPDATE ${t.taskKey} SET first_at = ? WHERE correlation_id = ?`, [moved.firstAt, moved.correlationId]);
  await insert(t.taskKey, taskKeyCodec, changes.taskKeys);
  await insert(t.event, eventCodec, changes.events);
  // A re-linked correlation's rows are replaced whole: an attempt or link it no longer has must not stay.
  if (changes.relinked.length > 0) {
    const relinked = json(changes.relinked.map((r) => r.correlationId));
    for (const table of [t.attempt, t.serverTask, t.artifact])
      await tx.run(`DELETE FROM ${table} WHERE correlation_id${tx.inList}`, [relinked]);
    for (const { correlationId, eventAttempts } of changes.relinked) {
      for (const e of eventAttempts)
        await tx.run(`UPDATE ${t.event} SET attempt = ? WHERE correlation_id = ? AND id = ?`, [
          e.attempt,
          correlationId,
          e.id,
        ]);
    }
  }
  await upsert(t.attempt, attemptCodec, changes.attempts);
  await upsert(t.serverTask, serverTaskCodec, changes.serverTasks);
  await upsert(t.artifact, artifactCodec, changes.artifacts);
  await insert(t.violation, violationCodec, changes.violations);
  await upsert(t.worker, workerCodec, changes.workers);
  if (changes.mentionedWorkers.length > 0) {
    await tx.insertIgnore(
      t.worker,
      ["worker_id", "probe_count", "card_count"],
      changes.mentionedWorkers.map((w) => [w, 0, 0]),
    );
  }
  await upsert(t.card, cardCodec, changes.cards);
  await insert(t.probe, probeCodec, changes.probes);
  await insert(t.dlq, dlqCodec, changes.dlq);
}

async function advance(
  tx: Tx,
  t: Tables,
  topic: string,
  partition: number,
  stored: number | undefined,
  next: number,
  lastRecordAt: number,
): Promise<void> {
  const changed =
    stored === undefined
      ? await tx.run(
          `INSERT INTO ${t.offset} (topic, log_partition, next_offset, last_record_at) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING`,
          [topic, partition, next, lastRecordAt],
        )
      : await tx.run(
          `UPDATE ${t.offset} SET next_offset = ?, last_record_at = ? WHERE topic = ? AND log_partition = ? AND next_offset = ?`,
          [next, lastRecordAt, topic, partition, stored],
        );
  if (changed !== 1)
    throw new OffsetConflictError(
      `the offset of ${topic}/${partition} moved under this transaction (expected ${stored ?? "none"})`,
    );
}

/** Projects `inputs` (one topic-partition, in offset order) into generation `gen`. */
export async function writeBatch(
  store: Store,
  gen: number,
  topic: string,
  partition: number,
  inputs: readonly ProjectorInput[],
  options: WriteBatchOptions,
): Promise<BatchOutcome> {
  const t = tableNames(gen);
  for (let attempt = 1; ; attempt++) {
    try {
      return await store.write(async (tx) => {
        await tx.lock(lockSpace.offset, [`${topic}/${partition}`]);
        const stored = await storedOffset(tx, t, topic, partition);
        const expected = Math.max(stored ?? 0, options.lowWatermark);
        const fresh = inputs.filter((i) => i.source.offset >= expected);
        const first = fresh[0];
        if (first === undefined) return { kind: "already-projected", next: expected };
        if (first.source.offset > expected && !(options.readFrom !== undefined && options.readFrom <= expected))
          return { kind: "gap", next: expected };
        const needs = needsOf(fresh);
        await tx.lock(lockSpace.correlation, needs.correlations);
        await tx.lock(lockSpace.worker, [...needs.workers, ...needs.mentionedWorkers].sort());
        const loaded = await load(tx, t, needs);
        const changes = relinkRedispatched(loaded, project(loaded, fresh));
        await save(tx, t, changes);
        const last = fresh[fresh.length - 1] ?? first;
        const next = Math.max(last.source.offset + 1, options.batchEnd ?? 0);
        await advance(tx, t, topic, partition, stored, next, last.source.timestamp);
        const notice = noticeOf(gen, changes);
        if (notice !== undefined) tx.notify(notice);
        return { kind: "written", next, changes, projected: fresh.length };
      });
    } catch (error) {
      // Another writer advanced the partition first: read the stored offset again and skip what it wrote.
      if (!(error instanceof OffsetConflictError) || attempt >= 3) throw error;
    }
  }
}

/**
 * Moves a partition's stored offset over records that carry nothing to project — transaction markers
 * and aborted records, which read_committed consumers never see — when the stored offset is within
 * [from, to). Without this, a transactional topic would always look one record behind.
 */
export async function skipUnreadable(
  store: Store,
  gen: number,
  topic: string,
  partition: number,
  from: number,
  to: number,
): Promise<boolean> {
  const t = tableNames(gen);
  return store.write(async (tx) => {
    await tx.lock(lockSpace.offset, [`${topic}/${partition}`]);
    const stored = await storedOffset(tx, t, topic, partition);
    if (stored === undefined) {
      if (from !== 0) return false;
      return (
        (await tx.run(
          `INSERT INTO ${t.offset} (topic, log_partition, next_offset) VALUES (?, ?, ?) ON CONFLICT DO NOTHING`,
          [topic, partition, to],
        )) === 1
      );
    }
    if (stored < from || stored >= to) return false;
    return (
      (await tx.run(
        `UPDATE ${t.offset} SET next_offset = ? WHERE topic = ? AND log_partition = ? AND next_offset = ?`,
        [to, topic, partition, stored],
      )) === 1
    );
  });
}

/** What changed, for live streams: small enough for a PostgreSQL NOTIFY (8000 bytes). */
export interface ChangeNotice {
  gen: number;
  tasks: { c: string; s: string; w: string[] }[];
  workers: string[];
  dlq: number;
  /** More changed than fits: listeners refresh what they show. */
  many?: boolean;
}

function noticeOf(gen: number, changes: Changes): string | undefined {
  const workersByTask = new Map<string, Set<string>>();
  for (const k of changes.taskKeys)
    if (k.kind === "worker")
      (workersByTask.get(k.correlationId) ?? workersByTask.set(k.correlationId, new Set()).get(k.correlationId))?.add(
        k.value,
      );
  for (const e of changes.events)
    if (e.workerId !== null)
      (workersByTask.get(e.correlationId) ?? workersByTask.set(e.correlationId, new Set()).get(e.correlationId))?.add(
        e.workerId,
      );
  const notice: ChangeNotice = {
    gen,
    tasks: changes.tasks.map((t) => ({
      c: t.correlationId,
      s: t.status,
      w: [...(workersByTask.get(t.correlationId) ?? [])].sort(),
    })),
    workers: changes.workers.map((w) => w.workerId),
    dlq: changes.dlq.length,
  };
  if (notice.tasks.length === 0 && notice.workers.length === 0 && notice.dlq === 0) return undefined;
  const text = JSON.stringify(notice);
  return text.length <= 7_500
    ? text
    : JSON.stringify({ gen, tasks: [], workers: [], dlq: notice.dlq, many: true } satisfies ChangeNotice);
}
