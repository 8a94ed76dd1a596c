/** The load's interleaving (no cluster): every step once, each correlation's steps in order, 30 in flight at most. */
import type { ObservationInput } from "@a2a-ledger/ingest-client";
import { describe, expect, it } from "vitest";
import { correlationScript, interleaved } from "./load.ts";

describe("interleaved", () => {
  it("yields every step of every script once, each script in its order, with at most 30 correlations open", () => {
    const scripts = Array.from({ length: 100 }, (_, i) => correlationScript("run", i, i % 3 === 0, () => 0));
    const stream = [...interleaved(scripts)];
    expect(stream.map((o) => o.eventId).sort()).toEqual(
      scripts
        .flat()
        .map((o) => o.eventId)
        .sort(),
    );
    const byCorrelation = new Map<string, string[]>();
    const open = new Set<string>();
    const remaining = new Map(scripts.map((s) => [s[0]?.correlationId as string, s.length]));
    let widest = 0;
    for (const o of stream) {
      byCorrelation.set(o.correlationId, [...(byCorrelation.get(o.correlationId) ?? []), o.eventId]);
      open.add(o.correlationId);
      widest = Math.max(widest, open.size);
      const left = (remaining.get(o.correlationId) as number) - 1;
      remaining.set(o.correlationId, left);
      if (left === 0) open.delete(o.correlationId);
    }
    for (const s of scripts) expect(byCorrelation.get(s[0]?.correlationId as string)).toEqual(s.map((o) => o.eventId));
    expect(widest).toBeLessThanOrEqual(30);
    expect(widest).toBeGreaterThan(20);
    // Not the scripts one after the other.
    expect(stream.slice(0, 5).map((o) => o.correlationId)).not.toEqual(Array(5).fill("run-task-0"));
  });

  it("takes an endless source lazily", () => {
    function* endless(): Generator<ObservationInput[]> {
      for (let i = 0; ; i++) yield correlationScript("run", i, false, () => 0);
    }
    const first = [];
    for (const o of interleaved(endless())) {
      first.push(o);
      if (first.length === 1_000) break;
    }
    expect(first).toHaveLength(1_000);
  });
});
