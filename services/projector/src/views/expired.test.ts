/**
 * A correlation the reconciler let go of without an outcome (CorrelationExpired): the projection gives
 * it the status `expired` and a waiting time, so it stays on the operator's queue, whatever order or
 * batches the topics are read in; a later status decision still wins by (decidedAt, rank, decisionId),
 * and an event after the expiry (the correlation seen again) ends it. Pure: no store, no Kafka.
 */
import type { Decision, DecisionType, Observation, ObservationType } from "@a2a-ledger/schemas";
import { sampleDecision, sampleObservation } from "@a2a-ledger/schemas/testing";
import { describe, expect, it } from "vitest";
import type { ProjectorInput } from "../inputs.ts";
import { applyChanges, emptyStore } from "../../test/memory-store.ts";
import { project } from "./projection.ts";
import type { TaskRow } from "./rows.ts";
import { statusDecision } from "./status.ts";

const day = 86_400_000;
const lostAt = Date.parse("2025-06-02T09:20:00Z");
const expiredAt = lostAt + 30 * day;
const correlationId = "task-1";

let offset = 0;
const source = (topic: string) => ({ topic, partition: 0, offset: offset++, timestamp: 0 });

const observation = <T extends ObservationType>(
  type: T,
  eventId: string,
  occurredAt: number,
  fields: Partial<Extract<Observation, { type: T }>> = {},
): ProjectorInput => ({
  kind: "observation",
  source: source("a2a.observations.v1"),
  record: { ...sampleObservation(type), correlationId, eventId, occurredAt, ...fields } as Observation,
});

const decision = <T extends DecisionType>(
  type: T,
  decisionId: string,
  decidedAt: number,
  fields: Partial<Extract<Decision, { type: T }>> = {},
): ProjectorInput => ({
  kind: "decision",
  source: source("a2a.decisions.v1"),
  record: { ...sampleDecision(type), correlationId, decisionId, decidedAt, ...fields } as Decision,
});

const dispatched = () => observation("TaskDispatched", "dispatch-1", lostAt - 10 * 60_000);
const working = () =>
  observation("TaskStateObserved", "state-1", lostAt - 9 * 60_000, {
    state: "TASK_STATE_INPUT_REQUIRED",
    serverTaskId: "st-1",
  });
const lost = () => decision("TaskIndeterminate", "not-found-1:TaskIndeterminate:0", lostAt);
const blocked = (at = lostAt) => decision("ReconciliationBlocked", "not-found-1:ReconciliationBlocked:1", at);
const expired = (lastStatus = "blocked", lastEventAt = lostAt) =>
  decision("CorrelationExpired", "not-found-1:CorrelationExpired:0", lastEventAt + 30 * day, {
    lastStatus,
    lastEventAt,
    idleMs: 30 * day,
    reason: `no event for 30 days while ${lastStatus}: the reconciler stopped watching it`,
  });

/** A task lost, blocked, then expired 30 days after its loss, in the order the reconciler decides them. */
const base = () => [dispatched(), working(), lost(), blocked(), expired()];

/** The task row after projecting `batches` one after the other onto the same rows (as the writer does). */
function taskAfter(...batches: ProjectorInput[][]): TaskRow {
  let store = emptyStore();
  for (const batch of batches) store = applyChanges(store, project(store.rows, batch));
  return store.rows.tasks.get(correlationId) as TaskRow;
}

const onQueue = (t: TaskRow) => ({ status: t.status, waitingSince: t.waitingSince });

describe("a CorrelationExpired decision", () => {
  it("is a status decision of the core's table: expired, ranked with the outcomes", () => {
    expect(statusDecision("CorrelationExpired")).toEqual({ status: "expired", rank: 3 });
  });

  it("sets the status expired and keeps the time the task waited on the queue, in any order and batches", () => {
    const observations = [dispatched(), working()];
    const decisions = [lost(), blocked(), expired()];
    const expected = { status: "expired", waitingSince: lostAt };
    const inOne = taskAfter([...observations, ...decisions]);
    expect(onQueue(inOne)).toEqual(expected);
    expect(inOne).toMatchObject({ hasTask: true, decisionType: "CorrelationExpired", decisionAt: expiredAt });
    // Each record its own batch; the decisions topic read before the observations (each topic in its log order).
    expect(onQueue(taskAfter(...[...observations, ...decisions].map((i) => [i])))).toEqual(expected);
    expect(onQueue(taskAfter(decisions, observations))).toEqual(expected);
    expect(onQueue(taskAfter(...[...decisions, ...observations].map((i) => [i])))).toEqual(expected);
    expect(onQueue(taskAfter([decisions[0] as ProjectorInput, ...observations], decisions.slice(1)))).toEqual(expected);
    // The batches cut between the block and the expiry: the waiting time stored is the one kept.
    expect(onQueue(taskAfter([...observations, lost(), blocked()], [expired()]))).toEqual(expected);
  });

  it("waits since the block when there was no loss, and since the expiry when the task was not waiting", () => {
    const blockedAt = lostAt + 5 * 60_000;
    expect(onQueue(taskAfter([dispatched(), blocked(blockedAt), expired("blocked", blockedAt)]))).toEqual({
      status: "expired",
      waitingSince: blockedAt,
    });
    const redispatchedAt = lostAt + 1_000;
    const redispatch = decision("RedispatchCommanded", "not-found-1:RedispatchCommanded:1", redispatchedAt);
    expect(onQueue(taskAfter([dispatched(), lost(), redispatch, expired("redispatched", redispatchedAt)]))).toEqual({
      status: "expired",
      waitingSince: redispatchedAt + 30 * day,
    });
    // A correlation only ever dispatched (status open in the reconciler) waits since its expiry.
    expect(onQueue(taskAfter([dispatched(), expired("open", lostAt - 10 * 60_000)]))).toEqual({
      status: "expired",
      waitingSince: lostAt - 10 * 60_000 + 30 * day,
    });
  });
});

describe("the order of status decisions still applies around an expiry", () => {
  it("a status decision decided later wins, whichever is read first", () => {
    const reconciled = decision("TaskReconciled", "late:TaskReconciled:0", expiredAt + 1);
    expect(onQueue(taskAfter([...base(), reconciled]))).toEqual({ status: "reconciled", waitingSince: null });
    expect(onQueue(taskAfter([reconciled], base()))).toEqual({ status: "reconciled", waitingSince: null });
    const lostAgain = decision("TaskIndeterminate", "late:TaskIndeterminate:0", expiredAt + 60_000);
    expect(onQueue(taskAfter(base(), [lostAgain]))).toEqual({
      status: "indeterminate",
      waitingSince: expiredAt + 60_000,
    });
  });

  it("a status decision decided earlier does not, wherever it is in the log", () => {
    const early = decision("TaskReconciled", "early:TaskReconciled:0", expiredAt - 1);
    expect(onQueue(taskAfter(base(), [early]))).toEqual({ status: "expired", waitingSince: lostAt });
    // Logged before the loss: the task was no longer waiting when it expired (the log order decides that).
    expect(onQueue(taskAfter([early], base()))).toEqual({ status: "expired", waitingSince: expiredAt });
  });

  it("at the same instant the rank decides, then the decisionId", () => {
    // A loss (rank 1) at the expiry's instant ranks before it.
    const loss = decision("TaskIndeterminate", "same:TaskIndeterminate:0", expiredAt);
    expect(taskAfter(base(), [loss]).status).toBe("expired");
    expect(taskAfter([loss], base()).status).toBe("expired");
    // An outcome of the same rank: the greater decisionId wins.
    const after = decision("TaskFailed", "z-after:TaskFailed:0", expiredAt);
    const before = decision("TaskFailed", "a-before:TaskFailed:0", expiredAt);
    expect(taskAfter(base(), [after]).status).toBe("failed");
    expect(taskAfter([after], base()).status).toBe("failed");
    expect(taskAfter(base(), [before]).status).toBe("expired");
    expect(taskAfter([before], base()).status).toBe("expired");
  });
});

describe("an event after the expiry (the reconciler opens the correlation anew)", () => {
  it("ends the expiry: the status is read from the observations until the next status decision", () => {
    const again = observation("TaskStateObserved", "state-late", expiredAt + day, {
      state: "TASK_STATE_WORKING",
      serverTaskId: "st-2",
    });
    const done = observation("TaskStateObserved", "state-done", expiredAt + day + 1, {
      state: "TASK_STATE_COMPLETED",
      serverTaskId: "st-2",
    });
    expect(onQueue(taskAfter(base(), [again]))).toEqual({ status: "running", waitingSince: null });
    expect(onQueue(taskAfter([again, done], base()))).toEqual({ status: "completed", waitingSince: null });
    // The reconciler's next status decision on the reopened correlation applies as any other.
    const lostAgain = decision("TaskIndeterminate", "late:TaskIndeterminate:0", expiredAt + 2 * day);
    expect(onQueue(taskAfter(base(), [again], [lostAgain]))).toEqual({
      status: "indeterminate",
      waitingSince: expiredAt + 2 * day,
    });
    // Expired again later: it waits since that loss, not since the first one.
    const expiredAgain = decision("CorrelationExpired", "late:CorrelationExpired:0", expiredAt + 32 * day, {
      lastStatus: "indeterminate",
      lastEventAt: expiredAt + 2 * day,
    });
    expect(onQueue(taskAfter(base(), [again, lostAgain, expiredAgain]))).toEqual({
      status: "expired",
      waitingSince: expiredAt + 2 * day,
    });
  });

  it("an event dated before the expiry, read after it, leaves it in force", () => {
    const late = observation("TaskStateObserved", "state-straggler", expiredAt - day, {
      state: "TASK_STATE_WORKING",
      serverTaskId: "st-1",
    });
    expect(onQueue(taskAfter(base(), [late]))).toEqual({ status: "expired", waitingSince: lostAt });
  });
});
