/**
 * evolve: the per-correlation state as a fold over the log — observations (facts) and the decisions the
 * rules took on them. Pure; returns a new state, never mutates its input.
 */
import type { ArtifactEmitted, Decision, Observation, TaskDispatched } from "@a2a-ledger/schemas";
import type { Attempt, CorrelationState, CorrelationStatus, OutputRecord } from "./correlation-state.ts";
import { attemptOf, maxAttemptNumber } from "./correlation-state.ts";
import { violationKey } from "../decisions.ts";
import { nextLastState } from "./last-state.ts";
import { essence } from "../media-type.ts";
import { isTerminal } from "../task-state.ts";

/** Output identity across attempts (R3): the artifact name when present, else its id. */
export const outputKey = (a: Pick<ArtifactEmitted, "name" | "artifactId">): string => a.name ?? a.artifactId;

/** Media types of an artifact, normalized (essence, lower-case), sorted, without duplicates. */
export function artifactMediaTypes(a: Pick<ArtifactEmitted, "parts">): string[] {
  const set = new Set<string>();
  for (const p of a.parts) if (p.mediaType !== null) set.add(essence(p.mediaType));
  return [...set].sort();
}

function withDispatch(attempts: Attempt[], obs: TaskDispatched): Attempt[] {
  if (attempts.some((a) => a.messageId === obs.messageId && a.workerId === obs.workerId)) return attempts;
  const dispatch = {
    skillId: obs.skillId,
    messageId: obs.messageId,
    acceptedOutputModes: obs.acceptedOutputModes,
    dispatchedAt: obs.occurredAt,
    dispatchEventId: obs.eventId,
  };
  const inferred = attempts.findIndex((a) => a.messageId === null && a.workerId === obs.workerId);
  if (inferred !== -1) return attempts.map((a, i) => (i === inferred ? { ...a, ...dispatch } : a));
  const number = Math.max(obs.attempt, attempts.reduce((m, a) => Math.max(m, a.attempt), 0) + 1);
  return [...attempts, { attempt: number, workerId: obs.workerId, serverTaskIds: [], ...dispatch }];
}

/** Links a server task id to its attempt: the latest attempt on that worker still without one, else a new inferred attempt. */
export function withServerTask(state: CorrelationState, workerId: string, serverTaskId: string): Attempt[] {
  if (attemptOf(state, serverTaskId) !== undefined) return state.attempts;
  let open = -1;
  for (let i = state.attempts.length - 1; i >= 0; i--) {
    const a = state.attempts[i] as Attempt;
    if (a.workerId === workerId && a.serverTaskIds.length === 0) {
      open = i;
      break;
    }
  }
  if (open !== -1) return state.attempts.map((a, i) => (i === open ? { ...a, serverTaskIds: [serverTaskId] } : a));
  const previous = state.attempts[state.attempts.length - 1];
  return [
    ...state.attempts,
    {
      attempt: maxAttemptNumber(state) + 1,
      workerId,
      skillId: previous?.skillId ?? null,
      messageId: null,
      acceptedOutputModes: previous?.acceptedOutputModes ?? [],
      dispatchedAt: null,
      dispatchEventId: null,
      serverTaskIds: [serverTaskId],
    },
  ];
}

function withArtifact(state: CorrelationState, obs: ArtifactEmitted): OutputRecord[] {
  const attempt = attemptOf(state, obs.serverTaskId)?.attempt ?? 0;
  const output = outputKey(obs);
  const modes = artifactMediaTypes(obs);
  const i = state.outputs.findIndex((o) => o.output === output && o.attempt === attempt);
  if (i === -1) return [...state.outputs, { output, attempt, mediaTypes: modes, eventId: obs.eventId }];
  const existing = state.outputs[i] as OutputRecord;
  const union = [...new Set([...existing.mediaTypes, ...modes])].sort();
  if (union.length === existing.mediaTypes.length) return state.outputs;
  return state.outputs.map((o, j) => (j === i ? { ...o, mediaTypes: union } : o));
}

/**
 * A fresh copy of `s` (one literal of a fixed shape) for the fold to fill in. Copy-then-assign keeps
 * property access monomorphic; spreading partial objects of many shapes dominated the fold's cost.
 * Only the new copy is ever assigned to: states already returned are never mutated.
 */
function copy(s: CorrelationState): CorrelationState {
  return {
    version: 1,
    correlationId: s.correlationId,
    status: s.status,
    seenEventIds: s.seenEventIds,
    attempts: s.attempts,
    lastState: s.lastState,
    terminalTaskIds: s.terminalTaskIds,
    outputs: s.outputs,
    parkedCanaries: s.parkedCanaries,
    loss: s.loss,
    lostTaskIds: s.lostTaskIds,
    reported: s.reported,
  };
}

function evolveObservation(state: CorrelationState, obs: Observation): CorrelationState {
  const next = copy(state);
  if (next.correlationId === null) next.correlationId = obs.correlationId;
  const seen = state.seenEventIds.slice();
  seen.push(obs.eventId);
  next.seenEventIds = seen;
  switch (obs.type) {
    case "TaskDispatched":
      next.attempts = withDispatch(state.attempts, obs);
      return next;
    case "TaskStateObserved": {
      next.attempts = withServerTask(state, obs.workerId, obs.serverTaskId);
      next.lastState = nextLastState(state.lastState, obs);
      if (isTerminal(obs.state)) {
        if (!state.terminalTaskIds.includes(obs.serverTaskId))
          next.terminalTaskIds = [...state.terminalTaskIds, obs.serverTaskId];
        if (state.status === "open") next.status = "terminal";
      }
      return next;
    }
    case "ArtifactEmitted":
      next.attempts = withServerTask(state, obs.workerId, obs.serverTaskId);
      next.outputs = withArtifact(next, obs);
      return next;
    case "TaskNotFoundObserved":
      if (state.parkedCanaries.some((c) => c.serverTaskId === obs.serverTaskId))
        next.parkedCanaries = state.parkedCanaries.filter((c) => c.serverTaskId !== obs.serverTaskId);
      return next;
    case "ProbeCompleted": {
      const known = new Set(state.parkedCanaries.map((c) => c.serverTaskId));
      const added = obs.parkedCanaries
        .filter((c) => !known.has(c.serverTaskId))
        .map((c) => ({
          workerId: obs.workerId,
          serverTaskId: c.serverTaskId,
          state: c.state,
          cardHash: obs.cardHash,
          probeEventId: obs.eventId,
        }));
      if (added.length > 0) next.parkedCanaries = [...state.parkedCanaries, ...added];
      return next;
    }
    case "AgentCardObserved":
    case "EmissionRefused":
      // A worker's guard refused to emit: nothing reached a client, so no state or output changes.
      return next;
    case "OperatorResolved":
      // default/1 has no rule that acts on an operator's resolution.
      return next;
  }
}

function withStatus(state: CorrelationState, status: CorrelationStatus): CorrelationState {
  const next = copy(state);
  next.status = status;
  return next;
}

function evolveDecision(state: CorrelationState, d: Decision): CorrelationState {
  switch (d.type) {
    case "ContractViolation": {
      const key = violationKey(d);
      if (state.reported.includes(key)) return state;
      const next = copy(state);
      next.reported = [...state.reported, key];
      return next;
    }
    case "TaskIndeterminate":
    case "TaskFailed": {
      const next = copy(state);
      next.status = d.type === "TaskFailed" ? "failed" : "indeterminate";
      next.lostTaskIds = [...state.lostTaskIds, d.serverTaskId];
      if (d.type === "TaskIndeterminate") {
        next.loss = {
          workerId: d.workerId ?? "",
          serverTaskId: d.serverTaskId,
          attempt: attemptOf(state, d.serverTaskId)?.attempt ?? maxAttemptNumber(state),
          lastState: d.lastState,
          eventId: d.causeEventIds[0] ?? "",
        };
      }
      return next;
    }
    case "RedispatchCommanded":
      return withStatus(state, "redispatched");
    case "ReconciliationBlocked":
      return withStatus(state, "blocked");
    case "TaskReconciled":
      return withStatus(state, "reconciled");
    default:
      return state;
  }
}

const observationTypes = new Set([
  "AgentCardObserved",
  "TaskDispatched",
  "TaskStateObserved",
  "TaskNotFoundObserved",
  "ArtifactEmitted",
  "ProbeCompleted",
  "EmissionRefused",
  "OperatorResolved",
]);

export function evolve(state: CorrelationState, event: Observation | Decision): CorrelationState {
  return observationTypes.has(event.type)
    ? evolveObservation(state, event as Observation)
    : evolveDecision(state, event as Decision);
}
