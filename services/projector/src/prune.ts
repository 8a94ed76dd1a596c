/**
 * Prune: the operator's bound on old lineage. Removes from the active generation every row of each
 * correlation whose last event (the newest event time among its observations and decisions, the
 * task row's `last_at`) is earlier than a cut: its task, search keys, events, attempts, server tasks,
 * artifacts and violations. A correlation with any event at or after the cut is never touched.
 * Worker rows (the worker, its cards and probes), dead letters and consumed offsets stay: they are
 * the workers' and the topics' state, not a correlation's lineage.
 *
 * Bounded: correlations are taken in chunks, in correlation id order, each chunk in one transaction
 * that locks its correlations as a projector batch does (PostgreSQL advisory locks in the same
 * namespace), checks the cut again under the lock and deletes. A running projector keeps writing
 * between chunks. Nothing is lost for good: the topics still hold what was pruned for as long as
 * their retention keeps it, and `a2a-ledger projector rebuild` projects it again.
 */
import { toEpochMillis } from "@a2a-ledger/core";
import type { Logger } from "./logger.ts";
import { activeGeneration, migrate } from "./store/generations.ts";
import { tableNames } from "./store/schema.ts";
import type { Store } from "./store/store.ts";
import { lockSpace } from "./views/writer.ts";

/** Correlations per transaction. */
export const defaultPruneChunk = 500;

export interface PruneOptions {
  /** Correlations deleted per transaction (default 500). */
  chunk?: number;
}

export interface PruneResult {
  /** The cut, epoch ms: correlations whose last event is earlier were pruned. */
  before: number;
  generation: number;
  correlations: number;
  /** Rows deleted, all tables together. */
  rows: number;
  chunks: number;
  durationMs: number;
}

/**
 * The cut of `--before`: an ISO-8601 date (`2026-01-31`, midnight UTC) or date-time with an offset
 * (`2026-01-31T12:00:00Z`). A message for anything else.
 */
export function parseCut(text: string): { ok: true; value: number } | { ok: false; message: string } {
  const dateOnly = /^\d{4}-\d{2}-\d{2}$/.test(text);
  const parsed = toEpochMillis(dateOnly ? `${text}T00:00:00Z` : text);
  if (!parsed.ok)
    return {
      ok: false,
      message: `--before: expected an ISO-8601 date (2026-01-31, midnight UTC) or a date-time with an offset (2026-01-31T12:00:00Z), got ${JSON.stringify(text)}`,
    };
  return parsed;
}

/** Tables that hold a correlation's rows, all keyed by `correlation_id`; the task row goes last. */
function correlationTables(gen: number): string[] {
  const t = tableNames(gen);
  return [t.taskKey, t.event, t.attempt, t.serverTask, t.artifact, t.violation, t.task];
}

/** Deletes every row of the correlations whose last event is earlier than `before` (epoch ms), chunk by chunk. */
export async function prune(
  store: Store,
  before: number,
  log?: Logger,
  options: PruneOptions = {},
): Promise<PruneResult> {
  if (!Number.isSafeInteger(before)) throw new Error(`invalid cut ${before}`);
  const chunk = options.chunk ?? defaultPruneChunk;
  if (!Number.isSafeInteger(chunk) || chunk < 1) throw new Error(`invalid chunk ${chunk}`);
  const started = Date.now();
  await migrate(store);
  let after = "";
  let generation: number | undefined;
  let correlations = 0;
  let rows = 0;
  let chunks = 0;
  for (;;) {
    const step = await store.write(async (tx) => {
      const gen = await activeGeneration(tx);
      if (gen === undefined) throw new Error("no active generation");
      const t = tableNames(gen);
      // A rebuild activated a new generation meanwhile: start over on it.
      const from = gen === generation ? after : "";
      const candidates = (
        await tx.all(
          `SELECT correlation_id FROM ${t.task} WHERE correlation_id > ? AND last_at < ? ORDER BY correlation_id LIMIT ?`,
          [from, before, chunk],
        )
      ).map((r) => String(r.correlation_id));
      if (candidates.length === 0) return { gen, last: undefined, pruned: 0, deleted: 0 };
      await tx.lock(lockSpace.correlation, candidates);
      // Under the lock: a batch that committed meanwhile may have brought a newer event.
      const list = JSON.stringify(candidates);
      const doomed = (
        await tx.all(
          `SELECT correlation_id FROM ${t.task} WHERE correlation_id${tx.inList} AND last_at < ? AND NOT EXISTS (SELECT 1 FROM ${t.event} WHERE ${t.event}.correlation_id = ${t.task}.correlation_id AND ${t.event}.occurred_at >= ?)${tx.forUpdate}`,
          [list, before, before],
        )
      ).map((r) => String(r.correlation_id));
      let deleted = 0;
      if (doomed.length > 0) {
        const ids = JSON.stringify(doomed);
        for (const table of correlationTables(gen))
          deleted += await tx.run(`DELETE FROM ${table} WHERE correlation_id${tx.inList}`, [ids]);
      }
      return { gen, last: candidates[candidates.length - 1], pruned: doomed.length, deleted };
    });
    if (step.gen !== generation) {
      if (generation !== undefined)
        log?.warn(
          { previous: generation, generation: step.gen },
          "a rebuild activated a new generation while pruning: pruning it from the start",
        );
      generation = step.gen;
    }
    if (step.last === undefined) break;
    after = step.last;
    correlations += step.pruned;
    rows += step.deleted;
    chunks++;
    if (chunks % 100 === 0) log?.info({ correlations, rows, chunks }, "pruning");
  }
  return { before, generation: generation as number, correlations, rows, chunks, durationMs: Date.now() - started };
}
