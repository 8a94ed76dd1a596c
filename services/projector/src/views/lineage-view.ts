/**
 * The lineage view: a correlation's attempts, the server tasks that joined them, and their artifacts.
 * Which attempt a dispatch or a server task belongs to, and when a sighting replaces a server task's last
 * state, are the core's lineage rules (@a2a-ledger/core lineage.ts), the ones the reconciler's fold
 * applies: the lineage shown is the fold's (lineage.property.test.ts). Within one partition the log
 * order decides (attempts are linked in the order their observations were recorded).
 *
 * `evolve` returns the attempt the event belongs to, so its event row is made with it.
 */
import { dispatchTarget, nextAttemptNumber, openAttemptOf, plannedAttempt, replacesLastState } from "@a2a-ledger/core";
import type { Decision, Observation } from "@a2a-ledger/schemas";
import type { ProjectorInput } from "../inputs.ts";
import { artifactKey, type BatchRows, serverTaskKey } from "./batch-rows.ts";
import type { AttemptRow, ServerTaskRow } from "./rows.ts";
import { changeTask } from "./task-view.ts";

type Observed<T extends Observation["type"]> = Extract<Observation, { type: T }>;

const union = (into: string[], values: readonly string[]): void => {
  for (const v of values) if (!into.includes(v)) into.push(v);
};

function addAttempt(rows: BatchRows, row: AttemptRow): AttemptRow {
  rows.addAttempt(row);
  changeTask(rows, row.correlationId, row.dispatchedAt ?? 0).attemptCount = rows.attempts(row.correlationId).length;
  return row;
}

/** The correlation's attempts as the core's lineage rules read them: in order, with their server task counts. */
function slots(rows: BatchRows, correlationId: string): (AttemptRow & { taskCount: number })[] {
  const counts = new Map<number, number>();
  for (const st of rows.serverTasks.where((s) => s.correlationId === correlationId))
    counts.set(st.attempt, (counts.get(st.attempt) ?? 0) + 1);
  return [...rows.attempts(correlationId)]
    .sort((a, b) => a.attempt - b.attempt)
    .map((a) => ({ ...a, taskCount: counts.get(a.attempt) ?? 0 }));
}

/** The attempt a new server task of `workerId` joins: the latest on that worker with no task yet, else a new inferred one. */
function attemptForNewTask(rows: BatchRows, correlationId: string, workerId: string): number {
  const known = slots(rows, correlationId);
  const open = openAttemptOf(known, workerId);
  if (open !== undefined) return open.attempt;
  const latest = known[known.length - 1];
  return addAttempt(rows, {
    correlationId,
    attempt: nextAttemptNumber(known),
    workerId,
    skillId: latest?.skillId ?? null,
    messageId: null,
    acceptedModes: latest?.acceptedModes ?? [],
    cardHash: null,
    dispatchedAt: null,
    dispatchEventId: null,
    observer: null,
    inferred: true,
  }).attempt;
}

/** The batch's copy of the server task a state, artifact or loss concerns; a new one joins its attempt (above). */
function changeServerTask(
  rows: BatchRows,
  o: { correlationId: string; workerId: string; serverTaskId: string; occurredAt: number },
): ServerTaskRow {
  const { correlationId, workerId, serverTaskId, occurredAt: at } = o;
  const key = serverTaskKey(correlationId, workerId, serverTaskId);
  const attempt = rows.serverTasks.get(key)?.attempt ?? attemptForNewTask(rows, correlationId, workerId);
  const row = rows.serverTasks.change(key, () => ({
    correlationId,
    workerId,
    serverTaskId,
    attempt,
    contextId: null,
    firstAt: at,
    lastState: null,
    lastStateAt: null,
    lastStateEvent: null,
    lostAt: null,
    lostEventId: null,
  }));
  row.firstAt = Math.min(row.firstAt, at);
  rows.key("server_task", serverTaskId, correlationId);
  return row;
}

function dispatched(rows: BatchRows, o: Observed<"TaskDispatched">): number {
  const target = dispatchTarget(slots(rows, o.correlationId), o);
  const terms = {
    skillId: o.skillId,
    messageId: o.messageId,
    acceptedModes: o.acceptedOutputModes,
    cardHash: o.cardHash,
    dispatchedAt: o.occurredAt,
    dispatchEventId: o.eventId,
    observer: o.observer,
    inferred: false,
  };
  if (target.kind === "new")
    return addAttempt(rows, { correlationId: o.correlationId, attempt: target.attempt, workerId: o.workerId, ...terms })
      .attempt;
  const n = target.attempt.attempt;
  const stored = target.attempt;
  // A planned re-dispatch or an inferred attempt on this worker is the attempt this dispatch starts.
  if (target.kind === "fills") Object.assign(rows.changeAttempt(o.correlationId, n), terms);
  else if (stored.dispatchedAt === null || o.occurredAt < stored.dispatchedAt) {
    const attempt = rows.changeAttempt(o.correlationId, n);
    attempt.dispatchedAt = o.occurredAt;
    attempt.dispatchEventId = o.eventId;
  }
  return n;
}

function stateObserved(rows: BatchRows, o: Observed<"TaskStateObserved">): number {
  const st = changeServerTask(rows, o);
  st.contextId ??= o.contextId;
  const last =
    st.lastState === null || st.lastStateAt === null ? null : { state: st.lastState, occurredAt: st.lastStateAt };
  if (replacesLastState(last, o)) {
    st.lastState = o.state;
    st.lastStateAt = o.occurredAt;
    st.lastStateEvent = o.eventId;
  }
  return st.attempt;
}

function notFound(rows: BatchRows, o: Observed<"TaskNotFoundObserved">): number | null {
  // As the fold links it: a task id nobody saw joins only a dispatch still waiting for its task.
  const known = rows.serverTasks.get(serverTaskKey(o.correlationId, o.workerId, o.serverTaskId));
  if (known === undefined && openAttemptOf(slots(rows, o.correlationId), o.workerId) === undefined) return null;
  const st = changeServerTask(rows, o);
  if (st.lostAt === null || o.occurredAt < st.lostAt) {
    st.lostAt = o.occurredAt;
    st.lostEventId = o.eventId;
  }
  return st.attempt;
}

/** A refusal changes no lineage (nothing reached a client): it names the task's attempt, or the one it would join. */
function refused(rows: BatchRows, o: Observed<"EmissionRefused">): number | null {
  return (
    rows.serverTasks.get(serverTaskKey(o.correlationId, o.workerId, o.serverTaskId))?.attempt ??
    openAttemptOf(slots(rows, o.correlationId), o.workerId)?.attempt ??
    null
  );
}

function artifact(rows: BatchRows, o: Observed<"ArtifactEmitted">): number {
  const st = changeServerTask(rows, o);
  const row = rows.artifacts.change(artifactKey(o.correlationId, o.workerId, o.serverTaskId, o.artifactId), () => ({
    correlationId: o.correlationId,
    workerId: o.workerId,
    serverTaskId: o.serverTaskId,
    artifactId: o.artifactId,
    attempt: st.attempt,
    name: o.name,
    mediaTypes: [],
    partKinds: [],
    sizeBytes: 0,
    chunks: 0,
    complete: false,
    firstAt: o.occurredAt,
    lastAt: o.occurredAt,
    eventIds: [],
  }));
  row.name ??= o.name;
  union(
    row.mediaTypes,
    o.parts.map((p) => p.mediaType).filter((m): m is string => m !== null),
  );
  union(
    row.partKinds,
    o.parts.map((p) => p.kind),
  );
  row.sizeBytes += o.parts.reduce((sum, p) => sum + p.sizeBytes, 0);
  row.chunks += 1;
  if (o.lastChunk !== false) row.complete = true;
  row.firstAt = Math.min(row.firstAt, o.occurredAt);
  row.lastAt = Math.max(row.lastAt, o.occurredAt);
  row.eventIds.push(o.eventId);
  return st.attempt;
}

/**
 * The attempt a re-dispatch plans on its target, as the fold plans it (lineage.ts `plannedAttempt`):
 * the target's next server task or dispatch joins it. When the attempt exists already (the
 * orchestrator's own dispatch, or a server task inferred it, came first), it only stops counting as
 * inferred: a re-dispatch announced it.
 */
function planned(rows: BatchRows, d: Extract<Decision, { type: "RedispatchCommanded" }>): void {
  const plan = plannedAttempt(slots(rows, d.correlationId), d);
  if (plan !== undefined) {
    addAttempt(rows, {
      correlationId: d.correlationId,
      attempt: plan.attempt,
      workerId: plan.workerId,
      skillId: plan.skillId,
      messageId: null,
      acceptedModes: plan.acceptedOutputModes,
      cardHash: null,
      dispatchedAt: null,
      dispatchEventId: null,
      observer: null,
      inferred: false,
    });
    return;
  }
  const existing = rows.attempts(d.correlationId).find((a) => a.attempt === d.attempt);
  if (existing?.inferred === true && existing.workerId === d.targetWorkerId)
    rows.changeAttempt(d.correlationId, d.attempt).inferred = false;
}

/** The attempt an observation belongs to, its lineage evolved; null for one outside any (cards, probes, resolutions). */
function observation(rows: BatchRows, o: Observation): number | null {
  switch (o.type) {
    case "TaskDispatched":
      return dispatched(rows, o);
    case "TaskStateObserved":
      return stateObserved(rows, o);
    case "TaskNotFoundObserved":
      return notFound(rows, o);
    case "EmissionRefused":
      return refused(rows, o);
    case "ArtifactEmitted":
      return artifact(rows, o);
    default:
      return null;
  }
}

/**
 * `planRedispatches`: a RedispatchCommanded plans its attempt on the target, as the fold does. Only
 * where the decisions come in their canonical place among the observations (relink.ts); read as the
 * topics interleave, planning would make the views depend on that interleaving.
 */
export function lineageView(options: { planRedispatches?: boolean } = {}) {
  return {
    canHandle: (input: ProjectorInput): boolean =>
      input.kind === "observation" ||
      (options.planRedispatches === true && input.kind === "decision" && input.record.type === "RedispatchCommanded"),
    /** Evolves the lineage; returns the attempt of an observation (a decision's names its own). */
    evolve(rows: BatchRows, input: ProjectorInput): number | null {
      if (input.kind === "observation") return observation(rows, input.record);
      if (input.kind === "decision" && input.record.type === "RedispatchCommanded") planned(rows, input.record);
      return null;
    },
  };
}
