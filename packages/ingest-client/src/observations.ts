/**
 * The observations an A2A client or proxy records of what it saw, in the ingest JSON shape, with their
 * event ids (the recording proxy and `@a2a-ledger/a2a-client` both build them here). An event id is the
 * ledger's de-duplication key, so it is derived from the thing seen wherever the thing has an identity:
 *
 * - a dispatch: its messageId (a client's retry of the same message is the same dispatch);
 * - a state: the task, the raw state, the worker's status timestamp and the channel (polling a task
 *   that stays in a state records it once per channel);
 * - an artifact or a streamed chunk: the task, artifactId, append/lastChunk and a digest of its parts;
 * - a TaskNotFound: the task, the method, the error code and, when the observer remembers one, the last
 *   state sighting of that task it recorded (task-sightings.ts): a loss after the task was seen again is
 *   a new loss, a TaskNotFound re-derived with no sighting in between is the same one;
 *
 * each together with the correlation id, the observer and the worker. A state without a timestamp and
 * every card fetch get a random id (each fetch is its own fact; a card that changes and changes back
 * must be seen again). A retried batch re-sends the same objects, so the same ids.
 */
import { createHash, randomUUID } from "node:crypto";
import { normalizeTaskState } from "@a2a-ledger/core";
import type { ObservationChannel } from "@a2a-ledger/schemas";
import type { ArtifactSighting, Sighting } from "./a2a-response.ts";
import type { ObservationInput } from "./observation-input.ts";
import type { TaskSightings } from "./task-sightings.ts";

export interface ObservationSource {
  workerId: string;
  observer: string;
  /**
   * The observer's memory of the last state it recorded per task: state observations built here are
   * remembered in it, and a TaskNotFound's id names the sighting it follows. Without it a TaskNotFound's
   * id is the same for every loss of the task.
   */
  sightings?: TaskSightings;
}

/** What a new dispatch names: its message, skill, the output modes it accepts and its attempt. */
export interface DispatchSeen {
  messageId: string;
  skillId: string | null;
  acceptedOutputModes: string[];
  /** Null: the first attempt. */
  attempt: number | null;
  /** The card the dispatch relied on (its hash and when it was fetched), when the observer knows it. */
  card?: { hash: string; fetchedAt: number } | null;
}

function digest(...parts: (string | number | boolean | null)[]): string {
  const hash = createHash("sha256");
  for (const p of parts) hash.update(`${p === null ? "\u0001" : String(p)}\u0000`);
  return hash.digest("hex").slice(0, 40);
}

const eventId = (kind: string, ...parts: (string | number | boolean | null)[]): string =>
  `${kind}-${digest(kind, ...parts)}`;

export function dispatchObservation(
  src: ObservationSource,
  correlationId: string,
  dispatch: DispatchSeen,
  at: number,
): ObservationInput {
  return {
    type: "TaskDispatched",
    eventId:
      dispatch.messageId === ""
        ? `dispatch-${randomUUID()}`
        : eventId("dispatch", correlationId, src.observer, src.workerId, dispatch.messageId),
    correlationId,
    occurredAt: at,
    observer: src.observer,
    workerId: src.workerId,
    skillId: dispatch.skillId,
    messageId: dispatch.messageId,
    acceptedOutputModes: dispatch.acceptedOutputModes,
    attempt: dispatch.attempt ?? 1,
    ...(dispatch.card == null ? {} : { cardHash: dispatch.card.hash, cardFetchedAt: dispatch.card.fetchedAt }),
  };
}

export function stateObservation(
  src: ObservationSource,
  correlationId: string,
  seen: { taskId: string; contextId: string | null; state: string; timestamp: string | null },
  via: ObservationChannel,
  at: number,
): ObservationInput {
  const id =
    seen.timestamp === null
      ? `state-${randomUUID()}`
      : eventId("state", correlationId, src.observer, src.workerId, seen.taskId, seen.state, seen.timestamp, via);
  src.sightings?.saw(src.workerId, seen.taskId, id);
  return {
    type: "TaskStateObserved",
    eventId: id,
    correlationId,
    occurredAt: at,
    observer: src.observer,
    workerId: src.workerId,
    serverTaskId: seen.taskId,
    contextId: seen.contextId,
    // A state outside the spec is recorded as UNSPECIFIED with its raw spelling: the ledger never drops a fact.
    state: normalizeTaskState(seen.state) ?? "TASK_STATE_UNSPECIFIED",
    rawState: seen.state,
    via,
  };
}

/** `chunk` is the artifactUpdate's flags; null for an artifact that arrived whole inside a Task. */
export function artifactObservation(
  src: ObservationSource,
  correlationId: string,
  taskId: string,
  artifact: ArtifactSighting,
  chunk: { append: boolean; lastChunk: boolean } | null,
  at: number,
): ObservationInput {
  const append = chunk?.append ?? false;
  const lastChunk = chunk === null ? null : chunk.lastChunk;
  return {
    type: "ArtifactEmitted",
    eventId: eventId(
      "artifact",
      correlationId,
      src.observer,
      src.workerId,
      taskId,
      artifact.artifactId,
      append,
      lastChunk,
      digest(artifact.content),
    ),
    correlationId,
    occurredAt: at,
    observer: src.observer,
    workerId: src.workerId,
    serverTaskId: taskId,
    artifactId: artifact.artifactId,
    name: artifact.name,
    parts: artifact.parts,
    append,
    lastChunk,
  };
}

/**
 * A TaskNotFound's id: the task, the method and the error code, and the last sighting of the task the
 * observer remembers (none: the id every producer derived before sightings were remembered).
 */
function notFoundEventId(
  src: ObservationSource,
  correlationId: string,
  taskId: string,
  method: string,
  errorCode: string,
): string {
  const after = src.sightings?.lastOf(src.workerId, taskId) ?? null;
  const parts = [correlationId, src.observer, src.workerId, taskId, method, errorCode];
  return after === null ? eventId("not-found", ...parts) : eventId("not-found", ...parts, after);
}

export function taskNotFoundObservation(
  src: ObservationSource,
  correlationId: string,
  taskId: string,
  method: string,
  errorCode: string,
  at: number,
): ObservationInput {
  return {
    type: "TaskNotFoundObserved",
    eventId: notFoundEventId(src, correlationId, taskId, method, errorCode),
    correlationId,
    occurredAt: at,
    observer: src.observer,
    workerId: src.workerId,
    serverTaskId: taskId,
    method,
    errorCode,
  };
}

export function cardObservation(
  src: ObservationSource,
  correlationId: string,
  fetched: { cardUrl: string; card: string; cacheMaxAgeSeconds: number | null; etag: string | null },
  at: number,
): ObservationInput {
  return {
    type: "AgentCardObserved",
    eventId: `card-${randomUUID()}`,
    correlationId,
    occurredAt: at,
    observer: src.observer,
    workerId: src.workerId,
    cardUrl: fetched.cardUrl,
    card: fetched.card,
    cacheMaxAgeSeconds: fetched.cacheMaxAgeSeconds,
    etag: fetched.etag,
  };
}

/** An operator's resolution of a blocked or indeterminate correlation (`a2a-ledger resolve`). */
export interface Resolution {
  correlationId: string;
  action: "FAIL" | "REDISPATCH" | "RESTART";
  /** The worker named: REDISPATCH's target (required), RESTART's (null: the rules choose); null for FAIL. */
  workerId: string | null;
  reason: string;
  /** The observer it is written as: `operator:<name>`. */
  observer: string;
}

/** A resolution is its own act: a random id (a retried batch re-sends the same object, so the same id). */
export function resolutionObservation(r: Resolution, at: number): ObservationInput {
  return {
    type: "OperatorResolved",
    eventId: `resolve-${randomUUID()}`,
    correlationId: r.correlationId,
    occurredAt: at,
    observer: r.observer,
    workerId: r.workerId,
    action: r.action,
    reason: r.reason,
  };
}

/**
 * The observations of one answer (or one stream event): every state, artifact and TaskNotFound its
 * sightings show. `correlationFor` names the correlation of a task (it is asked for every task the
 * answer shows, a message's task included, before that task's observations are built); `asked` is the
 * task the request named (a TaskNotFound concerns it) and the method.
 */
export function sightingObservations(
  src: ObservationSource,
  sightings: readonly Sighting[],
  asked: { method: string; taskId: string | null },
  correlationFor: (taskId: string) => string,
  via: ObservationChannel,
  at: number,
): ObservationInput[] {
  const out: ObservationInput[] = [];
  for (const s of sightings) {
    switch (s.kind) {
      case "task": {
        const c = correlationFor(s.taskId);
        if (s.state !== null)
          out.push(
            stateObservation(
              src,
              c,
              { taskId: s.taskId, contextId: s.contextId, state: s.state, timestamp: s.timestamp },
              via,
              at,
            ),
          );
        for (const a of s.artifacts) out.push(artifactObservation(src, c, s.taskId, a, null, at));
        break;
      }
      case "status":
        out.push(stateObservation(src, correlationFor(s.taskId), s, via, at));
        break;
      case "artifact":
        out.push(
          artifactObservation(
            src,
            correlationFor(s.taskId),
            s.taskId,
            s.artifact,
            { append: s.append, lastChunk: s.lastChunk },
            at,
          ),
        );
        break;
      case "message":
        if (s.taskId !== null) correlationFor(s.taskId);
        break;
      case "task-not-found":
        if (asked.taskId !== null)
          out.push(
            taskNotFoundObservation(src, correlationFor(asked.taskId), asked.taskId, asked.method, s.errorCode, at),
          );
        break;
      case "error":
        break;
    }
  }
  return out;
}

/** `max-age` (or `s-maxage`) of a Cache-Control header, in seconds; null when absent. */
export function maxAgeOf(cacheControl: string | undefined): number | null {
  if (cacheControl === undefined) return null;
  const m = /(?:^|[,\s])max-age\s*=\s*"?(\d{1,12})"?/i.exec(cacheControl);
  return m === null ? null : Number(m[1]);
}
