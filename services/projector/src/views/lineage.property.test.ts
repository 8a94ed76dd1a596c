/**
 * One fold for every reader (fast-check): over generated logs — several dispatches per correlation on
 * three workers, server task ids that collide across workers, second tasks on one attempt, states out
 * of clock order and UNSPECIFIED, streamed artifacts, TaskNotFound for tasks seen and never seen,
 * redelivered events — the projector's lineage of a correlation (its attempts, which attempt each
 * server task belongs to, each server task's last state) equals the core fold's, whatever the order in
 * which the projector reads the decisions topic against the observations topic.
 *
 * Not yet for a correlation the reconciler re-dispatched: the fold plans the re-dispatch's attempt the
 * moment it decides it, and a server task on the target worker may join that planned attempt; the
 * projector reads the decisions topic independently, so it links by the observations alone (README,
 * known limit). Those correlations are left out here, and counted.
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
  | { k: "again"; pick: number };

const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ k: fc.constant("dispatch" as const), w: fc.nat(2) }),
  fc.record({ k: fc.constant("state" as const), w: fc.nat(2), task: fc.nat(3), s: fc.nat(spellings.length - 1), observer: fc.nat(2), skew: fc.integer({ min: -60_000, max: 60_000 }) }),
  fc.record({ k: fc.constant("artifact" as const), w: fc.nat(2), task: fc.nat(3), chunk: fc.nat(2) }),
  fc.record({ k: fc.constant("notFound" as const), w: fc.nat(2), task: fc.nat(3) }),
  fc.record({ k: fc.constant("again" as const), pick: fc.nat() }),
);

function correlation(corr: string, steps: readonly Step[]): Observation[] {
  const e = events(`${corr}-`);
  const out: Observation[] = [];
  let dispatches = 0;
  steps.forEach((s, i) => {
    const at = 100_000 + i * 50;
    if (s.k === "again") {
      if (out.length > 0) out.push(structuredClone(out[s.pick % out.length] as Observation));
      return;
    }
    const w = workers[s.w] as string;
    const task = `${corr}-t${"task" in s ? s.task : 0}`;
    if (s.k === "dispatch") out.push(e.dispatch(corr, w, { at, attempt: ++dispatches, messageId: `${corr}-m${i}`, accepted: ["text/plain"] }));
    else if (s.k === "state") out.push(e.state(corr, w, task, spellings[s.s] as string, { at: at + s.skew, observer: observers[s.observer] as string }));
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
  it("for every correlation of generated logs that was not re-dispatched, with the decisions read anywhere between their cause and the correlation's next observation", () => {
    let compared = 0;
    let leftOut = 0;
    let inferred = 0;
    fc.assert(
      fc.property(fc.array(fc.array(step, { minLength: 1, maxLength: 20 }), { minLength: 1, maxLength: 5 }), fc.array(fc.nat(), { minLength: 1, maxLength: 64 }), (scripts, picks) => {
        const log = [...meshPrefix(), ...scripts.flatMap((steps, i) => correlation(`c${i}`, steps))];
        const folded = replayLog(log, defaultRuleSet, { policy });
        expect(folded.rejected).toEqual([]);
        const rows = emptyLoaded();
        project(rows, merged(log, folded.decisions, picks));
        const redispatched = new Set(folded.decisions.filter((d) => d.type === "RedispatchCommanded").map((d) => d.correlationId));
        for (const [correlationId, state] of folded.correlations) {
          if (redispatched.has(correlationId)) {
            leftOut++;
            continue;
          }
          compared++;
          const core = lineageOf(state);
          if (core === undefined) throw new Error("a correlation/2 state was expected");
          const attempts = [...(rows.attempts.get(correlationId) ?? [])].sort((a, b) => a.attempt - b.attempt).map((a) => ({ attempt: a.attempt, workerId: a.workerId, messageId: a.messageId, skillId: a.skillId }));
          inferred += attempts.filter((a) => a.messageId === null).length;
          const tasks = [...rows.serverTasks.values()].filter((s) => s.correlationId === correlationId).map((s) => ({ workerId: s.workerId, serverTaskId: s.serverTaskId, attempt: s.attempt, lastState: s.lastState })).sort(byTask);
          expect({ correlationId, attempts, tasks }).toEqual({ correlationId, attempts: core.attempts, tasks: [...core.tasks].sort(byTask) });
        }
      }),
      { numRuns: 300 },
    );
    // The generator reached what the two readers could disagree on, and most correlations were compared.
    expect(inferred).toBeGreaterThan(0);
    expect(compared).toBeGreaterThan(leftOut);
    console.info(`lineage compared for ${compared} correlations; ${leftOut} re-dispatched ones left out`);
  }, 120_000);
});
