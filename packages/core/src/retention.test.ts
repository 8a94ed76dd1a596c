import type { Decision, Observation } from "@a2a-ledger/schemas";
import { describe, expect, it } from "vitest";
import { events } from "../test/builders.ts";
import { generateLog } from "../test/generated-log.ts";
import { BatchOrderFold } from "./batch-order.ts";
import { CapabilityTable } from "./capabilities.ts";
import { createDecider, type LedgerState } from "./decider.ts";
import { foldBatch } from "./fold.ts";
import { parseObservation } from "./ingest-json.ts";
import { replayLog } from "./replay.ts";
import { type RetentionPolicy, StreamRetention } from "./retention.ts";
import { defaultRuleSetV2 } from "./rules/rule-sets.ts";

const policy = { trustedVendors: [] };
const retention: RetentionPolicy = { finishedMs: 1_000, staleMs: 5_000 };
const decider = createDecider(defaultRuleSetV2);

/** Folds `log` batch after batch over one carried state map, as the reconciler does on one partition. */
function foldInBatches(log: readonly Observation[], size: number, policyOf = retention) {
  const states = new Map<string, LedgerState>();
  const stream = new StreamRetention(policyOf);
  const table = new CapabilityTable();
  const decisions: Decision[] = [];
  for (let i = 0; i < log.length; i += size) {
    const out = foldBatch(
      { decider, policy, capabilities: table, stateOf: (id) => states.get(id), retention: stream },
      log.slice(i, i + size),
    );
    for (const [id, s] of out.states) states.set(id, s);
    for (const id of out.expired) states.delete(id);
    for (const c of out.cards) table.rememberCard(c);
    for (const s of out.capabilityUpdates) table.apply(s);
    decisions.push(...out.decisions);
  }
  return { decisions, states };
}

describe("retention: a correlation leaves when the stream time passes its horizon", () => {
  it("given a finished task, when another correlation's event carries the stream time past finishedMs, then it leaves silently", () => {
    const e = events();
    const log = [
      e.dispatch("done", "w1", { at: 1_000 }),
      e.state("done", "w1", "t1", "completed", { at: 1_100 }),
      e.dispatch("other", "w1", { at: 2_000 }),
      // 2_101 > 1_100 + 1_000: "done" has left before this observation is folded.
      e.state("other", "w1", "t2", "working", { at: 2_101 }),
    ];
    const result = replayLog(log, defaultRuleSetV2, { policy, retention });
    expect([...result.correlations.keys()]).toEqual(["other"]);
    expect(result.decisions.filter((d) => d.type === "CorrelationExpired")).toEqual([]);
  });

  it("keeps a finished task up to its horizon (a stream time equal to it is not past it)", () => {
    const e = events();
    const log = [
      e.dispatch("done", "w1", { at: 1_000 }),
      e.state("done", "w1", "t1", "completed", { at: 1_100 }),
      e.dispatch("other", "w1", { at: 2_100 }),
    ];
    expect([...replayLog(log, defaultRuleSetV2, { policy, retention }).correlations.keys()].sort()).toEqual([
      "done",
      "other",
    ]);
  });

  it("given a task without an outcome, when the stream time passes staleMs, then it leaves with CorrelationExpired", () => {
    const e = events();
    const working = e.state("stale", "w1", "t1", "working", { at: 1_100 });
    const log = [e.dispatch("stale", "w1", { at: 1_000 }), working, e.dispatch("later", "w2", { at: 6_200 })];
    const result = replayLog(log, defaultRuleSetV2, { policy, retention });
    const expired = result.decisions.filter((d) => d.type === "CorrelationExpired");
    expect(expired).toEqual([
      {
        type: "CorrelationExpired",
        decisionId: `${working.eventId}:CorrelationExpired:6100`,
        correlationId: "stale",
        causeEventIds: [working.eventId],
        rulesVersion: "default/2",
        decidedAt: 6_100,
        workerId: "w1",
        lastStatus: "open",
        lastEventAt: 1_100,
        idleMs: 5_000,
        reason: "no event for 5 s while open: the reconciler stopped watching it",
        policyVersion: null,
      },
    ]);
    expect(result.correlations.has("stale")).toBe(false);
  });

  it("a card fetch's own correlation (nothing dispatched) leaves silently", () => {
    const e = events();
    const log = [
      e.card("w1", { name: "w1", skills: [] }, { at: 1_000, corr: "card:w1" }),
      e.dispatch("later", "w2", { at: 9_000 }),
    ];
    const result = replayLog(log, defaultRuleSetV2, { policy, retention });
    expect(result.correlations.has("card:w1")).toBe(false);
    expect(result.decisions.some((d) => d.type === "CorrelationExpired")).toBe(false);
  });

  it("a late observation for a correlation that left opens it anew: it is judged as never seen", () => {
    const e = events();
    const dispatched = e.dispatch("c", "w1", { at: 1_000 });
    const log = [
      dispatched,
      e.state("c", "w1", "t1", "completed", { at: 1_100 }),
      e.dispatch("other", "w1", { at: 3_000 }),
      // The same dispatch again (a redelivery): it left with the correlation's memory, so it counts.
      { ...dispatched, occurredAt: 3_001 },
    ];
    const kept = replayLog(log, defaultRuleSetV2, { policy });
    const evicted = replayLog(log, defaultRuleSetV2, { policy, retention });
    const fresh = replayLog([{ ...dispatched, occurredAt: 3_001 }], defaultRuleSetV2, { policy });
    expect(decider.serialize(evicted.correlations.get("c") as LedgerState)).toEqual(
      decider.serialize(fresh.correlations.get("c") as LedgerState),
    );
    expect(decider.serialize(kept.correlations.get("c") as LedgerState)).not.toEqual(
      decider.serialize(fresh.correlations.get("c") as LedgerState),
    );
  });

  it("a copy of an event of a correlation that left is too late to fold: it decides nothing again, and is listed as late", () => {
    const e = events();
    const dispatched = e.dispatch("gone", "w1", { at: 1_000 });
    const lost = e.notFound("gone", "w1", "t1", { at: 1_100 });
    const first = [dispatched, e.state("gone", "w1", "t1", "input-required", { at: 1_050 }), lost];
    // "gone" goes stale (5 s) with CorrelationExpired; then copies of its events arrive, as sent again
    // by a producer's retry: the same eventIds and occurredAt.
    const log = [...first, e.dispatch("other", "w2", { at: 7_000 }), lost, dispatched];
    const result = replayLog(log, defaultRuleSetV2, { policy, retention });
    const ids = result.decisions.map((d) => d.decisionId);
    expect(new Set(ids).size, "no decision id twice").toBe(ids.length);
    expect(result.decisions.filter((d) => d.correlationId === "gone").map((d) => d.type)).toEqual(
      replayLog([...first, e.dispatch("other", "w2", { at: 7_000 })], defaultRuleSetV2, { policy, retention })
        .decisions.filter((d) => d.correlationId === "gone")
        .map((d) => d.type),
    );
    expect(result.decisions.filter((d) => d.type === "CorrelationExpired")).toHaveLength(1);
    expect(result.late.map((o) => o.eventId)).toEqual([lost.eventId, dispatched.eventId]);
    expect([...result.correlations.keys()]).toEqual(["other"]);
    // Within the shorter horizon, a copy still opens the correlation anew (it is not late).
    const soon = replayLog(
      [dispatched, e.dispatch("other", "w2", { at: 1_500 }), { ...dispatched }],
      defaultRuleSetV2,
      {
        policy,
        retention,
      },
    );
    expect(soon.late).toEqual([]);
    // Batch by batch, as the reconciler folds, the same observations are late.
    const folded = foldBatch(
      {
        decider,
        policy,
        capabilities: new CapabilityTable(),
        stateOf: () => undefined,
        retention: new StreamRetention(retention),
      },
      log,
    );
    expect(folded.late.map((l) => l.index)).toEqual([4, 5]);
    // A card and a probe result as old are folded all the same: they teach the capability table.
    const card = { name: "w3", version: "1", skills: [{ id: "summarize" }] };
    const capability = replayLog(
      [
        e.dispatch("other", "w2", { at: 7_000 }),
        e.card("w3", card, { at: 10 }),
        e.probe("w3", "h", { at: 11, states: [], modes: [] }),
      ],
      defaultRuleSetV2,
      { policy, retention },
    );
    expect(capability.late).toEqual([]);
    expect(capability.capabilities.knows("w3"), "the old card reached the capability table").toBe(true);
  });

  it("a duplicate observation advances the stream time, and counts as its correlation seen again (nothing decided)", () => {
    const e = events();
    const bSeen = e.state("b", "w1", "t2", "working", { at: 1_600 });
    const log = [
      e.dispatch("a", "w1", { at: 1_000 }),
      e.state("a", "w1", "t1", "completed", { at: 1_010 }),
      e.dispatch("b", "w1", { at: 1_500 }),
      bSeen,
      { ...bSeen, occurredAt: 2_500 },
    ];
    const result = replayLog(log, defaultRuleSetV2, { policy, retention });
    // b's duplicate decides nothing, but b was seen at 2 500 and its time carried the stream past a's horizon.
    expect([...result.correlations.keys()]).toEqual(["b"]);
    expect(decider.activity(result.correlations.get("b") as LedgerState)?.lastEventAt).toBe(2_500);
    expect(result.decisions).toEqual(replayLog(log.slice(0, 4), defaultRuleSetV2, { policy }).decisions);
  });

  it("a correlation re-sighted under the same eventId stays; one that expires twice gets two decision ids", () => {
    const e = events();
    const polled = e.state("canary", "w1", "t1", "input-required", { at: 1_000 });
    const dispatched = e.dispatch("canary", "w1", { at: 900 });
    // Polled every 2 s (the same sighting, the same eventId): seen, so it does not go stale.
    const polls = Array.from({ length: 10 }, (_, i) => ({ ...polled, occurredAt: 3_000 + 2_000 * i }));
    const alive = replayLog([dispatched, polled, ...polls], defaultRuleSetV2, { policy, retention });
    expect(alive.decisions.some((d) => d.type === "CorrelationExpired")).toBe(false);
    // Polled again only after it went stale: it expires, opens anew at the poll, and expires again.
    const late = [{ ...polled, occurredAt: 9_000 }, e.dispatch("other", "w2", { at: 20_000 })];
    const twice = replayLog([dispatched, polled, ...late], defaultRuleSetV2, { policy, retention });
    const expired = twice.decisions.filter((d) => d.type === "CorrelationExpired");
    expect(expired.map((d) => d.decidedAt)).toEqual([6_000, 14_000]);
    expect(new Set(expired.map((d) => d.decisionId)).size).toBe(2);
  });

  it("evicts the same correlations with the same decisions whatever the batch boundaries", () => {
    const log = generateLog(6_000, { refreshEvery: 1_500, probeRefreshes: true }).map((line) => {
      const r = parseObservation(JSON.parse(line));
      if (!r.ok) throw new Error("generator");
      return r.observation;
    });
    // 3 ms per line: a 1.5 s horizon for finished work and 4.5 s without an outcome, over an 18 s log.
    const tight: RetentionPolicy = { finishedMs: 1_500, staleMs: 4_500 };
    const whole = foldInBatches(log, log.length, tight);
    const ids = (d: Decision[]) => d.map((x) => x.decisionId);
    expect(whole.decisions.some((d) => d.type === "CorrelationExpired")).toBe(true);
    const kept = foldInBatches(log, log.length, { finishedMs: 1e12, staleMs: 1e12 });
    expect(whole.states.size).toBeLessThan(kept.states.size / 3);
    for (const size of [1, 7, 500]) {
      const batched = foldInBatches(log, size, tight);
      expect(ids(batched.decisions)).toEqual(ids(whole.decisions));
      expect([...batched.states.keys()].sort()).toEqual([...whole.states.keys()].sort());
    }
  });

  it("recorded replay evicts by the retention each batch record names, per partition", () => {
    const e = events();
    const p0 = [e.dispatch("a", "w1", { at: 1_000 }), e.dispatch("b", "w1", { at: 9_000 })];
    const p1 = [e.dispatch("c", "w1", { at: 1_000 }), e.dispatch("d", "w1", { at: 2_000 })];
    const fold = new BatchOrderFold(decider, policy);
    const batch = (partition: number, r: RetentionPolicy | null) => ({
      partition,
      fromOffset: 0,
      toOffset: 1,
      recheck: false,
      capabilityReads: [],
      policyVersions: 0,
      retention: r,
    });
    const first = fold.fold(p0, batch(0, retention));
    const second = fold.fold(p1, batch(1, retention));
    // Partition 0's stream time (9 000) expired "a"; partition 1's (2 000) left "c" alone.
    expect(first.decisions.filter((d) => d.type === "CorrelationExpired").map((d) => d.correlationId)).toEqual(["a"]);
    expect(second.decisions.some((d) => d.type === "CorrelationExpired")).toBe(false);
    expect([...fold.states.keys()].sort()).toEqual(["b", "c", "d"]);
    // A record without retention (a reconciler that kept everything) evicts nothing.
    const keeping = new BatchOrderFold(decider, policy);
    keeping.fold(p0, batch(0, null));
    expect([...keeping.states.keys()].sort()).toEqual(["a", "b"]);
  });
});

describe("StreamRetention", () => {
  it("finds exactly the correlations whose expiry the stream time has passed, in id order", () => {
    let seed = 7;
    const rnd = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    const r = new StreamRetention({ finishedMs: 160, staleMs: 400 });
    const expiry = new Map<string, number>();
    for (let step = 0; step < 5_000; step++) {
      const id = `c${Math.floor(rnd() * 300)}`;
      if (rnd() < 0.1) {
        r.forget(id);
        expiry.delete(id);
      } else {
        const at = r.time + Math.floor(rnd() * 500) - 50;
        r.track(id, at);
        expiry.set(id, at);
      }
      r.advance(step * 2);
      const due = r.due();
      const oracle = [...expiry].filter(([, at]) => at < r.time).map(([id]) => id);
      expect(due).toEqual(oracle.sort());
      for (const id of due) {
        r.forget(id);
        expiry.delete(id);
      }
    }
    expect(r.size).toBe(expiry.size);
  });
});

describe("the changelog value keeps the last event", () => {
  it("round-trips lastEventAt and lastEventId", () => {
    const e = events();
    const seen = e.state("c", "w1", "t1", "working", { at: 5_000 });
    const state = replayLog([e.dispatch("c", "w1", { at: 4_000 }), seen], defaultRuleSetV2, {
      policy,
    }).correlations.get("c") as LedgerState;
    const back = decider.deserialize(decider.serialize(state));
    expect(decider.activity(back)).toMatchObject({ lastEventAt: 5_000, lastEventId: seen.eventId, finished: false });
  });

  it("reads a value written before retention (format 2), idle from its latest recorded time", () => {
    const e = events();
    const state = replayLog(
      [e.dispatch("c", "w1", { at: 4_000 }), e.state("c", "w1", "t1", "working", { at: 5_000 })],
      defaultRuleSetV2,
      { policy },
    ).correlations.get("c") as LedgerState;
    // Format 2 is format 4 without its three trailing fields: with all null, three zero bytes (null branches).
    const withoutLastEvent = { ...(state as object), lastEventAt: null, lastEventId: null } as LedgerState;
    const v4 = decider.serialize(withoutLastEvent);
    expect(v4[0]).toBe(4);
    expect([...v4.subarray(v4.length - 3)]).toEqual([0, 0, 0]);
    const v2 = Uint8Array.from([2, ...v4.subarray(1, v4.length - 3)]);
    // The task's last sighting (5 000) is the latest time the old value holds.
    expect(decider.activity(decider.deserialize(v2))).toMatchObject({ lastEventAt: 5_000, lastEventId: null });
  });

  it("reads a value written before fallbacks (format 3), with no fallback pending", () => {
    const e = events();
    const seen = e.state("c", "w1", "t1", "working", { at: 5_000 });
    const state = replayLog([e.dispatch("c", "w1", { at: 4_000 }), seen], defaultRuleSetV2, {
      policy,
    }).correlations.get("c") as LedgerState;
    // Format 3 is format 4 without its trailing fallbackAt (null: one zero byte).
    const v4 = decider.serialize(state);
    expect(v4[v4.length - 1]).toBe(0);
    const v3 = Uint8Array.from([3, ...v4.subarray(1, v4.length - 1)]);
    const back = decider.deserialize(v3);
    expect(decider.activity(back)).toMatchObject({ lastEventAt: 5_000, lastEventId: seen.eventId, fallbackAt: null });
    expect(decider.serialize(back)).toEqual(v4);
  });
});
