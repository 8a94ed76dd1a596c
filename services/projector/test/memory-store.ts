/**
 * The writer's save on an in-memory store (views/writer.ts does it in SQL): the rows a batch's changes
 * name replace the stored ones, a re-linked correlation's lineage is replaced whole, and its stored
 * observation rows take their new attempts. Returns a new store; the one given is not changed.
 */
import {
  artifactKey,
  type Changes,
  cardKey,
  emptyLoaded,
  eventKey,
  type Loaded,
  serverTaskKey,
} from "../src/views/batch-rows.ts";
import type { EventRow } from "../src/views/rows.ts";

export interface MemoryStore {
  rows: Loaded;
  /** Every event row written, in the order written. */
  events: EventRow[];
}

export const emptyStore = (): MemoryStore => ({
  rows: emptyLoaded(),
  events: [],
});

export function applyChanges(store: MemoryStore, changes: Changes): MemoryStore {
  const rows: Loaded = {
    tasks: new Map(store.rows.tasks),
    attempts: new Map(store.rows.attempts),
    serverTasks: new Map(store.rows.serverTasks),
    artifacts: new Map(store.rows.artifacts),
    events: new Set(store.rows.events),
    workers: new Map(store.rows.workers),
    cards: new Map(store.rows.cards),
    redispatched: new Map(store.rows.redispatched),
  };
  let events = [...store.events];
  for (const { correlationId, eventAttempts } of changes.relinked) {
    rows.attempts.delete(correlationId);
    for (const [k, row] of rows.serverTasks) if (row.correlationId === correlationId) rows.serverTasks.delete(k);
    for (const [k, row] of rows.artifacts) if (row.correlationId === correlationId) rows.artifacts.delete(k);
    const attemptOf = new Map(eventAttempts.map((e) => [e.id, e.attempt]));
    events = events.map((e) =>
      e.correlationId === correlationId && attemptOf.has(e.id) ? { ...e, attempt: attemptOf.get(e.id) ?? null } : e,
    );
  }
  for (const t of changes.tasks) rows.tasks.set(t.correlationId, t);
  for (const a of changes.attempts) {
    const list = (rows.attempts.get(a.correlationId) ?? []).filter((x) => x.attempt !== a.attempt);
    rows.attempts.set(
      a.correlationId,
      [...list, a].sort((x, y) => x.attempt - y.attempt),
    );
  }
  for (const s of changes.serverTasks)
    rows.serverTasks.set(serverTaskKey(s.correlationId, s.workerId, s.serverTaskId), s);
  for (const a of changes.artifacts)
    rows.artifacts.set(artifactKey(a.correlationId, a.workerId, a.serverTaskId, a.artifactId), a);
  for (const w of changes.workers) rows.workers.set(w.workerId, w);
  for (const c of changes.cards) rows.cards.set(cardKey(c.workerId, c.cardHash), c);
  for (const e of changes.events) rows.events.add(eventKey(e.correlationId, e.id));
  return { rows, events: [...events, ...changes.events] };
}
