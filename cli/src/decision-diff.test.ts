import { replay, restartFromScratchRuleSet, defaultRuleSetV2 } from "@a2a-ledger/core";
import type { Decision } from "@a2a-ledger/schemas";
import { describe, expect, it } from "vitest";
import { exampleObservations } from "../test/observations.ts";
import { countByKind, diffDecisions } from "./decision-diff.ts";

const decisions = replay(exampleObservations(), defaultRuleSetV2);
const task = (ds: readonly Decision[]) => ds.filter((d) => d.correlationId === "task-42");

describe("diffDecisions", () => {
  it("finds nothing between equal streams, whatever rulesVersion they carry or the key order of their records", () => {
    const restamped = decisions.map((d) => {
      const reordered = Object.fromEntries(Object.entries({ ...d, rulesVersion: "other/9" }).reverse());
      return reordered as unknown as Decision;
    });
    expect(diffDecisions(decisions, restamped)).toEqual([]);
  });

  it("pairs decisions of one decisionId with other content as changed, naming the fields", () => {
    const changed = decisions.map((d) => (d.type === "RedispatchCommanded" ? { ...d, targetWorkerId: "w-beta" } : d));
    const [diff] = diffDecisions(decisions, changed);
    expect(diff).toMatchObject({
      correlationId: "task-42",
      removed: [],
      added: [],
      changed: [{ decisionId: expect.stringContaining(":RedispatchCommanded:"), fields: ["targetWorkerId"] }],
    });
    expect(diff?.first).toMatchObject({
      index: 1,
      baseline: { targetWorkerId: "w-gamma" },
      candidate: { targetWorkerId: "w-beta" },
    });
  });

  it("tells removed and added decisions apart, and where the sequences first part", () => {
    const [, ...rest] = task(decisions);
    const extra = { ...(task(decisions)[0] as Decision), decisionId: "x:TaskIndeterminate:0" };
    const [diff] = diffDecisions(decisions, [
      ...decisions.filter((d) => d.correlationId !== "task-42"),
      ...rest,
      extra,
    ]);
    expect(diff?.removed.map((d) => d.decisionId)).toEqual([task(decisions)[0]?.decisionId]);
    expect(diff?.added.map((d) => d.decisionId)).toEqual(["x:TaskIndeterminate:0"]);
    expect(diff?.first.index).toBe(0);
  });

  it("reports a correlation whose decisions only changed order, with no decision removed or added", () => {
    const swapped = [...decisions];
    const i = swapped.findIndex((d) => d.type === "RedispatchCommanded");
    [swapped[i], swapped[i + 1]] = [swapped[i + 1] as Decision, swapped[i] as Decision];
    const [diff] = diffDecisions(decisions, swapped);
    expect(diff).toMatchObject({ correlationId: "task-42", removed: [], added: [], changed: [], first: { index: 1 } });
  });

  it("matches the decisions of a large correlation by keys, key order aside", () => {
    const many = Array.from(
      { length: 120 },
      (_, i) =>
        ({
          ...(task(decisions)[1] as Decision),
          decisionId: `d${i}`,
          acceptedOutputModes: [`text/x-${i}`],
        }) as Decision,
    );
    const reverse = (v: unknown): unknown =>
      Array.isArray(v)
        ? v.map(reverse)
        : v !== null && typeof v === "object"
          ? Object.fromEntries(
              Object.entries(v)
                .reverse()
                .map(([k, x]) => [k, reverse(x)]),
            )
          : v;
    const reordered = many.map((d) => reverse(d) as Decision);
    expect(diffDecisions(many, reordered)).toEqual([]);
    const [diff] = diffDecisions(many, [
      ...reordered.slice(0, 60),
      ...reordered.slice(61),
      { ...(reordered[60] as Decision), decisionId: "new" },
    ]);
    expect(diff).toMatchObject({
      removed: [{ decisionId: "d60" }],
      added: [{ decisionId: "new" }],
      changed: [],
      first: { index: 60 },
    });
  });

  it("marks where a stream ends early with null", () => {
    const shorter = decisions.slice(0, -1);
    const [diff] = diffDecisions(decisions, shorter);
    expect(diff?.first.candidate).toBeNull();
    expect(diff?.removed).toHaveLength(1);
  });

  it("counts decisions per kind, violations by their kind", () => {
    expect(countByKind(decisions)).toMatchObject({
      ProbeRequested: 3,
      "ContractViolation:DIVERGENT_ARTIFACTS": 1,
      RedispatchCommanded: 1,
    });
    expect(diffDecisions(decisions, replay(exampleObservations(), restartFromScratchRuleSet))).toEqual([]);
  });
});
