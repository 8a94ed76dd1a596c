/**
 * The canonical lineage of a correlation the reconciler re-dispatched. The fold plans a re-dispatch's
 * attempt on its target the moment it decides it, so a server task on the target joins that attempt
 * before any dispatch is seen (lineage.ts `plannedAttempt`). The projector reads the decisions topic
 * independently of the observations, and planning as it reads would make the views depend on that
 * interleaving. So, for such a correlation only (rare), every batch that brings one of its events
 * re-derives its attempts, server tasks, artifacts and the observations' attempts from all its stored
 * events, in one order that any read gives: the observations in log order, each decision right after
 * the observation that caused it (its first cause: the observation it was decided on), decisions in
 * their own log order. The result is a function of the stored events alone, so the views equal a rebuild
 * however the topics interleaved. No I/O.
 */
import type { Decision, Observation } from "@a2a-ledger/schemas";
import type { ProjectorInput } from "../inputs.ts";
import { type Changes, emptyLoaded, type Loaded, project } from "./projection.ts";
import type { EventRow } from "./rows.ts";

const byLog = (a: EventRow, b: EventRow) =>
  a.partition - b.partition || a.offset - b.offset || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
const sourceOf = (e: EventRow) => ({ topic: e.topic, partition: e.partition, offset: e.offset, timestamp: 0 });

/**
 * A correlation's events in the order the fold met them. A decision whose cause is not among them (a
 * re-examination caused by another worker's card or probe, or a cause not read yet) comes after the last
 * observation, in log order, that occurred no later than it was decided.
 */
export function canonicalOrder(events: readonly EventRow[]): ProjectorInput[] {
  const observations = events.filter((e) => e.kind === "observation").sort(byLog);
  const position = new Map<string, number>();
  observations.forEach((o, i) => position.has(o.eventId) || position.set(o.eventId, i));
  let floor = -1;
  const placed = events
    .filter((e) => e.kind === "decision")
    .sort(byLog)
    .map((e) => {
      const record = JSON.parse(e.body) as Decision;
      const first = record.causeEventIds[0];
      let at = first === undefined ? undefined : position.get(first);
      if (at === undefined) {
        at = -1;
        observations.forEach((o, i) => o.occurredAt <= record.decidedAt && (at = i));
      }
      floor = Math.max(floor, at);
      return { at: floor, input: { kind: "decision", source: sourceOf(e), record } satisfies ProjectorInput };
    });
  const out: ProjectorInput[] = placed.filter((p) => p.at < 0).map((p) => p.input);
  let next = out.length;
  observations.forEach((o, i) => {
    out.push({ kind: "observation", source: sourceOf(o), record: JSON.parse(o.body) as Observation });
    while (next < placed.length && (placed[next] as { at: number }).at === i)
      out.push((placed[next++] as { input: ProjectorInput }).input);
  });
  // Commands carry nothing the lineage reads; they follow, for the event counts.
  for (const e of events.filter((x) => x.kind === "command").sort(byLog))
    out.push({ kind: "command", source: sourceOf(e), record: JSON.parse(e.body) as Decision });
  return out;
}

const isRedispatch = (e: EventRow) => e.kind === "decision" && e.type === "RedispatchCommanded";

/**
 * Re-links, in `changes` and in `rows`, every correlation of the batch that has a RedispatchCommanded
 * (stored, in `rows.redispatched`, or new in the batch) and a new event: its attempts, server tasks and
 * artifacts become the canonical ones (all of them, marked for replacement), its task's attempt count
 * follows, and its observation rows take their canonical attempts (`relinked.eventAttempts`: stored rows
 * that change).
 */
export function relinkRedispatched(rows: Loaded, changes: Changes): Changes {
  const fresh = new Map<string, EventRow[]>();
  for (const e of changes.events)
    (fresh.get(e.correlationId) ?? fresh.set(e.correlationId, []).get(e.correlationId))?.push(e);
  for (const [correlationId, batch] of [...fresh].sort((a, b) => (a[0] < b[0] ? -1 : 1))) {
    const stored = rows.redispatched.get(correlationId) ?? [];
    if (!stored.some(isRedispatch) && !batch.some(isRedispatch)) continue;
    const storedIds = new Set(stored.map((e) => e.id));
    const all = [...stored, ...batch.filter((e) => !storedIds.has(e.id))];
    const canonical = emptyLoaded();
    const derived = project(canonical, canonicalOrder(all), { planRedispatches: true });
    const attemptOf = new Map(derived.events.filter((e) => e.kind === "observation").map((e) => [e.id, e.attempt]));

    const attempts = canonical.attempts.get(correlationId) ?? [];
    rows.attempts.set(correlationId, attempts);
    const own = <T extends { correlationId: string }>(list: readonly T[]) =>
      list.filter((r) => r.correlationId === correlationId);
    const replace = <T extends { correlationId: string }>(into: Map<string, T>, from: Map<string, T>) => {
      for (const [key, row] of into) if (row.correlationId === correlationId) into.delete(key);
      for (const [key, row] of from) if (row.correlationId === correlationId) into.set(key, row);
    };
    replace(rows.serverTasks, canonical.serverTasks);
    replace(rows.artifacts, canonical.artifacts);
    changes.attempts = [...changes.attempts.filter((a) => a.correlationId !== correlationId), ...attempts];
    changes.serverTasks = [
      ...changes.serverTasks.filter((s) => s.correlationId !== correlationId),
      ...own([...canonical.serverTasks.values()]),
    ];
    changes.artifacts = [
      ...changes.artifacts.filter((a) => a.correlationId !== correlationId),
      ...own([...canonical.artifacts.values()]),
    ];
    const task = rows.tasks.get(correlationId);
    if (task !== undefined) task.attemptCount = attempts.length;
    for (const e of batch) if (e.kind === "observation") e.attempt = attemptOf.get(e.id) ?? null;
    const eventAttempts = stored
      .filter((e) => e.kind === "observation" && (attemptOf.get(e.id) ?? null) !== e.attempt)
      .map((e) => ({ id: e.id, attempt: attemptOf.get(e.id) ?? null }));
    for (const e of stored) if (e.kind === "observation") e.attempt = attemptOf.get(e.id) ?? null;
    changes.relinked.push({ correlationId, eventAttempts });
  }
  return changes;
}
