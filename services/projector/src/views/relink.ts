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
import { type Changes, emptyLoaded, eventKey, type Loaded } from "./batch-rows.ts";
import { project } from "./projection.ts";
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
 * The batch's changes with every correlation re-linked that has a RedispatchCommanded (stored, in
 * `rows.redispatched`, or new in the batch) and a new event: its attempts, server tasks and artifacts
 * are the canonical ones (all of them, to replace what is stored), its task's attempt count follows, its
 * new observation rows carry their canonical attempts, and `relinked` names it with the stored
 * observation rows whose attempt changes (`eventAttempts`). A replacement set the writer applies:
 * neither `rows` nor `changes` is modified.
 */
export function relinkRedispatched(rows: Readonly<Loaded>, changes: Changes): Changes {
  const fresh = new Map<string, EventRow[]>();
  for (const e of changes.events)
    (fresh.get(e.correlationId) ?? fresh.set(e.correlationId, []).get(e.correlationId))?.push(e);
  let { attempts, serverTasks, artifacts } = changes;
  const relinked = [...changes.relinked];
  const attemptCounts = new Map<string, number>();
  /** By eventKey: an event row id is unique only within its correlation. */
  const eventAttempt = new Map<string, number | null>();
  for (const [correlationId, batch] of [...fresh].sort((a, b) => (a[0] < b[0] ? -1 : 1))) {
    const stored = rows.redispatched.get(correlationId) ?? [];
    if (!stored.some(isRedispatch) && !batch.some(isRedispatch)) continue;
    const storedIds = new Set(stored.map((e) => e.id));
    const all = [...stored, ...batch.filter((e) => !storedIds.has(e.id))];
    // Projected from nothing, every row of the correlation is new: the changes hold them all.
    const derived = project(emptyLoaded(), canonicalOrder(all), { planRedispatches: true });
    const attemptOf = new Map(derived.events.filter((e) => e.kind === "observation").map((e) => [e.id, e.attempt]));

    const own = <T extends { correlationId: string }>(list: Iterable<T>) =>
      [...list].filter((r) => r.correlationId === correlationId);
    const others = <T extends { correlationId: string }>(list: readonly T[]) =>
      list.filter((r) => r.correlationId !== correlationId);
    const canonicalAttempts = own(derived.attempts).sort((a, b) => a.attempt - b.attempt);
    attempts = [...others(attempts), ...canonicalAttempts];
    serverTasks = [...others(serverTasks), ...own(derived.serverTasks)];
    artifacts = [...others(artifacts), ...own(derived.artifacts)];
    attemptCounts.set(correlationId, canonicalAttempts.length);
    for (const e of batch)
      if (e.kind === "observation") eventAttempt.set(eventKey(correlationId, e.id), attemptOf.get(e.id) ?? null);
    const eventAttempts = stored
      .filter((e) => e.kind === "observation" && (attemptOf.get(e.id) ?? null) !== e.attempt)
      .map((e) => ({ id: e.id, attempt: attemptOf.get(e.id) ?? null }));
    relinked.push({ correlationId, eventAttempts });
  }
  if (relinked.length === changes.relinked.length) return changes;
  return {
    ...changes,
    tasks: changes.tasks.map((t) => {
      const count = attemptCounts.get(t.correlationId);
      return count === undefined ? t : { ...t, attemptCount: count };
    }),
    events: changes.events.map((e) => {
      const key = eventKey(e.correlationId, e.id);
      return eventAttempt.has(key) ? { ...e, attempt: eventAttempt.get(key) ?? null } : e;
    }),
    attempts,
    serverTasks,
    artifacts,
    relinked,
  };
}
