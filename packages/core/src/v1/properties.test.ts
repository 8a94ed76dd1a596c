/** Properties of the rules as a function of the log (fast-check). */
import fc from "fast-check";
import type { Decision, Observation } from "@a2a-ledger/schemas";
import { describe, expect, it } from "vitest";
import { agentCard, events } from "../../test/builders.ts";
import { expectValidDecisions } from "../../test/given.ts";
import { cardHash } from "../card-hash.ts";
import { replay } from "../replay.ts";
import { defaultRuleSetV1, restartFromScratchRuleSetV1 } from "./rules/rule-sets.ts";

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

/** Cards and probes for the mesh: fixed, logged before any task. */
function meshPrefix(): Observation[] {
  const e = events("mesh-");
  return workers.flatMap((w, i) => {
    const card = agentCard({
      org: i === 0 ? "Acme" : `V${i}`,
      states: spellings.slice(0, 5 + i),
      taskStore: i === 0 ? "durable" : "ephemeral",
      skills: [{ id: "summarize", outputModes: media.slice(0, i + 1) }],
    });
    return [
      e.card(w, card, { at: 1 + i, maxAge: 60 }),
      e.probe(w, cardHash(card), {
        at: 10 + i,
        states: [
          "TASK_STATE_SUBMITTED",
          "TASK_STATE_WORKING",
          "TASK_STATE_COMPLETED",
          ...(i === 2 ? (["TASK_STATE_INPUT_REQUIRED"] as const) : []),
        ],
        modes: media.slice(0, i + 1),
        durable: i === 2,
      }),
    ];
  });
}

type Step =
  | { k: "dispatch"; w: number; accepted: number }
  | { k: "state"; w: number; task: number; s: number; observer: number; dt: number }
  | { k: "artifact"; w: number; task: number; m: number; name: number }
  | { k: "notFound"; w: number; task: number };

const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ k: fc.constant("dispatch" as const), w: fc.nat(2), accepted: fc.nat(3) }),
  fc.record({
    k: fc.constant("state" as const),
    w: fc.nat(2),
    task: fc.nat(2),
    s: fc.nat(spellings.length - 1),
    observer: fc.nat(2),
    dt: fc.integer({ min: -30, max: 30 }),
  }),
  fc.record({ k: fc.constant("artifact" as const), w: fc.nat(2), task: fc.nat(2), m: fc.nat(2), name: fc.nat(1) }),
  fc.record({ k: fc.constant("notFound" as const), w: fc.nat(2), task: fc.nat(2) }),
);

/** One correlation's observations from a script of steps; ids and times are derived, never random. */
function correlation(corr: string, steps: readonly Step[]): Observation[] {
  const e = events(`${corr}-`);
  return steps.map((s, i) => {
    const at = 1_000 + i * 50;
    const w = workers[s.w] as string;
    const task = `${corr}-${w}-${"task" in s ? s.task : 0}`;
    switch (s.k) {
      case "dispatch":
        return e.dispatch(corr, w, {
          at,
          accepted: [[], ["text/plain"], ["text/*"], ["application/pdf"]][s.accepted] ?? [],
          messageId: `${corr}-m${i}`,
          cardFetchedAt: 1,
        });
      case "state":
        return e.state(corr, w, task, spellings[s.s] as string, {
          at: at + s.dt,
          observer: ["orchestrator", "proxy", "worker"][s.observer] ?? "o",
        });
      case "artifact":
        return e.artifact(corr, w, task, {
          at,
          mediaTypes: [media[s.m] as string],
          name: s.name === 0 ? "out" : null,
          artifactId: `${task}-art`,
        });
      case "notFound":
        return e.notFound(corr, w, task, { at });
    }
  });
}

const scripts = fc.array(fc.array(step, { minLength: 1, maxLength: 14 }), { minLength: 1, maxLength: 4 });
const logOf = (s: readonly (readonly Step[])[]): Observation[] => [
  ...meshPrefix(),
  ...s.flatMap((steps, i) => correlation(`c${i}`, steps)),
];
const byCorrelation = (ds: readonly Decision[], corr: string): string =>
  JSON.stringify(ds.filter((d) => d.correlationId === corr));
const policy = { trustedVendors: [] };

describe("rules as a pure function of the log", () => {
  it("gives byte-identical decisions for the same log", () => {
    fc.assert(
      fc.property(scripts, (s) => {
        const log = logOf(s);
        const copy = JSON.parse(JSON.stringify(log)) as Observation[];
        expect(JSON.stringify(replay(copy, defaultRuleSetV1, { policy }))).toBe(
          JSON.stringify(replay(log, defaultRuleSetV1, { policy })),
        );
      }),
      { numRuns: 150 },
    );
  });

  it("emits only schema-valid decisions", () => {
    fc.assert(
      fc.property(scripts, (s) => {
        expectValidDecisions(replay(logOf(s), restartFromScratchRuleSetV1, { policy: { trustedVendors: ["Acme"] } }));
      }),
      { numRuns: 60 },
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
          const at = original + 1 + (offset % (withDups.length - original));
          withDups.splice(at, 0, JSON.parse(JSON.stringify(log[i])) as Observation);
        }
        expect(JSON.stringify(replay(withDups, defaultRuleSetV1, { policy }))).toBe(
          JSON.stringify(replay(log, defaultRuleSetV1, { policy })),
        );
      }),
      { numRuns: 150 },
    );
  });

  it("decides each correlation the same however independent correlations interleave", () => {
    fc.assert(
      fc.property(scripts, fc.array(fc.nat(), { minLength: 60, maxLength: 60 }), (s, picks) => {
        const corrs = s.map((steps, i) => correlation(`c${i}`, steps));
        const sequential = [...meshPrefix(), ...corrs.flat()];
        const queues = corrs.map((c) => [...c]);
        const interleaved = meshPrefix();
        let p = 0;
        while (queues.some((q) => q.length > 0)) {
          const open = queues.filter((q) => q.length > 0);
          const q = open[(picks[p++ % picks.length] ?? 0) % open.length] as Observation[];
          interleaved.push(q.shift() as Observation);
        }
        const a = replay(sequential, defaultRuleSetV1, { policy });
        const b = replay(interleaved, defaultRuleSetV1, { policy });
        for (let i = 0; i < s.length; i++) expect(byCorrelation(b, `c${i}`)).toBe(byCorrelation(a, `c${i}`));
      }),
      { numRuns: 150 },
    );
  });

  it("never fails a task on TaskNotFound under verify", () => {
    fc.assert(
      fc.property(scripts, fc.boolean(), (s, variant) => {
        const decisions = replay(logOf(s), variant ? restartFromScratchRuleSetV1 : defaultRuleSetV1, {
          policy: { trustedVendors: ["V1", "V2"] },
        });
        expect(decisions.filter((d) => d.type === "TaskFailed")).toEqual([]);
      }),
      { numRuns: 200 },
    );
  });

  it("does fail lost tasks of a trusted durable worker (the property above can fail)", () => {
    const log = logOf([
      [
        { k: "dispatch", w: 0, accepted: 0 },
        { k: "state", w: 0, task: 0, s: 1, observer: 0, dt: 0 },
        { k: "notFound", w: 0, task: 0 },
      ],
    ]);
    expect(replay(log, defaultRuleSetV1, { policy: { trustedVendors: ["Acme"] } }).map((d) => d.type)).toContain(
      "TaskFailed",
    );
  });
});
