/**
 * Properties of default/2 as a function of the log (fast-check). Histories have observer clock skew,
 * several attempts per correlation, server task ids that collide across workers, streamed artifacts and
 * redelivered events; a small independent oracle says which TaskNotFound is a loss.
 */
import fc from "fast-check";
import type { Decision, Observation } from "@a2a-ledger/schemas";
import { describe, expect, it } from "vitest";
import { agentCard, events } from "../test/builders.ts";
import { expectValidDecisions } from "../test/given.ts";
import { cardHash } from "./card-hash.ts";
import { replay, replayLog } from "./replay.ts";
import { defaultRuleSetV2, restartFromScratchRuleSet } from "./rules/rule-sets.ts";
import { isTerminal, normalizeTaskState } from "./task-state.ts";
import { policyOf } from "./verification.ts";

const workers = ["w-a", "w-b", "w-c"] as const;
const spellings = [
  "submitted",
  "working",
  "input-required",
  "TASK_STATE_AUTH_REQUIRED",
  "completed",
  "failed",
  "canceled",
  "TASK_STATE_CANCELLED",
  "rejected",
  "unknown",
];
const media = ["text/plain", "text/markdown", "application/pdf"];
const trusting = { trustedVendors: ["Acme"] };
const verifying = { trustedVendors: [] };

/** Cards and probes: w-a is Acme with a durable claim (trusted under `trusting`), w-c keeps interrupted tasks. */
function meshPrefix(): Observation[] {
  const e = events("mesh-");
  return workers.flatMap((w, i) => {
    const card = agentCard({
      org: i === 0 ? "Acme" : `V${i}`,
      states: spellings.slice(0, 5 + i),
      taskStore: i === 1 ? "ephemeral" : "durable",
      skills: [{ id: "summarize", outputModes: media.slice(0, i + 1) }],
    });
    const states = [
      "TASK_STATE_SUBMITTED",
      "TASK_STATE_WORKING",
      "TASK_STATE_COMPLETED",
      ...(i === 2 ? (["TASK_STATE_INPUT_REQUIRED"] as const) : []),
    ] as const;
    return [
      e.card(w, card, { at: 1 + i, maxAge: 60 }),
      e.probe(w, cardHash(card), {
        at: 10 + i,
        states: [...states],
        modes: media.slice(0, i + 1),
        durable: i === 2 ? true : null,
      }),
    ];
  });
}

type Step =
  | { k: "dispatch"; w: number; accepted: number }
  | { k: "state"; w: number; task: number; s: number; observer: number; skew: number }
  | { k: "artifact"; w: number; task: number; m: number; named: boolean; chunk: number }
  | { k: "notFound"; w: number; task: number; observer: number }
  | { k: "again"; pick: number };

const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ k: fc.constant("dispatch" as const), w: fc.nat(2), accepted: fc.nat(3) }),
  fc.record({
    k: fc.constant("state" as const),
    w: fc.nat(2),
    task: fc.nat(2),
    s: fc.nat(spellings.length - 1),
    observer: fc.nat(2),
    skew: fc.integer({ min: -60_000, max: 60_000 }),
  }),
  fc.record({
    k: fc.constant("artifact" as const),
    w: fc.nat(2),
    task: fc.nat(2),
    m: fc.nat(2),
    named: fc.boolean(),
    chunk: fc.nat(2),
  }),
  fc.record({ k: fc.constant("notFound" as const), w: fc.nat(2), task: fc.nat(2), observer: fc.nat(2) }),
  fc.record({ k: fc.constant("again" as const), pick: fc.nat() }),
);

const observers = ["orchestrator", "proxy", "worker"];

/**
 * One correlation's observations from a script. Server task ids are `<corr>-t<n>` on every worker, so
 * they collide across workers; "again" redelivers an earlier event of the correlation unchanged.
 */
function correlation(corr: string, steps: readonly Step[]): Observation[] {
  const e = events(`${corr}-`);
  const out: Observation[] = [];
  let dispatches = 0;
  steps.forEach((s, i) => {
    const at = 100_000 + i * 50;
    if (s.k === "again") {
      if (out.length > 0) out.push(JSON.parse(JSON.stringify(out[s.pick % out.length])) as Observation);
      return;
    }
    const w = workers[s.w] as string;
    const task = `${corr}-t${"task" in s ? s.task : 0}`;
    if (s.k === "dispatch")
      out.push(
        e.dispatch(corr, w, {
          at,
          accepted: [[], ["text/plain"], ["text/*"], ["application/pdf"]][s.accepted] ?? [],
          attempt: ++dispatches,
          messageId: `${corr}-m${i}`,
          cardFetchedAt: 1,
        }),
      );
    else if (s.k === "state")
      out.push(
        e.state(corr, w, task, spellings[s.s] as string, {
          at: at + s.skew,
          observer: observers[s.observer] as string,
        }),
      );
    else if (s.k === "artifact")
      out.push(
        e.artifact(corr, w, task, {
          at,
          mediaTypes: [media[s.m] as string],
          name: s.named ? "out" : null,
          artifactId: `${task}-art`,
          append: s.chunk > 0,
          lastChunk: s.chunk === 0 ? null : s.chunk === 2,
        }),
      );
    else out.push(e.notFound(corr, w, task, { at, observer: observers[s.observer] as string }));
  });
  return out;
}

const scripts = fc.array(fc.array(step, { minLength: 1, maxLength: 16 }), { minLength: 1, maxLength: 4 });
const logOf = (s: readonly (readonly Step[])[]): Observation[] => [
  ...meshPrefix(),
  ...s.flatMap((steps, i) => correlation(`c${i}`, steps)),
];
const byCorrelation = (ds: readonly Decision[], corr: string): string =>
  JSON.stringify(ds.filter((d) => d.correlationId === corr));

/**
 * The oracle: which TaskNotFound observations are losses. A task is (workerId, serverTaskId) within a
 * correlation. It is known once a state or an artifact of it was seen, or when a TaskNotFound names a
 * new id on a worker with a dispatch (or commanded re-dispatch) of the correlation that has no task yet.
 * A TaskNotFound is a loss when its task is known, no observer saw it terminal, and it is not lost
 * already (seen again after a TaskNotFound, it can be lost again). Counting dispatches without a task
 * per worker is enough to know when a new id answers one.
 */
function expectedLosses(log: readonly Observation[], decisions: readonly Decision[]): Map<string, string> {
  // A decision is taken when the last of its causes is folded: a recovery's probe may precede its loss.
  const position = new Map<string, number>();
  log.forEach((o, i) => position.has(o.eventId) || position.set(o.eventId, i));
  const causedBy = new Map<string, Decision[]>();
  for (const d of decisions) {
    const last = d.causeEventIds.reduce((a, b) => ((position.get(b) ?? -1) > (position.get(a) ?? -1) ? b : a));
    causedBy.set(last, [...(causedBy.get(last) ?? []), d]);
  }
  const seen = new Set<string>();
  const tasks = new Map<string, { terminal: boolean; lost: boolean }>();
  const open = new Map<string, number>(); // corr|worker → attempts without a task
  const unnamed = new Map<string, number>(); // corr|worker → attempts without a messageId (planned or inferred)
  const messages = new Set<string>();
  const attempts = new Map<string, Set<number>>();
  const bump = (m: Map<string, number>, k: string, by: number) => m.set(k, (m.get(k) ?? 0) + by);
  const losses = new Map<string, string>(); // eventId → workerId
  for (const o of log) {
    if (seen.has(`${o.correlationId}|${o.eventId}`)) continue;
    seen.add(`${o.correlationId}|${o.eventId}`);
    const w = `${o.correlationId}|${o.workerId}`;
    if (o.type === "TaskDispatched") {
      if (!messages.has(`${w}|${o.messageId}`)) {
        messages.add(`${w}|${o.messageId}`);
        if ((unnamed.get(w) ?? 0) > 0) bump(unnamed, w, -1);
        else bump(open, w, 1);
        attempts.set(o.correlationId, new Set([...(attempts.get(o.correlationId) ?? []), o.attempt]));
      }
    } else if (o.type === "TaskStateObserved" || o.type === "ArtifactEmitted" || o.type === "TaskNotFoundObserved") {
      const key = `${w}|${o.serverTaskId}`;
      let t = tasks.get(key);
      if (t === undefined && (o.type !== "TaskNotFoundObserved" || (open.get(w) ?? 0) > 0)) {
        if ((open.get(w) ?? 0) > 0) bump(open, w, -1);
        else bump(unnamed, w, 1);
        t = { terminal: false, lost: false };
        tasks.set(key, t);
      }
      if (o.type === "TaskNotFoundObserved") {
        if (t !== undefined && !t.terminal && !t.lost) {
          losses.set(o.eventId, o.workerId);
          t.lost = true;
        }
      } else if (o.type === "TaskStateObserved" && o.state !== "TASK_STATE_UNSPECIFIED" && t !== undefined) {
        t.lost = false;
        if (isTerminal(o.state)) t.terminal = true;
      }
    }
    for (const d of causedBy.get(o.eventId) ?? []) {
      if (d.type !== "RedispatchCommanded" || d.correlationId !== o.correlationId) continue;
      const numbers = attempts.get(o.correlationId) ?? new Set<number>();
      if (numbers.has(d.attempt)) continue;
      attempts.set(o.correlationId, new Set([...numbers, d.attempt]));
      bump(open, `${d.correlationId}|${d.targetWorkerId}`, 1);
      bump(unnamed, `${d.correlationId}|${d.targetWorkerId}`, 1);
    }
  }
  return losses;
}

const lossTypes = new Set(["TaskIndeterminate", "TaskFailed"]);

describe("default/2 as a function of the log", () => {
  it("yields exactly one loss decision for every TaskNotFound of a task whose own last state is not terminal, and none otherwise", () => {
    fc.assert(
      fc.property(scripts, fc.boolean(), (s, trust) => {
        const log = logOf(s);
        const decisions = replay(log, defaultRuleSetV2, { policy: trust ? trusting : verifying });
        const expected = expectedLosses(log, decisions);
        const actual = new Map<string, Decision[]>();
        for (const d of decisions) {
          if (!lossTypes.has(d.type)) continue;
          const cause = d.causeEventIds[0] as string;
          actual.set(cause, [...(actual.get(cause) ?? []), d]);
        }
        for (const [eventId, workerId] of expected) {
          const ds = actual.get(eventId) ?? [];
          expect(ds, `loss ${eventId}`).toHaveLength(1);
          // Under trust a loss on the trusted durable worker is a failure; everything else is indeterminate.
          expect(ds[0]?.type).toBe(trust && workerId === "w-a" ? "TaskFailed" : "TaskIndeterminate");
        }
        expect([...actual.keys()].filter((id) => !expected.has(id))).toEqual([]);
      }),
      { numRuns: 300 },
    );
  });

  it("never fails a task under verify", () => {
    fc.assert(
      fc.property(scripts, fc.boolean(), (s, variant) => {
        expect(
          replay(logOf(s), variant ? restartFromScratchRuleSet : defaultRuleSetV2, { policy: verifying }).filter(
            (d) => d.type === "TaskFailed",
          ),
        ).toEqual([]);
      }),
      { numRuns: 200 },
    );
  });

  it("has a trusted worker under the trusting policy, so the properties above can fail", () => {
    const { capabilities } = replayLog(meshPrefix(), defaultRuleSetV2, { policy: trusting });
    expect(policyOf(trusting, capabilities.asOf("w-a", 1_000))).toBe("trust");
    expect(policyOf(trusting, capabilities.asOf("w-c", 1_000))).toBe("verify");
    const lost = logOf([
      [
        { k: "dispatch", w: 0, accepted: 0 },
        { k: "state", w: 0, task: 0, s: 1, observer: 0, skew: 0 },
        { k: "notFound", w: 0, task: 0, observer: 0 },
      ],
    ]);
    expect(replay(lost, defaultRuleSetV2, { policy: trusting }).map((d) => d.type)).toContain("TaskFailed");
  });

  it("gives byte-identical, schema-valid decisions for the same log", () => {
    fc.assert(
      fc.property(scripts, (s) => {
        const log = logOf(s);
        const copy = JSON.parse(JSON.stringify(log)) as Observation[];
        const decisions = replay(log, restartFromScratchRuleSet, { policy: trusting });
        expectValidDecisions(decisions);
        expect(JSON.stringify(replay(copy, restartFromScratchRuleSet, { policy: trusting }))).toBe(
          JSON.stringify(decisions),
        );
      }),
      { numRuns: 150 },
    );
  });

  it("is unchanged by redelivered (duplicated) events", () => {
    fc.assert(
      fc.property(scripts, fc.array(fc.tuple(fc.nat(), fc.nat()), { maxLength: 20 }), (s, dups) => {
        const log = logOf(s);
        const withDups = [...log];
        for (const [pick, offset] of dups) {
          const i = pick % log.length;
          const original = withDups.indexOf(log[i] as Observation);
          withDups.splice(
            original + 1 + (offset % (withDups.length - original)),
            0,
            JSON.parse(JSON.stringify(log[i])) as Observation,
          );
        }
        expect(JSON.stringify(replay(withDups, defaultRuleSetV2, { policy: verifying }))).toBe(
          JSON.stringify(replay(log, defaultRuleSetV2, { policy: verifying })),
        );
      }),
      { numRuns: 150 },
    );
  });

  it("decides each correlation the same however independent correlations interleave", () => {
    fc.assert(
      fc.property(scripts, fc.array(fc.nat(), { minLength: 60, maxLength: 60 }), (s, picks) => {
        const corrs = s.map((steps, i) => correlation(`c${i}`, steps));
        const queues = corrs.map((c) => [...c]);
        const interleaved = meshPrefix();
        let p = 0;
        while (queues.some((q) => q.length > 0)) {
          const open = queues.filter((q) => q.length > 0);
          interleaved.push(
            (open[(picks[p++ % picks.length] ?? 0) % open.length] as Observation[]).shift() as Observation,
          );
        }
        const a = replay([...meshPrefix(), ...corrs.flat()], defaultRuleSetV2, { policy: verifying });
        const b = replay(interleaved, defaultRuleSetV2, { policy: verifying });
        for (let i = 0; i < s.length; i++) expect(byCorrelation(b, `c${i}`)).toBe(byCorrelation(a, `c${i}`));
      }),
      { numRuns: 150 },
    );
  });

  it("normalizes every spelling the generator uses", () => {
    for (const s of spellings) expect(normalizeTaskState(s)).not.toBeNull();
  });
});
