/**
 * evolve for the default/2 model: folds an observation (a fact) or a decision into the correlation state,
 * in place. The rules decide on the state *before* an observation; the fold then applies the
 * observation and the decisions taken on it, in that order.
 */
import {
  type ArtifactEmitted,
  type ContractViolation,
  type Decision,
  type Observation,
  observationTypes,
  type TaskDispatched,
  type TaskState,
  type TaskStateObserved,
} from "@a2a-ledger/schemas";
import { isTerminal } from "../task-state.ts";
import { artifactMediaTypes } from "./artifacts.ts";
import {
  attemptNumbered,
  artifactOf,
  type AttemptRecord,
  canaryOf,
  type CorrelationState,
  dedupeWindow,
  latestAttempt,
  maxAttempt,
  type TaskRecord,
  taskOf,
} from "./state.ts";
import { openAttemptOn } from "./attempts.ts";
import { dispatchTarget, plannedAttempt, replacesLastState } from "../lineage.ts";
import { trim } from "./trim.ts";

/** 64 bits of a string (two 32-bit FNV-1a lanes), as 16 hex digits: a compact, stable key. */
function hash64(text: string): string {
  let a = 0x811c9dc5;
  let b = 0x01000193 ^ text.length;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x5bd1e995);
  }
  return (a >>> 0).toString(16).padStart(8, "0") + (b >>> 0).toString(16).padStart(8, "0");
}

/**
 * The identity of a violation for "report once": its structured fields only, never the detail text,
 * kept as a 64-bit digest so a long-lived correlation's state stays small.
 */
export function reportKey(
  v: Pick<
    ContractViolation,
    "kind" | "workerId" | "serverTaskId" | "skillId" | "observed" | "allowed" | "output" | "attempts"
  >,
): string {
  if (v.kind === "DIVERGENT_ARTIFACTS") return hash64(`${v.kind}|${v.output ?? ""}|${v.attempts.join(",")}`);
  return hash64(
    `${v.kind}|${v.workerId ?? ""}|${v.serverTaskId ?? ""}|${v.skillId ?? ""}|${v.observed}|${v.allowed.join(",")}`,
  );
}

/** Up to this many remembered eventIds a scan is cheaper than keeping a Set beside them. */
const scanLimit = 32;

export function isDuplicate(s: CorrelationState, eventId: string): boolean {
  if (s.recentSet !== null) return s.recentSet.has(eventId);
  for (let i = 0; i < s.recent.length; i++) if (s.recent[i] === eventId) return true;
  return false;
}

function remember(s: CorrelationState, eventId: string): void {
  if (s.recent.length < dedupeWindow) {
    s.recent.push(eventId);
    if (s.recentSet !== null) s.recentSet.add(eventId);
    else if (s.recent.length > scanLimit) s.recentSet = new Set(s.recent);
    return;
  }
  const set = s.recentSet as Set<string>;
  set.delete(s.recent[s.recentHead] as string);
  set.add(eventId);
  s.recent[s.recentHead] = eventId;
  s.recentHead = (s.recentHead + 1) % dedupeWindow;
}

function dispatch(s: CorrelationState, obs: TaskDispatched): void {
  const target = dispatchTarget(s.attempts, obs);
  if (target.kind === "known") return;
  if (target.kind === "fills") {
    // A planned re-dispatch or an inferred attempt on this worker is the attempt this dispatch starts.
    const a = target.attempt;
    a.skillId = obs.skillId;
    a.messageId = obs.messageId;
    a.acceptedOutputModes = obs.acceptedOutputModes;
    a.dispatchedAt = obs.occurredAt;
    a.dispatchEventId = obs.eventId;
    return;
  }
  s.attempts.push({
    attempt: target.attempt,
    workerId: obs.workerId,
    skillId: obs.skillId,
    messageId: obs.messageId,
    acceptedOutputModes: obs.acceptedOutputModes,
    dispatchedAt: obs.occurredAt,
    dispatchEventId: obs.eventId,
    taskCount: 0,
    artifactCount: 0,
  });
}

/** The task record for (workerId, serverTaskId), linked to its attempt (created on first sight). */
function task(s: CorrelationState, workerId: string, serverTaskId: string): TaskRecord {
  const known = taskOf(s, workerId, serverTaskId);
  if (known !== undefined) return known;
  let record = openAttemptOn(s, workerId);
  if (record === undefined) {
    const previous = latestAttempt(s);
    record = {
      attempt: maxAttempt(s) + 1,
      workerId,
      skillId: previous?.skillId ?? null,
      messageId: null,
      acceptedOutputModes: previous?.acceptedOutputModes ?? [],
      dispatchedAt: null,
      dispatchEventId: null,
      taskCount: 0,
      artifactCount: 0,
    };
    s.attempts.push(record);
  }
  record.taskCount += 1;
  const t: TaskRecord = {
    workerId,
    serverTaskId,
    attempt: record.attempt,
    contextId: null,
    last: null,
    terminal: false,
    lost: false,
    artifacts: [],
  };
  s.tasks.push(t);
  return t;
}

function stateSeen(s: CorrelationState, obs: TaskStateObserved): void {
  const t = task(s, obs.workerId, obs.serverTaskId);
  if (obs.contextId !== null) t.contextId = obs.contextId;
  if (obs.state === "TASK_STATE_UNSPECIFIED") return;
  // Seen again: whatever TaskNotFound said before, the task exists.
  t.lost = false;
  // Terminal is absorbing: the first terminal report stands, whatever the observers' clocks say (lineage.ts).
  if (!replacesLastState(t.last, obs, t.terminal)) return;
  if (isTerminal(obs.state)) {
    t.terminal = true;
    for (const a of t.artifacts) a.complete = true;
    if (s.status === "open" && latestAttempt(s)?.attempt === t.attempt) s.status = "terminal";
  }
  if (t.last === null)
    t.last = {
      state: obs.state,
      rawState: obs.rawState,
      observer: obs.observer,
      occurredAt: obs.occurredAt,
      eventId: obs.eventId,
    };
  else {
    t.last.state = obs.state;
    t.last.rawState = obs.rawState;
    t.last.observer = obs.observer;
    t.last.occurredAt = obs.occurredAt;
    t.last.eventId = obs.eventId;
  }
}

function artifact(s: CorrelationState, obs: ArtifactEmitted): void {
  const t = task(s, obs.workerId, obs.serverTaskId);
  const modes = artifactMediaTypes(obs);
  const complete = t.terminal || obs.lastChunk !== false;
  const existing = artifactOf(t, obs.artifactId);
  if (existing === undefined) {
    const attempt = attemptNumbered(s, t.attempt) as AttemptRecord;
    attempt.artifactCount += 1;
    t.artifacts.push({
      artifactId: obs.artifactId,
      attempt: t.attempt,
      name: obs.name,
      ordinal: attempt.artifactCount,
      mediaTypes: modes,
      complete,
      eventId: obs.eventId,
    });
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
  if (s.lastEventAt === null || obs.occurredAt >= s.lastEventAt) {
    s.lastEventAt = obs.occurredAt;
    s.lastEventId = obs.eventId;
  }
  remember(s, obs.eventId);
  fold(s, obs);
  trim(s);
}

function fold(s: CorrelationState, obs: Observation): void {
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
      const canary = canaryOf(s, obs.workerId, obs.serverTaskId);
      if (canary !== undefined) canary.lost = true;
      // The task of a dispatch whose answer was not observed (see R4/R5): link it, so its loss is recorded.
      else if (taskOf(s, obs.workerId, obs.serverTaskId) === undefined && openAttemptOn(s, obs.workerId) !== undefined)
        task(s, obs.workerId, obs.serverTaskId);
      return;
    }
    case "ProbeCompleted":
      for (const c of obs.parkedCanaries) {
        if (canaryOf(s, obs.workerId, c.serverTaskId) === undefined)
          s.canaries.push({
            workerId: obs.workerId,
            serverTaskId: c.serverTaskId,
            state: c.state,
            cardHash: obs.cardHash,
            probeEventId: obs.eventId,
            parkedAt: obs.occurredAt,
            lost: false,
          });
      }
      return;
    case "AgentCardObserved":
    case "EmissionRefused":
      // A worker's guard refused to emit: nothing reached a client, so no state or output changes.
      return;
  }
}

function lossOf(
  s: CorrelationState,
  d: {
    workerId: string | null;
    serverTaskId: string;
    lastState: TaskState;
    decisionId: string;
    causeEventIds: string[];
  },
  outcome: "indeterminate" | "failed",
): void {
  const t = taskOf(s, d.workerId ?? "", d.serverTaskId);
  if (t === undefined) return;
  t.lost = true;
  if (latestAttempt(s)?.attempt !== t.attempt) return; // a superseded attempt's loss does not change the correlation
  s.status = outcome;
  s.loss = {
    workerId: t.workerId,
    serverTaskId: t.serverTaskId,
    attempt: t.attempt,
    lastState: d.lastState,
    eventId: d.causeEventIds[0] ?? "",
    outcome,
  };
}

export function evolveDecision(s: CorrelationState, d: Decision): void {
  if (s.lastEventAt === null || d.decidedAt > s.lastEventAt) s.lastEventAt = d.decidedAt;
  decisionFolded(s, d);
  trim(s);
}

/**
 * A fact the rules derive without deciding anything: a re-examination of a blocked correlation, asked
 * by one of its own observations, lifted nothing, so the block now stands examined as of that
 * observation (R6's recoverBlocked: a later capability change is judged from there). Not a decision:
 * it is never published, and the state it moves is the correlation's own.
 */
export interface BlockExamined {
  type: "BlockExamined";
  asOf: number;
}

export function evolveBlockExamined(s: CorrelationState, fact: BlockExamined): void {
  if (s.blockedAt !== null && fact.asOf > s.blockedAt) s.blockedAt = fact.asOf;
}

/**
 * A fact the fold derives when a block's fallback came due and found nothing to restart (the loss no
 * longer stands): the fallback is spent. Not a decision, never published.
 */
export interface FallbackSpent {
  type: "FallbackSpent";
}

/** Every event a correlation/2 state evolves by: an observation, a decision taken on it, or a derived fact. */
export function evolve(
  s: CorrelationState,
  event: Observation | Decision | BlockExamined | FallbackSpent,
): CorrelationState {
  if (event.type === "BlockExamined") evolveBlockExamined(s, event);
  else if (event.type === "FallbackSpent") s.fallbackAt = null;
  else if (isObservation(event)) evolveObservation(s, event);
  else evolveDecision(s, event);
  return s;
}

const observationTypeSet: ReadonlySet<string> = new Set(observationTypes);
const isObservation = (event: Observation | Decision): event is Observation => observationTypeSet.has(event.type);

function decisionFolded(s: CorrelationState, d: Decision): void {
  switch (d.type) {
    case "ContractViolation":
      s.reported.add(reportKey(d));
      return;
    case "TaskIndeterminate":
      lossOf(s, d, "indeterminate");
      return;
    case "TaskFailed":
      lossOf(s, d, "failed");
      s.fallbackAt = null;
      return;
    case "RedispatchCommanded":
      s.status = "redispatched";
      s.blockedAt = null;
      s.fallbackAt = null;
      {
        const planned = plannedAttempt(s.attempts, d);
        if (planned !== undefined)
          s.attempts.push({
            ...planned,
            messageId: null,
            dispatchedAt: null,
            dispatchEventId: null,
            taskCount: 0,
            artifactCount: 0,
          });
      }
      return;
    case "ReconciliationBlocked":
      s.status = "blocked";
      s.blockedAt = d.decidedAt;
      s.fallbackAt = d.fallbackAt;
      return;
    case "TaskReconciled":
      s.status = "reconciled";
      s.loss = null;
      s.blockedAt = null;
      s.fallbackAt = null;
      return;
    default:
      return;
  }
}
