/**
 * What the dispatcher records, in the ingest JSON shape, with event ids derived from the command's
 * decision id (or the canary's identity): recording the same thing again — after a crash, a redelivery,
 * a retried batch — produces the same ids, which the ledger de-duplicates.
 */
import { createHash } from "node:crypto";
import type { ObservationInput } from "@a2a-ledger/ingest-client";
import type { TaskState } from "@a2a-ledger/schemas";
import type { ProbeCommand, RedispatchCommand } from "./command-record.ts";
import type { FetchedCard } from "./worker-client.ts";

export const observer = "dispatcher";

/** The correlation under which a worker's probes, canaries and card fetches are recorded (DESIGN §1). */
export const probeCorrelationOf = (workerId: string): string => `probe-${workerId}`;

/** A UUID-shaped id derived from `text`: the same text always gives the same id. */
export function derivedId(text: string): string {
  const h = createHash("sha256").update(text, "utf8").digest("hex");
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-5${h.slice(13, 16)}-${((parseInt(h.slice(16, 17), 16) & 0x3) | 0x8).toString(16)}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

/** The messageId of a re-dispatch: derived from its decision id, so the ledger can tell whether it was ever sent. */
export const redispatchMessageId = (decisionId: string): string => derivedId(`redispatch|${decisionId}`);
export const canaryMessageId = (decisionId: string, skillId: string | null, index: number): string =>
  derivedId(`canary|${decisionId}|${skillId ?? ""}|${index}`);

export function cardObserved(
  decisionId: string,
  workerId: string,
  correlationId: string,
  card: FetchedCard & { worker: Record<string, unknown>; hash: string },
): ObservationInput {
  return {
    type: "AgentCardObserved",
    eventId: `${observer}:${decisionId}:card`,
    correlationId,
    occurredAt: card.fetchedAt,
    observer,
    workerId,
    cardUrl: card.cardUrl,
    card: card.worker,
    cardHash: card.hash,
    cacheMaxAgeSeconds: card.cacheMaxAgeSeconds,
    etag: card.etag,
  };
}

export function redispatched(
  command: RedispatchCommand,
  messageId: string,
  card: FetchedCard,
  at: number,
): ObservationInput {
  return {
    type: "TaskDispatched",
    eventId: `${observer}:${command.decisionId}:dispatch`,
    correlationId: command.correlationId,
    occurredAt: at,
    observer,
    workerId: command.targetWorkerId,
    skillId: command.skillId,
    messageId,
    acceptedOutputModes: command.acceptedOutputModes,
    cardHash: card.hash,
    cardFetchedAt: card.fetchedAt,
    attempt: command.attempt,
  };
}

export function answerState(
  command: RedispatchCommand,
  task: { id: string; contextId: string; state: TaskState },
  at: number,
): ObservationInput {
  return {
    type: "TaskStateObserved",
    eventId: `${observer}:${command.decisionId}:state:${task.id}:${task.state}`,
    correlationId: command.correlationId,
    occurredAt: at,
    observer,
    workerId: command.targetWorkerId,
    serverTaskId: task.id,
    contextId: task.contextId === "" ? null : task.contextId,
    state: task.state,
    via: "SEND_RESPONSE",
  };
}

export interface SkillProbeResult {
  skillId: string | null;
  statesObserved: TaskState[];
  reobservable: TaskState[];
  emittedModes: string[];
  parked: { serverTaskId: string; state: TaskState } | null;
  endedAt: number;
}

export function probeCompleted(
  command: ProbeCommand,
  workerId: string,
  cardHashProbed: string,
  result: SkillProbeResult,
): ObservationInput {
  return {
    type: "ProbeCompleted",
    eventId: `${observer}:${command.decisionId}:probe:${result.skillId ?? "*"}`,
    correlationId: probeCorrelationOf(workerId),
    occurredAt: result.endedAt,
    observer,
    workerId,
    cardHash: cardHashProbed,
    skillId: result.skillId,
    statesObserved: result.statesObserved,
    reobservable: result.reobservable,
    emittedModes: result.emittedModes,
    // No restart was tested: whether tasks survive one is for the parked canary to show.
    durable: null,
    parkedCanaries: result.parked === null ? [] : [result.parked],
  };
}

export function canaryLost(
  canary: { workerId: string; serverTaskId: string; correlationId: string },
  errorCode: string,
  at: number,
): ObservationInput {
  return {
    type: "TaskNotFoundObserved",
    eventId: `${observer}:canary:${canary.workerId}:${canary.serverTaskId}:not-found`,
    correlationId: canary.correlationId,
    occurredAt: at,
    observer,
    workerId: canary.workerId,
    serverTaskId: canary.serverTaskId,
    method: "GetTask",
    errorCode,
  };
}
