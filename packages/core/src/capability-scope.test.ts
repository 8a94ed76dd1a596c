import type { Decision, Observation } from "@a2a-ledger/schemas";
import { describe, expect, it } from "vitest";
import { agentCard, events } from "../test/builders.ts";
import { CapabilityTable } from "./capabilities.ts";
import { CapabilityScope } from "./capability-scope.ts";
import { cardHash } from "./card-hash.ts";
import { createDecider, type LedgerState } from "./decider.ts";
import { applyCapabilityUpdates, foldBatch } from "./fold.ts";
import { replay } from "./replay.ts";
import { defaultRuleSetV2 } from "./rules/rule-sets.ts";

const durableCard = agentCard({
  org: "Acme",
  states: ["submitted", "working", "input-required", "completed"],
  taskStore: "durable",
});
const gammaCard = agentCard({
  org: "Gamma",
  states: ["submitted", "working", "input-required", "completed"],
  taskStore: "durable",
});
const interrupted = [
  "TASK_STATE_SUBMITTED",
  "TASK_STATE_WORKING",
  "TASK_STATE_INPUT_REQUIRED",
  "TASK_STATE_COMPLETED",
] as const;

/** Before t=5,000: cards, probes (one parks a canary), an early task; from 5,000 on: the canary is lost, a task is lost. */
function log(): Observation[] {
  const e = events("w-");
  return [
    e.card("w-acme", durableCard, { at: 1_000 }),
    e.card("w-gamma", gammaCard, { at: 1_001 }),
    e.probe("w-acme", cardHash(durableCard), {
      at: 2_000,
      states: [...interrupted],
      modes: ["text/plain"],
      durable: null,
      canaries: [{ serverTaskId: "canary-1", state: "input-required" }],
    }),
    e.probe("w-gamma", cardHash(gammaCard), {
      at: 2_001,
      states: [...interrupted],
      modes: ["text/plain"],
      durable: true,
    }),
    e.dispatch("early", "w-acme", { at: 3_000 }),
    e.state("early", "w-acme", "early-t", "input-required", { at: 3_010 }),
    e.notFound("early", "w-acme", "early-t", { at: 3_020 }),
    e.notFound("probe-w-acme", "w-acme", "canary-1", { at: 5_000 }),
    e.dispatch("late", "w-gamma", { at: 6_000 }),
    e.state("late", "w-gamma", "late-t", "input-required", { at: 6_010 }),
    e.notFound("late", "w-gamma", "late-t", { at: 6_020 }),
  ];
}

/** Folds what a replay of [since, ∞) folds: in-window observations, and the ones before it that shape capabilities. */
function windowed(observations: readonly Observation[], since: number): Decision[] {
  const scope = new CapabilityScope();
  const folded = observations.filter((o) => scope.shapesCapabilities(o) || o.occurredAt >= since);
  const decider = createDecider(defaultRuleSetV2);
  const table = new CapabilityTable();
  const states = new Map<string, LedgerState>();
  const decisions: Decision[] = [];
  for (const chunk of [folded.slice(0, 3), folded.slice(3)]) {
    const out = foldBatch(
      { decider, policy: { trustedVendors: [] }, capabilities: table, stateOf: (id) => states.get(id) },
      chunk,
    );
    applyCapabilityUpdates(table, out);
    for (const [id, s] of out.states) states.set(id, s);
    decisions.push(...out.decisions);
  }
  return decisions.filter((d) => d.decidedAt >= since);
}

describe("CapabilityScope", () => {
  it("shapes capabilities with cards, probes and the TaskNotFound of a probe correlation only", () => {
    const scope = new CapabilityScope();
    expect(log().map((o) => `${o.type}:${scope.shapesCapabilities(o)}`)).toEqual([
      "AgentCardObserved:true",
      "AgentCardObserved:true",
      "ProbeCompleted:true",
      "ProbeCompleted:true",
      "TaskDispatched:false",
      "TaskStateObserved:false",
      "TaskNotFoundObserved:false",
      "TaskNotFoundObserved:true",
      "TaskDispatched:false",
      "TaskStateObserved:false",
      "TaskNotFoundObserved:false",
    ]);
  });

  it("lets a windowed fold decide in the window what the whole log decides there, a canary lost before it included", () => {
    const whole = replay(log(), defaultRuleSetV2).filter((d) => d.decidedAt >= 5_500);
    expect(whole.map((d) => `${d.correlationId}:${d.type}`)).toEqual([
      "late:TaskIndeterminate",
      "late:ReconciliationBlocked",
    ]);
    expect(windowed(log(), 5_500)).toEqual(whole);
    // Without the canary's loss w-acme would still verify input-required and take the task over.
    const withoutCanary = replay(
      log().filter((o) => o.correlationId !== "probe-w-acme" || o.type !== "TaskNotFoundObserved"),
      defaultRuleSetV2,
    );
    expect(withoutCanary.filter((d) => d.correlationId === "late").map((d) => d.type)).toContain("RedispatchCommanded");
  });
});

describe("what shapes the capability table", () => {
  it("takes a parked canary's re-observation in its probe's correlation (default/4's earn-back), not a task's", () => {
    const e = events("s-");
    const scope = new CapabilityScope();
    const shapes = (o: Observation) => scope.shapesCapabilities(o);
    expect(shapes(e.card("w1", durableCard, { at: 1 }))).toBe(true);
    expect(shapes(e.state("probe-w1", "w1", "canary-1", "input-required", { at: 2 }))).toBe(true);
    expect(shapes(e.state("task", "w1", "t1", "input-required", { at: 3 }))).toBe(false);
    expect(shapes(e.notFound("task", "w1", "t1", { at: 4 }))).toBe(false);
  });
});
