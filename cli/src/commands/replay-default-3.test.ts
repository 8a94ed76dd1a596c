/**
 * `replay --baseline default/2 --candidate default/3` over the generated log (plus a conformance
 * probe asking for a made-up task id): the CLI names exactly the correlations whose decisions the
 * core's two rule sets tell apart, and each change is one of default/3's (packages/core/README.md).
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { defaultRuleSetV2, defaultRuleSetV3, replay } from "@a2a-ledger/core";
import { generateLog } from "@a2a-ledger/core/testing";
import type { Decision } from "@a2a-ledger/schemas";
import { describe, expect, it } from "vitest";
import { parseLines } from "../../test/observations.ts";
import { run } from "../../test/run.ts";

const generated = generateLog(20_000);
const lastAt = Math.max(...parseLines(generated.slice(-50)).map((o) => o.occurredAt));
// A conformance run asks w-delta for a task id nobody ever saw, in a correlation of the log.
const probeLine = JSON.stringify({
  type: "TaskNotFoundObserved",
  correlationId: "task-196",
  observer: "tck",
  workerId: "w-delta",
  serverTaskId: "tck-made-up-id",
  method: "GetTask",
  errorCode: "-32001",
  eventId: "ev-tck-1",
  occurredAt: lastAt + 1,
});
const lines = [...generated, probeLine];
const observations = parseLines(lines);
const input = join(mkdtempSync(join(tmpdir(), "a2a-ledger-default-3-")), "log.ndjson");
writeFileSync(input, `${lines.join("\n")}\n`);

/** Correlations whose decisions differ between the two runs, the rulesVersion stamp aside. */
function changedCorrelations(a: readonly Decision[], b: readonly Decision[]): string[] {
  const byCorrelation = (ds: readonly Decision[]) => {
    const m = new Map<string, string[]>();
    for (const d of ds) {
      const { rulesVersion: _, ...rest } = d;
      const list = m.get(d.correlationId) ?? [];
      list.push(JSON.stringify(rest));
      m.set(d.correlationId, list);
    }
    return m;
  };
  const left = byCorrelation(a);
  const right = byCorrelation(b);
  const ids = [...new Set([...left.keys(), ...right.keys()])];
  return ids.filter((id) => JSON.stringify(left.get(id) ?? []) !== JSON.stringify(right.get(id) ?? [])).sort();
}

interface CorrelationLine {
  correlationId: string;
  removed: Decision[];
  added: Decision[];
}

const kindOf = (d: Decision) => (d.type === "ContractViolation" ? d.kind : d.type);

describe("replay --candidate default/3 over the generated log", () => {
  it("names the correlations default/3 changes, and each change is one of default/3's", async () => {
    const expected = changedCorrelations(
      replay(observations, defaultRuleSetV2),
      replay(observations, defaultRuleSetV3),
    );
    expect(expected.length).toBeGreaterThan(0);

    const { code, stdout } = await run([
      "replay",
      "--input",
      input,
      "--baseline",
      "default/2",
      "--candidate",
      "default/3",
      "--json",
    ]);
    expect(code).toBe(0);
    const out = stdout
      .split("\n")
      .filter((l) => l !== "")
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    const summary = out.pop() as {
      summary: { correlationsChanged: number; baseline: { rulesVersion: string }; candidate: { rulesVersion: string } };
    };
    const changed = out as unknown as CorrelationLine[];
    expect(summary.summary).toMatchObject({
      correlationsChanged: expected.length,
      baseline: { rulesVersion: "default/2" },
      candidate: { rulesVersion: "default/3" },
    });
    expect(changed.map((c) => c.correlationId).sort()).toEqual(expected);

    // The made-up id: the worker's UNSEEN_TASK_NOT_FOUND becomes the client's CLIENT_UNKNOWN_TASK.
    const probe = changed.find((c) => c.correlationId === "task-196");
    expect(probe?.removed.map(kindOf)).toEqual(["UNSEEN_TASK_NOT_FOUND"]);
    expect(probe?.added.map(kindOf)).toEqual(["CLIENT_UNKNOWN_TASK"]);

    // A task lost in input-required revokes the worker's interrupted states: once, with the durable claim broken.
    const added = changed.flatMap((c) => c.added);
    expect(added.filter((d) => d.type === "CapabilitiesVerified")).toMatchObject([{ durable: false }]);
    expect(added.filter((d) => d.type === "ContractViolation" && d.kind === "TASK_STORE_NOT_DURABLE")).toHaveLength(1);
    // ...so later losses in input-required are no longer resumed on it: a re-dispatch becomes a block.
    const rerouted = changed.filter(
      (c) =>
        c.removed.some((d) => d.type === "RedispatchCommanded") &&
        c.added.some((d) => d.type === "ReconciliationBlocked"),
    );
    expect(rerouted.length).toBeGreaterThan(0);
    for (const c of changed) {
      for (const d of [...c.removed, ...c.added])
        expect([
          "UNSEEN_TASK_NOT_FOUND",
          "CLIENT_UNKNOWN_TASK",
          "CapabilitiesVerified",
          "TASK_STORE_NOT_DURABLE",
          "STATE_NOT_VERIFIED",
          "TaskIndeterminate",
          "RedispatchCommanded",
          "ReconciliationBlocked",
          "TaskReconciled",
        ]).toContain(kindOf(d));
    }
  });

  it("says how many correlations differ in the text report, and fails on the difference when asked", async () => {
    const { code, stdout } = await run([
      "replay",
      "--input",
      input,
      "--baseline",
      "default/2",
      "--candidate",
      "default/3",
      "--fail-on-diff",
    ]);
    expect(code).toBe(1);
    expect(stdout).toMatch(/baseline default\/2 vs candidate default\/3: \d+ correlation\(s\) differ/);
  });
});
