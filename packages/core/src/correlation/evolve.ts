/**
 * evolve for the default/2 model: folds an observation (a fact) or a decision into the correlation state,
 * in place. The rules decide on the state *before* an observation; the fold then applies the
 * observation and the decisions taken on it, in that order.
 */
import type { ArtifactEmitted, ContractViolation, Decision, Observation, TaskDispatched, TaskState, TaskStateObserved } from "@a2a-ledger/schemas";
import { isTerminal } from "../task-state.ts";
import { artifactMediaTypes } from "./artifacts.ts";
import { attemptFor } from "./attempts.ts";
import { artifactKey, type AttemptRecord, type CorrelationState, dedupeWindow, latestAttempt, type TaskRecord, taskKey } from "./state.ts";

/** The identity of a violation for "report once": structured fields only, never the detail text. */
export function reportKey(v: Pick<ContractViolation, "kind" | "workerId" | "serverTaskId" | "skillId" | "observed" | "allowed" | "output" | "attempts">): string {
  if (v.kind === "DIVERGENT_ARTIFACTS") return `${v.kind}|${v.output ?? ""}|${v.attempts.join(",")}`;
  return `${v.kind}|${v.workerId ?? ""}|${v.serverTaskId ?? ""}|${v.skillId ?? ""}|${v.observed}|${v.allowed.join(",")}`;
}

export function isDuplicate(s: CorrelationState, eventId: string): boolean {
  return s.recentSet.has(eventId);
}

function remember(s: CorrelationState, eventId: string): void {
  s.recent.push(eventId);
  s.recentSet.add(eventId);
  if (s.recent.length > dedupeWindow) s.recentSet.delete(s.recent.shift() as string);
}

function dispatch(s: CorrelationState, obs: TaskDispatched): void {
  for (const a of s.attempts) if (a.messageId === obs.messageId && a.workerId === obs.workerId) return;
  const fields = { skillId: obs.skillId, messageId: obs.messageId, acceptedOutputModes: obs.acceptedOutputModes, dispatchedAt: obs.occurredAt, dispatchEventId: obs.eventId };
  // A planned re-dispatch or an inferred attempt on this worker is the attempt this dispatch starts.
  for (let i = s.attempts.length - 1; i >= 0; i--) {
    const a = s.attempts[i] as AttemptRecord;
    if (a.workerId === obs.workerId && a.messageId === null) {
      Object.assign(a, fields);
      return;
    }
  }
  let max = 0;
  for (const a of s.attempts) if (a.attempt > max) max = a.attempt;
  s.attempts.push({ attempt: Math.max(obs.attempt, max + 1), workerId: obs.workerId, ...fields, taskIds: [], artifactCount: 0 });
}

/** The task record for (workerId, serverTaskId), linked to its attempt (created on first sight). */
function task(s: CorrelationState, workerId: string, serverTaskId: string): TaskRecord {
  const key = taskKey(workerId, serverTaskId);
  let t = s.tasks.get(key);
  if (t !== undefined) return t;
  const ref = attemptFor(s, workerId, serverTaskId);
  let record = ref.record;
  if (record === undefined) {
    record = { attempt: ref.attempt, workerId, skillId: ref.skillId, messageId: null, acceptedOutputModes: [...ref.acceptedOutputModes], dispatchedAt: null, dispatchEventId: null, taskIds: [], artifactCount: 0 };
    s.attempts.push(record);
  }
  record.taskIds.push(serverTaskId);
  t = { workerId, serverTaskId, attempt: record.attempt, contextId: null, last: null, terminal: false, lost: false };
  s.tasks.set(key, t);
  return t;
}

function completeArtifactsOf(s: CorrelationState, t: TaskRecord): void {
  for (const a of s.artifacts.values()) if (a.workerId === t.workerId && a.serverTaskId === t.serverTaskId) a.complete = true;
}

function stateSeen(s: CorrelationState, obs: TaskStateObserved): void {
  const t = task(s, obs.workerId, obs.serverTaskId);
  if (obs.contextId !== null) t.contextId = obs.contextId;
  if (obs.state === "TASK_STATE_UNSPECIFIED") return;
  // Seen again: whatever TaskNotFound said before, the task exists.
  t.lost = false;
  const terminal = isTerminal(obs.state);
  const seen = { state: obs.state, rawState: obs.rawState, observer: obs.observer, occurredAt: obs.occurredAt, eventId: obs.eventId };
  if (terminal) {
    // Terminal is absorbing: the first terminal report stands, whatever the observers' clocks say.
    if (!t.terminal) {
      t.last = seen;
      t.terminal = true;
      completeArtifactsOf(s, t);
      if (s.status === "open" && latestAttempt(s)?.attempt === t.attempt) s.status = "terminal";
    }
  } else if (!t.terminal && (t.last === null || obs.occurredAt >= t.last.occurredAt)) {
    t.last = seen;
  }
}

function artifact(s: CorrelationState, obs: ArtifactEmitted): void {
  const t = task(s, obs.workerId, obs.serverTaskId);
  const key = artifactKey(obs.workerId, obs.serverTaskId, obs.artifactId);
  const modes = artifactMediaTypes(obs);
  const complete = t.terminal || obs.lastChunk !== false;
  const existing = s.artifacts.get(key);
  if (existing === undefined) {
    const attempt = s.attempts.find((a) => a.attempt === t.attempt) as AttemptRecord;
    attempt.artifactCount += 1;
    s.artifacts.set(key, { workerId: obs.workerId, serverTaskId: obs.serverTaskId, artifactId: obs.artifactId, attempt: t.attempt, name: obs.name, ordinal: attempt.artifactCount, mediaTypes: modes, complete, eventId: obs.eventId });
    return;
  }
  if (existing.name === null) existing.name = obs.name;
  if (complete) existing.complete = true;
  for (const m of modes) {
    if (!existing.mediaTypes.includes(m)) {
      existing.mediaTypes = [...new Set([...existing.mediaTypes, ...modes])].sort();
      break;
    }
  }
}

export function evolveObservation(s: CorrelationState, obs: Observation): void {
  if (s.correlationId === null) s.correlationId = obs.correlationId;
  remember(s, obs.eventId);
  switch (obs.type) {
    case "TaskDispatched":
      dispatch(s, obs);
      return;
    case "TaskStateObserved":
      stateSeen(s, obs);
      return;
    case "ArtifactEmitted":
      artifact(s, obs);
      return;
    case "TaskNotFoundObserved": {
      const key = taskKey(obs.workerId, obs.serverTaskId);
      const canary = s.canaries.get(key);
      if (canary !== undefined) canary.lost = true;
      // The task of a dispatch whose answer was not observed (see R4/R5): link it, so its loss is recorded.
      else if (!s.tasks.has(key) && attemptFor(s, obs.workerId, obs.serverTaskId).record?.taskIds.length === 0) task(s, obs.workerId, obs.serverTaskId);
      return;
    }
    case "ProbeCompleted":
      for (const c of obs.parkedCanaries) {
        const key = taskKey(obs.workerId, c.serverTaskId);
        if (!s.canaries.has(key)) s.canaries.set(key, { workerId: obs.workerId, serverTaskId: c.serverTaskId, state: c.state, cardHash: obs.cardHash, probeEventId: obs.eventId, parkedAt: obs.occurredAt, lost: false });
      }
      return;
    case "AgentCardObserved":
      return;
  }
}

function lossOf(s: CorrelationState, d: { workerId: string | null; serverTaskId: string; lastState: TaskState; decisionId: string; causeEventIds: string[] }, outcome: "indeterminate" | "failed"): void {
  const t = s.tasks.get(taskKey(d.workerId ?? "", d.serverTaskId));
  if (t === undefined) return;
  t.lost = true;
  if (latestAttempt(s)?.attempt !== t.attempt) return; // a superseded attempt's loss does not change the correlation
  s.status = outcome;
  s.loss = { workerId: t.workerId, serverTaskId: t.serverTaskId, attempt: t.attempt, lastState: d.lastState, eventId: d.causeEventIds[0] ?? "", outcome };
}

export function evolveDecision(s: CorrelationState, d: Decision): void {
  switch (d.type) {
    case "ContractViolation":
      s.reported.add(reportKey(d));
      return;
    case "TaskIndeterminate":
      lossOf(s, d, "indeterminate");
      return;
    case "TaskFailed":
      lossOf(s, d, "failed");
      return;
    case "RedispatchCommanded":
      s.status = "redispatched";
      if (!s.attempts.some((a) => a.attempt === d.attempt)) {
        s.attempts.push({ attempt: d.attempt, workerId: d.targetWorkerId, skillId: d.skillId, messageId: null, acceptedOutputModes: [...d.acceptedOutputModes], dispatchedAt: null, dispatchEventId: null, taskIds: [], artifactCount: 0 });
      }
      return;
    case "ReconciliationBlocked":
      s.status = "blocked";
      return;
    case "TaskReconciled":
      s.status = "reconciled";
      s.loss = null;
      return;
    default:
      return;
  }
}
