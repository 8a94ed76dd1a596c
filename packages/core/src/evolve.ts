/**
 * evolve: the per-correlation state as a fold over the log — observations (facts) and the decisions the
 * rules took on them. Pure; returns a new state, never mutates its input.
 */
import type { ArtifactEmitted, Decision, Observation, TaskDispatched } from "@a2a-ledger/schemas";
import type { Attempt, CorrelationState, OutputRecord } from "./correlation-state.ts";
import { attemptOf, maxAttemptNumber } from "./correlation-state.ts";
import { violationKey } from "./decisions.ts";
import { nextLastState } from "./last-state.ts";
import { essence } from "./media-type.ts";
import { isTerminal } from "./task-state.ts";

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

function evolveObservation(state: CorrelationState, obs: Observation): CorrelationState {
  const base: CorrelationState = {
    ...state,
    correlationId: state.correlationId ?? obs.correlationId,
    seenEventIds: [...state.seenEventIds, obs.eventId],
  };
  switch (obs.type) {
    case "TaskDispatched":
      return { ...base, attempts: withDispatch(base.attempts, obs) };
    case "TaskStateObserved": {
      const next = { ...base, attempts: withServerTask(base, obs.workerId, obs.serverTaskId) };
      const terminal = isTerminal(obs.state);
      return {
        ...next,
        lastState: nextLastState(base.lastState, obs),
        terminalTaskIds: terminal && !base.terminalTaskIds.includes(obs.serverTaskId) ? [...base.terminalTaskIds, obs.serverTaskId] : base.terminalTaskIds,
        status: terminal && base.status === "open" ? "terminal" : base.status,
      };
    }
    case "ArtifactEmitted": {
      const next = { ...base, attempts: withServerTask(base, obs.workerId, obs.serverTaskId) };
      return { ...next, outputs: withArtifact(next, obs) };
    }
    case "TaskNotFoundObserved":
      return { ...base, parkedCanaries: base.parkedCanaries.filter((c) => c.serverTaskId !== obs.serverTaskId) };
    case "ProbeCompleted": {
      const known = new Set(base.parkedCanaries.map((c) => c.serverTaskId));
      const added = obs.parkedCanaries
        .filter((c) => !known.has(c.serverTaskId))
        .map((c) => ({ workerId: obs.workerId, serverTaskId: c.serverTaskId, state: c.state, cardHash: obs.cardHash, probeEventId: obs.eventId }));
      return added.length === 0 ? base : { ...base, parkedCanaries: [...base.parkedCanaries, ...added] };
    }
    case "AgentCardObserved":
      return base;
  }
}

function evolveDecision(state: CorrelationState, d: Decision): CorrelationState {
  switch (d.type) {
    case "ContractViolation": {
      const key = violationKey(d);
      return state.reported.includes(key) ? state : { ...state, reported: [...state.reported, key] };
    }
    case "TaskIndeterminate":
      return {
        ...state,
        status: "indeterminate",
        loss: {
          workerId: d.workerId ?? "",
          serverTaskId: d.serverTaskId,
          attempt: attemptOf(state, d.serverTaskId)?.attempt ?? maxAttemptNumber(state),
          lastState: d.lastState,
          eventId: d.causeEventIds[0] ?? "",
        },
        lostTaskIds: [...state.lostTaskIds, d.serverTaskId],
      };
    case "TaskFailed":
      return { ...state, status: "failed", lostTaskIds: [...state.lostTaskIds, d.serverTaskId] };
    case "RedispatchCommanded":
      return { ...state, status: "redispatched" };
    case "ReconciliationBlocked":
      return { ...state, status: "blocked" };
    case "TaskReconciled":
      return { ...state, status: "reconciled" };
    default:
      return state;
  }
}

const observationTypes = new Set(["AgentCardObserved", "TaskDispatched", "TaskStateObserved", "TaskNotFoundObserved", "ArtifactEmitted", "ProbeCompleted"]);

export function evolve(state: CorrelationState, event: Observation | Decision): CorrelationState {
  return observationTypes.has(event.type) ? evolveObservation(state, event as Observation) : evolveDecision(state, event as Decision);
}
