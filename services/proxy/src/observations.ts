/**
 * The observations the proxy records, in the ingest JSON shape, with their event ids. An event id is the
 * ledger's de-duplication key, so it is derived from the thing seen wherever the thing has an identity:
 *
 * - a dispatch: its messageId (a client's retry of the same message is the same dispatch);
 * - a state: the task, the raw state, the worker's status timestamp and the channel (polling a task
 *   that stays in a state records it once per channel);
 * - an artifact or a streamed chunk: the task, artifactId, append/lastChunk and a digest of its parts;
 * - a TaskNotFound: the task, the method and the error code;
 *
 * each together with the correlation id, the observer and the worker. A state without a timestamp and
 * every card fetch get a random id (each fetch is its own fact; a card that changes and changes back
 * must be seen again). A retried batch re-sends the same objects, so the same ids.
 */
import { createHash, randomUUID } from "node:crypto";
import { normalizeTaskState } from "@a2a-ledger/core";
import type { ObservationInput } from "@a2a-ledger/ingest-client";
import type { ObservationChannel } from "@a2a-ledger/schemas";
import type { A2AMethod, DispatchFields } from "./a2a-request.ts";
import type { ArtifactSighting } from "./a2a-response.ts";

export interface ObservationSource {
  workerId: string;
  observer: string;
}

function digest(...parts: (string | number | boolean | null)[]): string {
  const hash = createHash("sha256");
  for (const p of parts) hash.update(`${p === null ? "\u0001" : String(p)}\u0000`);
  return hash.digest("hex").slice(0, 40);
}

const eventId = (kind: string, ...parts: (string | number | boolean | null)[]): string => `${kind}-${digest(kind, ...parts)}`;

export function dispatchObservation(src: ObservationSource, correlationId: string, dispatch: DispatchFields, at: number): ObservationInput {
  return {
    type: "TaskDispatched",
    eventId: dispatch.messageId === "" ? `dispatch-${randomUUID()}` : eventId("dispatch", correlationId, src.observer, src.workerId, dispatch.messageId),
    correlationId,
    occurredAt: at,
    observer: src.observer,
    workerId: src.workerId,
    skillId: dispatch.skillId,
    messageId: dispatch.messageId,
    acceptedOutputModes: dispatch.acceptedOutputModes,
    attempt: dispatch.attempt ?? 1,
  };
}

export function stateObservation(
  src: ObservationSource,
  correlationId: string,
  seen: { taskId: string; contextId: string | null; state: string; timestamp: string | null },
  via: ObservationChannel,
  at: number,
): ObservationInput {
  return {
    type: "TaskStateObserved",
    eventId: seen.timestamp === null ? `state-${randomUUID()}` : eventId("state", correlationId, src.observer, src.workerId, seen.taskId, seen.state, seen.timestamp, via),
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
    eventId: eventId("artifact", correlationId, src.observer, src.workerId, taskId, artifact.artifactId, append, lastChunk, digest(artifact.content)),
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

export function taskNotFoundObservation(src: ObservationSource, correlationId: string, taskId: string, method: A2AMethod, errorCode: string, at: number): ObservationInput {
  return {
    type: "TaskNotFoundObserved",
    eventId: eventId("not-found", correlationId, src.observer, src.workerId, taskId, method, errorCode),
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

/** `max-age` (or `s-maxage`) of a Cache-Control header, in seconds; null when absent. */
export function maxAgeOf(cacheControl: string | undefined): number | null {
  if (cacheControl === undefined) return null;
  const m = /(?:^|[,\s])max-age\s*=\s*"?(\d{1,12})"?/i.exec(cacheControl);
  return m === null ? null : Number(m[1]);
}
