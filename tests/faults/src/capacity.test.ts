/** The pipeline benchmark's judgement on steps made in the test (no cluster). */
import { describe, expect, it } from "vitest";
import { capacity, coresUsed, judgeStep, perCore, plan, type Step } from "./capacity.ts";

const step = (offered: number, over: Partial<Step> = {}): Step => ({
  offered,
  seconds: 30,
  acknowledged: offered * 30,
  markerMs: Array.from({ length: 30 }, (_, i) => 200 + i * 10),
  markersMissing: 0,
  drainSeconds: 2,
  cpu: { ingest: 6, reconciler: 12, projector: 9, dispatcher: 1, proxies: 1, brokers: 10, load: 3 },
  maxReconcilerLag: 100,
  ...over,
});

describe("judgeStep", () => {
  it("holds a rate acknowledged in full whose markers were all decided well within 5 s", () => {
    const v = judgeStep(step(1_000));
    expect(v).toMatchObject({ held: true, rate: 1_000, p50Ms: 340, p99Ms: 490, why: [] });
  });

  it("does not hold a rate whose p99 reached 5 s, whose markers were not all decided, or that ingest did not take", () => {
    const slow = step(1_000, { markerMs: [...Array.from({ length: 99 }, () => 300), 5_000] });
    expect(judgeStep(slow).held).toBe(true); // one marker of 100 at 5 s is the p100, not the p99
    const slower = step(1_000, { markerMs: [...Array.from({ length: 98 }, () => 300), 5_000, 5_100] });
    expect(judgeStep(slower)).toMatchObject({ held: false, why: ["p99 5000 ms ≥ 5000 ms"] });
    expect(judgeStep(step(1_000, { markersMissing: 1 })).why).toEqual([
      "1 markers never decided",
      "p99 ∞ ms ≥ 5000 ms",
    ]);
    expect(judgeStep(step(1_000, { acknowledged: 900 * 30 })).why).toEqual(["acknowledged 900/s < 95 % of 1000/s"]);
    expect(judgeStep(step(1_000, { markerMs: [] })).held).toBe(false);
  });
});

describe("capacity", () => {
  it("is the highest rate held before the first that was not, even when a later one happened to pass", () => {
    const late = step(4_000);
    const steps = [step(500), step(1_000), step(2_000, { markersMissing: 3 }), late];
    expect(capacity(steps)?.offered).toBe(1_000);
    expect(capacity([step(500, { acknowledged: 0 })])).toBeUndefined();
  });
});

describe("perCore and plan", () => {
  it("divides the step's observations by the CPU a stage spent on them, the drain included", () => {
    // 30,000 observations for 12 CPU s: 2,500 per CPU second; 12 CPU s over 30 s and a 2 s drain: 0.375 of a core.
    expect(perCore(step(1_000), "reconciler")).toBe(2_500);
    expect(coresUsed(step(1_000), "reconciler")).toBe(0.375);
    expect(perCore(step(1_000, { cpu: { ...step(1).cpu, projector: 0 } }), "projector")).toBeNaN();
  });

  it("gives each instance a core at 60 %, and partitions room for twice the reconcilers", () => {
    const figures = { ingest: 5_000, reconciler: 2_500, projector: 3_000 };
    expect(plan(1_000, figures)).toEqual({ rate: 1_000, ingest: 1, reconcilers: 1, projectors: 1, partitions: 6 });
    expect(plan(10_000, figures)).toEqual({ rate: 10_000, ingest: 4, reconcilers: 7, projectors: 6, partitions: 24 });
    expect(plan(100_000, figures)).toEqual({
      rate: 100_000,
      ingest: 34,
      reconcilers: 67,
      projectors: 56,
      partitions: 192,
    });
  });
});
