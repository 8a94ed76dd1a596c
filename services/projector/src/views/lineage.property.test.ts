/**
 * One fold for every reader (fast-check): over generated logs — several dispatches per correlation on
 * three workers, server task ids that collide across workers, second tasks on one attempt, states out
 * of clock order and UNSPECIFIED, streamed artifacts, TaskNotFound for tasks seen and never seen,
 * redelivered events — the projector's lineage of a correlation (its attempts, which attempt each
 * server task belongs to, each server task's last state) equals the core fold's, whatever the order in
 * which the projector reads the decisions topic against the observations topic.
 * That includes the correlations the reconciler re-dispatched: the fold plans the re-dispatch's attempt
 * the moment it decides it and the projector plans it when it reads the decision, so a server task on the
 * target worker joins the same attempt (README: what remains when the decisions topic is read behind the
 * correlation's next observations).
 */
import { agentCard, events } from "@a2a-ledger/core/testing/builders";
import { cardHash, defaultRuleSet, lineageOf, replayLog } from "@a2a-ledger/core";
import type { Decision, Observation } from "@a2a-ledger/schemas";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { ProjectorInput } from "../inputs.ts";
import { emptyLoaded, project } from "./projection.ts";

const workers = ["w-a", "w-b", "w-c"] as const;
const spellings = ["submitted", "working", "input-required", "completed", "failed", "canceled", "rejected", "unknown"];
const observers = ["orchestrator", "proxy", "worker"];
const policy = { trustedVendors: ["Acme"] };

/** Cards and probes: w-a is Acme and durable (trusted), w-c keeps interrupted tasks, so losses get re-dispatched. */
function meshPrefix(): Observation[] {
  const e = events("mesh-");
  return workers.flatMap((w, i) => {
    const card = agentCard({ org: i === 0 ? "Acme" : `V${i}`, states: ["submitted", "working", "input-required", "completed", "failed"], taskStore: i === 1 ? "ephemeral" : "durable", skills: [{ id: "summarize", outputModes: ["text/plain"] }] });
    const states = ["TASK_STATE_SUBMITTED", "TASK_STATE_WORKING", "TASK_STATE_COMPLETED", ...(i === 2 ? (["TASK_STATE_INPUT_REQUIRED"] as const) : [])] as const;
    return [e.card(w, card, { at: 1 + i, maxAge: 60 }), e.probe(w, cardHash(card), { at: 10 + i, states: [...states], modes: ["text/plain"], durable: i === 2 ? true : null })];
  });
}

type Step =
  | { k: "dispatch"; w: number }
  | { k: "state"; w: number; task: number; s: number; observer: number; skew: number }
  | { k: "artifact"; w: number; task: number; chunk: number }
  | { k: "notFound"; w: number; task: number }
  | { k: "again"; pick: number }
  /** TaskNotFound for the task last seen in a state: the loss R6 reconciles, so most logs re-dispatch. */
  | { k: "lose" }
  /** A state of a task id not used before, on any worker: the re-dispatch's task when that worker is R6's target. */
  | { k: "fresh"; w: number; s: number };

const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ k: fc.constant("dispatch" as const), w: fc.nat(2) }),
  fc.record({ k: fc.constant("state" as const), w: fc.nat(2), task: fc.nat(3), s: fc.nat(spellings.length - 1), observer: fc.nat(2), skew: fc.integer({ min: -60_000, max: 60_000 }) }),
  fc.record({ k: fc.constant("artifact" as const), w: fc.nat(2), task: fc.nat(3), chunk: fc.nat(2) }),
  fc.record({ k: fc.constant("notFound" as const), w: fc.nat(2), task: fc.nat(3) }),
  fc.record({ k: fc.constant("again" as const), pick: fc.nat() }),
  fc.constant({ k: "lose" as const }),
  fc.record({ k: fc.constant("fresh" as const), w: fc.nat(2), s: fc.nat(3) }),
);

function correlation(corr: string, steps: readonly Step[]): Observation[] {
  const e = events(`${corr}-`);
  const out: Observation[] = [];
  let dispatches = 0;
  let seen: { w: string; task: string } | undefined;
  steps.forEach((s, i) => {
    const at = 100_000 + i * 50;
    if (s.k === "again") {
      if (out.length > 0) out.push(structuredClone(out[s.pick % out.length] as Observation));
      return;
    }
    if (s.k === "lose") {
      if (seen !== undefined) out.push(e.notFound(corr, seen.w, seen.task, { at }));
      return;
    }
    const w = workers[s.w] as string;
    if (s.k === "fresh") {
      out.push(e.state(corr, w, `${corr}-f${i}`, spellings[s.s] as string, { at }));
      seen = { w, task: `${corr}-f${i}` };
      return;
    }
    const task = `${corr}-t${"task" in s ? s.task : 0}`;
    if (s.k === "dispatch") out.push(e.dispatch(corr, w, { at, attempt: ++dispatches, messageId: `${corr}-m${i}`, accepted: ["text/plain"] }));
    else if (s.k === "state") {
      out.push(e.state(corr, w, task, spellings[s.s] as string, { at: at + s.skew, observer: observers[s.observer] as string }));
      seen = { w, task };
    }
    else if (s.k === "artifact") out.push(e.artifact(corr, w, task, { at, mediaTypes: ["text/plain"], artifactId: `${task}-art`, append: s.chunk > 0, lastChunk: s.chunk === 0 ? null : s.chunk === 2 }));
    else out.push(e.notFound(corr, w, task, { at }));
  });
  return out;
}

const source = (topic: string, offset: number) => ({ topic, partition: 0, offset, timestamp: 0 });

/**
 * The two topics merged as the projector may read them: observations in log order, each decision after
 * the observation that caused it (the last of its causes) and, by `picks`, anywhere up to the next
 * observation of its correlation; a correlation's decisions in their order. (Read later than that — the
 * decisions topic lagging behind the correlation's next observations — a server task on a re-dispatch's
 * target worker can join an older open attempt there: see the projector README.)
 */
function merged(observations: readonly Observation[], decisions: readonly Decision[], picks: readonly number[]): ProjectorInput[] {
  const position = new Map<string, number>();
  observations.forEach((o, i) => position.has(o.eventId) || position.set(o.eventId, i));
  const lastOf = new Map<string, number>();
  const placed = decisions.map((d, i) => {
    const cause = Math.max(...d.causeEventIds.map((id) => position.get(id) ?? -1));
    let next = observations.length;
    for (let j = cause + 1; j < observations.length; j++) if ((observations[j] as Observation).correlationId === d.correlationId) { next = j; break; }
    const span = next - cause;
    const at = Math.max(lastOf.get(d.correlationId) ?? -1, cause + 1 + ((picks[i % picks.length] ?? 0) % span));
    lastOf.set(d.correlationId, at);
    return { at, i, d };
  });
  placed.sort((a, b) => a.at - b.at || a.i - b.i);
  const out: ProjectorInput[] = [];
  let k = 0;
  for (let o = 0; o <= observations.length; o++) {
    while (k < placed.length && (placed[k] as { at: number }).at <= o) {
      const p = placed[k++] as { i: number; d: Decision };
      out.push({ kind: "decision", source: source("decisions", p.i), record: p.d });
    }
    if (o < observations.length) out.push({ kind: "observation", source: source("observations", o), record: observations[o] as Observation });
  }
  return out;
}

const byTask = (a: { workerId: string; serverTaskId: string }, b: { workerId: string; serverTaskId: string }) => (a.workerId + a.serverTaskId < b.workerId + b.serverTaskId ? -1 : 1);

describe("the projector's lineage is the core fold's", () => {
  it("for every correlation of generated logs, re-dispatched ones too, with the decisions read anywhere between their cause and the correlation's next observation", () => {
    let compared = 0;
    let redispatchedCompared = 0;
    let inferred = 0;
    let joinedPlanned = 0;
    fc.assert(
      fc.property(fc.array(fc.array(step, { minLength: 1, maxLength: 20 }), { minLength: 1, maxLength: 5 }), fc.array(fc.nat(), { minLength: 1, maxLength: 64 }), (scripts, picks) => {
        const log = [...meshPrefix(), ...scripts.flatMap((steps, i) => correlation(`c${i}`, steps))];
        const folded = replayLog(log, defaultRuleSet, { policy });
        expect(folded.rejected).toEqual([]);
        const rows = emptyLoaded();
        project(rows, merged(log, folded.decisions, picks));
        const redispatched = new Set(folded.decisions.filter((d) => d.type === "RedispatchCommanded").map((d) => d.correlationId));
        for (const [correlationId, state] of folded.correlations) {
          compared++;
          if (redispatched.has(correlationId)) redispatchedCompared++;
          const core = lineageOf(state);
          if (core === undefined) throw new Error("a correlation/2 state was expected");
          const attempts = [...(rows.attempts.get(correlationId) ?? [])].sort((a, b) => a.attempt - b.attempt).map((a) => ({ attempt: a.attempt, workerId: a.workerId, messageId: a.messageId, skillId: a.skillId }));
          inferred += attempts.filter((a) => a.messageId === null).length;
          // A server task linked to an attempt a re-dispatch planned, before any dispatch of it was seen.
          const plannedNumbers = new Set(folded.decisions.filter((d) => d.type === "RedispatchCommanded" && d.correlationId === correlationId).map((d) => (d as { attempt: number }).attempt));
          joinedPlanned += (rows.attempts.get(correlationId) ?? []).filter((a) => plannedNumbers.has(a.attempt) && a.dispatchEventId === null && [...rows.serverTasks.values()].some((st) => st.correlationId === correlationId && st.attempt === a.attempt)).length;
          const tasks = [...rows.serverTasks.values()].filter((s) => s.correlationId === correlationId).map((s) => ({ workerId: s.workerId, serverTaskId: s.serverTaskId, attempt: s.attempt, lastState: s.lastState })).sort(byTask);
          expect({ correlationId, attempts, tasks }).toEqual({ correlationId, attempts: core.attempts, tasks: [...core.tasks].sort(byTask) });
        }
      }),
      { numRuns: 600 },
    );
    // The generator reached what the two readers could disagree on.
    expect(inferred).toBeGreaterThan(0);
    expect(redispatchedCompared).toBeGreaterThan(30);
    expect(joinedPlanned).toBeGreaterThan(4);
    console.info(`lineage compared for ${compared} correlations, ${redispatchedCompared} of them re-dispatched; ${joinedPlanned} server tasks joined a planned attempt before its dispatch`);
  }, 120_000);
});

describe("a re-dispatch's planned attempt", () => {
  const e = events("late-");
  const log = [
    ...meshPrefix(),
    e.dispatch("r", "w-b", { at: 100_000, attempt: 1, messageId: "r-m1", accepted: ["text/plain"] }),
    e.state("r", "w-b", "r-t1", "working", { at: 100_050 }),
    e.notFound("r", "w-b", "r-t1", { at: 100_100 }),
    // The target's task, before any dispatch of the re-dispatch is seen: it joins the planned attempt.
    e.state("r", "w-a", "r-t2", "working", { at: 100_150 }),
  ];
  const folded = replayLog(log, defaultRuleSet, { policy });
  const command = folded.decisions.find((d) => d.type === "RedispatchCommanded");
  const lineage = (inputs: ProjectorInput[]) => {
    const rows = emptyLoaded();
    project(rows, inputs);
    return { attempts: [...(rows.attempts.get("r") ?? [])].sort((a, b) => a.attempt - b.attempt), tasks: [...rows.serverTasks.values()].filter((s) => s.correlationId === "r").sort(byTask) };
  };

  it("is the attempt the target's next server task joins, whether the decision is read before it or after it", () => {
    expect(command).toMatchObject({ targetWorkerId: "w-a", attempt: 2 });
    const core = lineageOf(folded.correlations.get("r") as NonNullable<ReturnType<typeof folded.correlations.get>>);
    const observations = log.map((o, i): ProjectorInput => ({ kind: "observation", source: source("observations", i), record: o }));
    const decisions = folded.decisions.map((d, i): ProjectorInput => ({ kind: "decision", source: source("decisions", i), record: d }));
    const inTime = lineage(merged(log, folded.decisions, [0]));
    const behind = lineage([...observations, ...decisions]);
    for (const view of [inTime, behind]) {
      expect(view.attempts.map((a) => ({ attempt: a.attempt, workerId: a.workerId, messageId: a.messageId, skillId: a.skillId }))).toEqual(core?.attempts);
      expect(view.tasks.map((s) => [s.workerId, s.serverTaskId, s.attempt])).toEqual([["w-a", "r-t2", 2], ["w-b", "r-t1", 1]]);
      // Announced by the re-dispatch, not inferred from a task nobody dispatched; its dispatch not seen yet.
      expect(view.attempts[1]).toMatchObject({ workerId: "w-a", inferred: false, dispatchEventId: null, acceptedModes: ["text/plain"] });
    }
  });

  it("is filled by the re-dispatch's dispatch, read before or after the decision", () => {
    const dispatch = e.dispatch("r", "w-a", { at: 100_120, attempt: 2, messageId: "r-m2", accepted: ["text/plain"] });
    const withDispatch = [...log.slice(0, -1), dispatch, log[log.length - 1] as Observation];
    const again = replayLog(withDispatch, defaultRuleSet, { policy });
    const observations = withDispatch.map((o, i): ProjectorInput => ({ kind: "observation", source: source("observations", i), record: o }));
    const decisions = again.decisions.map((d, i): ProjectorInput => ({ kind: "decision", source: source("decisions", i), record: d }));
    for (const view of [lineage(merged(withDispatch, again.decisions, [0])), lineage([...observations, ...decisions])]) {
      expect(view.attempts.map((a) => [a.attempt, a.workerId, a.messageId, a.inferred])).toEqual([[1, "w-b", "r-m1", false], [2, "w-a", "r-m2", false]]);
      expect(view.tasks.map((s) => [s.serverTaskId, s.attempt])).toEqual([["r-t2", 2], ["r-t1", 1]]);
    }
  });
});
