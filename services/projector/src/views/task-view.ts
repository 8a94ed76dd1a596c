/**
 * The task view: one row per correlation (its events counted, its last and terminal state, the decision
 * that sets its status, its violations) and the keys it is found by (worker, context, server task).
 * Every merge is order-independent across topics (maxima, minima, the later event by time and id).
 */
import type { Decision, Observation } from "@a2a-ledger/schemas";
import type { ProjectorInput } from "../inputs.ts";
import type { BatchRows } from "./batch-rows.ts";
import type { TaskRow } from "./rows.ts";
import { expiryWaitingSince, isTerminalState, later, statusDecision, supersedes } from "./status.ts";

/** The batch's copy of a correlation's task row, made at `at` when there is none. */
export function changeTask(rows: BatchRows, correlationId: string, at: number): TaskRow {
  return rows.tasks.change(correlationId, () => ({
    correlationId,
    hasTask: false,
    status: "running",
    firstAt: at,
    lastAt: at,
    eventCount: 0,
    violationCount: 0,
    attemptCount: 0,
    lastState: null,
    lastStateAt: null,
    lastStateEvent: null,
    lastObserver: null,
    terminalState: null,
    terminalAt: null,
    terminalEvent: null,
    decisionType: null,
    decisionAt: null,
    decisionRank: null,
    decisionId: null,
    indeterminateAt: null,
    blockedReason: null,
    waitingSince: null,
  }));
}

/** An event of the correlation (observation, decision or command) at `at`: counted, and the span it covers. */
export function countEvent(rows: BatchRows, correlationId: string, at: number): void {
  const task = changeTask(rows, correlationId, at);
  task.firstAt = Math.min(task.firstAt, at);
  task.lastAt = Math.max(task.lastAt, at);
  task.eventCount += 1;
}

const taskObservations = new Set<Observation["type"]>([
  "TaskDispatched",
  "TaskStateObserved",
  "TaskNotFoundObserved",
  "EmissionRefused",
  "ArtifactEmitted",
]);

const taskDecisions = new Set<Decision["type"]>([
  "TaskIndeterminate",
  "ReconciliationBlocked",
  "RedispatchCommanded",
  "TaskFailed",
  "TaskReconciled",
  "CorrelationExpired",
]);

function observation(rows: BatchRows, o: Observation): void {
  if (!taskObservations.has(o.type) || o.workerId === null) return;
  const task = changeTask(rows, o.correlationId, o.occurredAt);
  task.hasTask = true;
  rows.out.mentioned.add(o.workerId);
  rows.key("worker", o.workerId, o.correlationId);
  if (o.type !== "TaskStateObserved") return;
  rows.key("context", o.contextId, o.correlationId);
  if (later(o.occurredAt, o.eventId, task.lastStateAt, task.lastStateEvent)) {
    task.lastState = o.state;
    task.lastStateAt = o.occurredAt;
    task.lastStateEvent = o.eventId;
    task.lastObserver = o.observer;
  }
  if (isTerminalState(o.state) && later(o.occurredAt, o.eventId, task.terminalAt, task.terminalEvent)) {
    task.terminalState = o.state;
    task.terminalAt = o.occurredAt;
    task.terminalEvent = o.eventId;
  }
}

function decision(rows: BatchRows, d: Decision): void {
  const task = changeTask(rows, d.correlationId, d.decidedAt);
  if (taskDecisions.has(d.type)) task.hasTask = true;
  const status = statusDecision(d.type);
  if (status !== undefined && supersedes(task, d.decidedAt, status.rank, d.decisionId)) {
    // An expiry keeps the time the task had waited on the queue before it (read before it applies).
    if (d.type === "CorrelationExpired") task.waitingSince = expiryWaitingSince(task, d.decidedAt);
    task.decisionType = d.type;
    task.decisionAt = d.decidedAt;
    task.decisionRank = status.rank;
    task.decisionId = d.decisionId;
    if (d.type === "ReconciliationBlocked") task.blockedReason = d.reason;
  }
  if (d.type === "TaskIndeterminate") task.indeterminateAt = Math.max(task.indeterminateAt ?? d.decidedAt, d.decidedAt);
  if (d.type === "RedispatchCommanded") rows.key("worker", d.targetWorkerId, d.correlationId);
  if (d.type === "ContractViolation") task.violationCount += 1;
}

export const taskView = {
  /** Observations and decisions (a command only counts as an event of its task). */
  canHandle: (input: ProjectorInput): boolean => input.kind === "observation" || input.kind === "decision",
  evolve(rows: BatchRows, input: ProjectorInput): void {
    if (input.kind === "observation") observation(rows, input.record);
    else if (input.kind === "decision") decision(rows, input.record);
  },
};
