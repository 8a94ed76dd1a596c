/** One partition's ledger: states, blocked set, re-check marks and retention behind one set of methods. */
import type { Observation } from "@a2a-ledger/schemas";
import { describe, expect, it } from "vitest";
import { events } from "../test/builders.ts";
import { BatchOrderFold } from "./batch-order.ts";
import { CapabilityTable } from "./capabilities.ts";
import { createDecider, type Decider } from "./decider.ts";
import { PartitionLedger } from "./partition-ledger.ts";
import { replay } from "./replay.ts";
import { defaultRuleSetV2 } from "./rules/rule-sets.ts";

const decider = createDecider(defaultRuleSetV2);
const judged = { policy: { trustedVendors: [] }, capabilities: new CapabilityTable() };

/** A task lost on the only worker there is: indeterminate, then blocked (no worker to take it). */
function lostStory(corr: string, at = 10): Observation[] {
  const e = events(`${corr}-`);
  return [
    e.dispatch(corr, "w1", { at }),
    e.state(corr, "w1", "s1", "working", { at: at + 1 }),
    e.notFound(corr, "w1", "s1", { at: at + 2 }),
  ];
}

/** The rules throw on the observations with these event ids (a rule bug, or a hostile record). */
function throwingOn(ids: ReadonlySet<string>): Decider {
  return {
    ...decider,
    step: (ctx, state, observation) => {
      if (ids.has(observation.eventId)) throw new Error(`rejects ${observation.eventId}`);
      return decider.step(ctx, state, observation);
    },
  };
}

describe("PartitionLedger", () => {
  it("knows its blocked correlations and when they wait for a look at a newer table", () => {
    const ledger = new PartitionLedger(decider);
    ledger.fold(judged, [...lostStory("a"), ...lostStory("b")]);
    expect(ledger.blockedCount).toBe(2);
    expect(ledger.recheckDue(1)).toBe(true);
    ledger.markRechecked(1);
    expect(ledger.recheckDue(1)).toBe(false);
    expect(ledger.recheckDue(2)).toBe(true);
    // A ledger made from restored states finds the same blocked set in them.
    const restored = new PartitionLedger(decider, { states: ledger.entries() });
    expect(restored.blockedCount).toBe(2);
    expect(restored.recheckDue(1)).toBe(true);
  });

  it("changes nothing for a pending fold until it is committed, and refuses to fold after a dropped one", () => {
    const ledger = new PartitionLedger(decider, { retention: { finishedMs: 1_000, staleMs: 5_000 } });
    const pending = ledger.foldPending(judged, lostStory("a"));
    expect(pending.decisions.map((d) => d.type)).toEqual(["TaskIndeterminate", "ReconciliationBlocked"]);
    expect([ledger.size, ledger.blockedCount]).toEqual([0, 0]);
    expect(() => ledger.fold(judged, lostStory("b"))).toThrow(/pending/);
    ledger.commit(pending, 7);
    expect([ledger.size, ledger.blockedCount, ledger.recheckDue(7)]).toEqual([1, 1, false]);
    expect(ledger.streamTime).toBe(12);

    const dropped = ledger.foldPending(judged, lostStory("c", 20));
    expect(() => ledger.commit({ ...dropped }, 8)).toThrow(/not this ledger's pending/);
    ledger.discard();
    expect(() => ledger.fold(judged, lostStory("d", 30))).toThrow(/restore the partition/);
  });

  it("keeps no state for a correlation whose every observation was rejected, live and in replay alike", () => {
    const story = lostStory("a");
    const rejecting = throwingOn(new Set(story.map((o) => o.eventId)));
    const live = new PartitionLedger(rejecting);
    const folded = live.foldPending(judged, story);
    expect(folded.rejected).toHaveLength(3);
    expect(folded.states.size).toBe(0);
    live.commit(folded);
    expect(live.size).toBe(0);

    const replayed = new BatchOrderFold(rejecting, judged.policy);
    replayed.fold(story, {
      partition: 0,
      fromOffset: 0,
      toOffset: 2,
      recheck: false,
      capabilityReads: [],
      policyVersions: 0,
    });
    expect(replayed.states.size).toBe(0);
  });

  it("keeps the state a rejected observation leaves when the correlation's other observations were folded", () => {
    const story = lostStory("a");
    const last = story[2] as Observation;
    const ledger = new PartitionLedger(throwingOn(new Set([last.eventId])));
    const folded = ledger.fold(judged, story);
    expect(folded.rejected.map((r) => r.index)).toEqual([2]);
    expect(ledger.size).toBe(1);
    expect(folded.decisions).toEqual([]);
  });

  it("decides a log folded batch by batch as the replay of the whole log does", () => {
    const log = [...lostStory("a", 10), ...lostStory("b", 20), ...lostStory("c", 30)];
    const ledger = new PartitionLedger(decider);
    const decisions = [log.slice(0, 4), log.slice(4, 7), log.slice(7)].flatMap((batch) => {
      const pending = ledger.foldPending(judged, batch);
      ledger.commit(pending, 1);
      return pending.decisions;
    });
    expect(decisions).toEqual(replay(log, defaultRuleSetV2));
  });

  it("evicts by the retention it is given, and indexes anew when the policy changes", () => {
    const ledger = new PartitionLedger(decider, { retention: { finishedMs: 5, staleMs: 5 } });
    ledger.fold(judged, lostStory("a", 10));
    expect(ledger.size).toBe(1);
    ledger.retainBy({ finishedMs: 1_000, staleMs: 1_000 });
    ledger.fold(judged, lostStory("b", 100));
    expect(ledger.size).toBe(2);
    ledger.retainBy({ finishedMs: 5, staleMs: 5 });
    const out = ledger.fold(judged, lostStory("c", 200));
    expect([...out.expired].sort()).toEqual(["a", "b"]);
    expect(out.decisions.filter((d) => d.type === "CorrelationExpired").map((d) => d.correlationId)).toEqual([
      "a",
      "b",
    ]);
    expect(ledger.size).toBe(1);
  });
});
