import { agentCard, events, lifecycle, skills } from "@a2a-ledger/core/testing/builders";
import { CapabilityTable, cardHash } from "@a2a-ledger/core";
import { createLogger } from "@a2a-ledger/logging";
import type { Observation } from "@a2a-ledger/schemas";
import { sampleStateRecord } from "@a2a-ledger/schemas/testing";
import { describe, expect, it } from "vitest";
import type { BatchItem } from "./batch.ts";
import { type CardWaitOutcome, firstProbeAwaitingCard, ProbeCardWait, probeCardWaitMs } from "./card-wait.ts";

const now = Date.UTC(2026, 11, 6, 12, 0, 0);
const card = agentCard({ org: "Org-w1", states: lifecycle, skills });
const hash = cardHash(card);
const items = (...observations: Observation[]): BatchItem[] =>
  observations.map((observation, i) => ({ offset: String(100 + i), observation }));
/** A table that knows w1's card (a snapshot of it), or nothing. */
function table(known: boolean): CapabilityTable {
  const t = new CapabilityTable();
  if (known) {
    const { type: _, ...snapshot } = sampleStateRecord("CapabilitySnapshot");
    t.apply({ ...snapshot, workerId: "w1", cardHash: hash, validFrom: now - 60_000 });
  }
  return t;
}

describe("a probe result waits for the card it names", () => {
  it("holds the batch at the first recent probe of a card neither the table nor the batch holds", () => {
    const e = events("cw-");
    const observations = [
      e.state("c1", "w2", "x", "working", { at: now - 2 }),
      e.probe("w1", hash, { at: now - 1, states: [], modes: [], corr: "orchestrator-probe" }),
      e.state("c1", "w2", "x", "completed", { at: now }),
    ];
    const batch = items(...observations);
    expect(firstProbeAwaitingCard(batch, table(false), now)).toBe(1);
    // The table knows the card: nothing waits.
    expect(firstProbeAwaitingCard(batch, table(true), now)).toBe(3);
    // The card is in the batch, even after the probe (waiting cannot help then): nothing waits.
    expect(firstProbeAwaitingCard(items(...observations, e.card("w1", card, { at: now })), table(false), now)).toBe(4);
    // A probe of long ago is history read again: it never waits.
    const old = items(e.probe("w1", hash, { at: now - 10 * 60_000, states: [], modes: [] }));
    expect(firstProbeAwaitingCard(old, table(false), now)).toBe(1);
  });

  it("lets the probe wait its bound, then folds it without its card, and waits again for the next one", () => {
    const e = events("cw-");
    const outcomes: CardWaitOutcome[] = [];
    const wait = new ProbeCardWait(createLogger("reconciler", "silent"), (o) => outcomes.push(o));
    const batch = items(
      e.state("c1", "w2", "x", "working", { at: now - 3 }),
      e.probe("w1", hash, { at: now - 2, states: [], modes: [] }),
      e.probe("w1", "another-card", { at: now - 1, states: [], modes: [] }),
    );
    const empty = table(false);
    expect(wait.take(0, batch, empty, now)).toBe(1);
    // Fetched again (it begins at the probe now): still waiting within the bound.
    expect(wait.take(0, batch.slice(1), empty, now + probeCardWaitMs - 1)).toBe(0);
    // Past the bound: that probe is taken, and the next probe of an unknown card begins its own wait.
    expect(wait.take(0, batch.slice(1), empty, now + probeCardWaitMs)).toBe(1);
    expect(outcomes).toEqual(["waiting", "expired", "waiting"]);
    // The table learns the first probe's card: that probe is taken at once; the other still waits for its own.
    expect(wait.take(1, batch.slice(1, 2), empty, now)).toBe(0);
    expect(wait.take(1, batch.slice(1), table(true), now + 1)).toBe(1);
    expect(outcomes).toEqual(["waiting", "expired", "waiting", "waiting", "waiting"]);
    // A partition whose batch holds no such probe takes everything.
    expect(wait.take(2, batch.slice(0, 1), empty, now)).toBe(1);
  });
});
