import { describe, expect, it } from "vitest";
import type { Logger } from "@a2a-ledger/logging";
import {
  admissible,
  CorrelationBudget,
  defaultMaxCorrelations,
  heapBytesPerCorrelation,
} from "./correlation-budget.ts";

/** A logger whose warnings (40) and errors (50) are kept. */
function recordingLog() {
  const lines: { level: number; msg: string; live?: number }[] = [];
  const at = (level: number) => (fields: { live?: number }, msg: string) =>
    void lines.push({ level, msg, live: fields.live });
  const log = { warn: at(40), error: at(50) } as unknown as Logger;
  return { log, lines };
}

describe("admissible: the longest prefix of a batch whose new correlations fit", () => {
  const held = new Set(["a", "b"]);
  it("takes everything when the new correlations fit, counting each once", () => {
    expect(admissible(["a", "c", "c", "b", "d"], (id) => held.has(id), 2)).toEqual({ taken: 5, added: 2 });
  });
  it("stops at the first observation of a correlation beyond the room, even if later ones are held", () => {
    expect(admissible(["c", "a", "d", "a", "c"], (id) => held.has(id), 1)).toEqual({ taken: 2, added: 1 });
  });
  it("takes observations of held correlations with no room at all, and no new one", () => {
    expect(admissible(["a", "b", "x", "a"], (id) => held.has(id), 0)).toEqual({ taken: 2, added: 0 });
  });
  it("counts no state for a record without a key (it is dead-lettered)", () => {
    expect(admissible([null, null, "a"], (id) => held.has(id), 0)).toEqual({ taken: 3, added: 0 });
  });
});

describe("the correlation budget", () => {
  it("reserves what batches in progress admitted, so concurrent partitions cannot both take the last room", () => {
    const { log } = recordingLog();
    const budget = new CorrelationBudget(3, () => 1, log);
    const first = budget.admit(0, ["x", "y"], () => false);
    const second = budget.admit(1, ["z", "w"], () => false);
    expect([first.taken, second.taken]).toEqual([2, 0]);
    expect(budget.waiting.has(1)).toBe(true);
    budget.admit(1, [], () => false).release();
    expect(budget.waiting.has(1), "a re-examination (no observation) leaves the partition waiting").toBe(true);
    first.release();
    first.release();
    expect(budget.used()).toBe(1);
    expect(budget.admit(1, ["z", "w"], () => false).taken).toBe(2);
    expect(budget.waiting.has(1)).toBe(false);
  });

  it("warns at 80 % and errors at 100 %, each at most once a minute", () => {
    const { log, lines } = recordingLog();
    let live = 0;
    let now = 0;
    const budget = new CorrelationBudget(
      10,
      () => live,
      log,
      () => now,
    );
    budget.report();
    expect(lines).toEqual([]);
    live = 8;
    budget.report();
    budget.report();
    expect(lines.map((l) => [l.level, l.msg, l.live])).toEqual([[40, "correlation budget over 80% used", 8]]);
    live = 10;
    budget.admit(2, ["new"], () => false);
    now += 30_000;
    budget.admit(2, ["new"], () => false);
    expect(lines.slice(1).map((l) => l.level)).toEqual([50]);
    expect(lines[1]?.msg).toMatch(/^correlation budget reached: observations of new correlations wait/);
    now += 30_000;
    budget.report();
    expect(lines.slice(1).map((l) => l.level)).toEqual([50, 50]);
  });

  it("defaults to half the heap limit at 8 KiB per correlation, never below 1000", () => {
    expect(heapBytesPerCorrelation).toBe(8_192);
    expect(defaultMaxCorrelations(4 * 1024 ** 3)).toBe(262_144);
    expect(defaultMaxCorrelations(1024 ** 2)).toBe(1_000);
    expect(defaultMaxCorrelations()).toBeGreaterThan(1_000);
  });
});
