import { describe, expect, it } from "vitest";
import { events } from "../test/builders.ts";
import { designSection1 } from "../test/design-section-1.ts";
import { CapabilityTable } from "./capabilities.ts";
import { createDecider, type LedgerState } from "./decider.ts";
import { applyCapabilityUpdates, foldBatch } from "./fold.ts";
import { replay, replayLog, RulesFailedError } from "./replay.ts";
import { defaultRuleSetV2 } from "./rules/rule-sets.ts";
import { defaultRuleSetV1 } from "./v1/rules/rule-sets.ts";
import { initialCorrelationState, serializeCorrelationState } from "./v1/correlation-state.ts";
import { dedupeWindow } from "./correlation/state.ts";

const policy = { trustedVendors: [] };
const fullLog = () => {
  const s = designSection1();
  return [...s.cards, ...s.probes, ...s.firstAttempt, s.lost, ...s.secondAttempt];
};

describe("the decider (default/2)", () => {
  it("derives decision ids from the cause event, the decision kind and its position", () => {
    const s = designSection1();
    const decisions = replay([...s.cards, ...s.probes, ...s.firstAttempt, s.lost], defaultRuleSetV2, { policy });
    const fromLoss = decisions.filter((d) => d.causeEventIds[0] === s.lost.eventId);
    expect(fromLoss.map((d) => d.decisionId)).toEqual([
      `${s.lost.eventId}:TaskIndeterminate:0`,
      `${s.lost.eventId}:RedispatchCommanded:1`,
    ]);
    expect(fromLoss.every((d) => d.decidedAt === s.lost.occurredAt && d.rulesVersion === "default/2")).toBe(true);
  });

  it("ignores a redelivered event: no decisions, no change", () => {
    const decider = createDecider(defaultRuleSetV2);
    const table = new CapabilityTable();
    const s = designSection1({ withGamma: false });
    const ctx = { capabilities: table, policy };
    for (const obs of [...s.cards, ...s.probes])
      applyCapabilityUpdates(table, decider.step(ctx, decider.initialState(), obs));
    let state = decider.initialState();
    for (const obs of s.firstAttempt) state = decider.step(ctx, state, obs).state;
    const first = decider.step(ctx, state, s.lost);
    expect(first.decisions.map((d) => d.type)).toEqual(["TaskIndeterminate", "ReconciliationBlocked"]);
    const before = decider.serialize(first.state);
    const again = decider.step(ctx, first.state, s.lost);
    expect(again.decisions).toEqual([]);
    expect(again.capabilityUpdates).toEqual([]);
    expect(decider.serialize(again.state)).toEqual(before);
  });

  it("decides nothing new for a duplicate older than the exact de-duplication window", () => {
    const e = events();
    const s = designSection1();
    const chatter = Array.from({ length: dedupeWindow + 10 }, (_, i) =>
      e.state("task-42", "w-acme", "acme-t1", "input-required", { at: 10_050 + i, observer: "proxy" }),
    );
    const log = [...s.cards, ...s.probes, ...s.firstAttempt, ...chatter, s.lost];
    const once = replay(log, defaultRuleSetV2, { policy });
    expect(replay([...log, ...s.firstAttempt, s.lost], defaultRuleSetV2, { policy })).toEqual(once);
  });
});

describe("the one fold", () => {
  it("does not change the states it is given", () => {
    const decider = createDecider(defaultRuleSetV2);
    const log = fullLog();
    const split = log.findIndex((o) => o.type === "TaskNotFoundObserved");
    const first = foldBatch(
      { decider, policy, capabilities: new CapabilityTable(), stateOf: () => undefined },
      log.slice(0, split),
    );
    const table = CapabilityTable.fromSnapshots(first.capabilityUpdates, first.cards);
    const frozen = new Map([...first.states].map(([id, st]) => [id, decider.serialize(st)]));
    const second = foldBatch(
      { decider, policy, capabilities: table, stateOf: (id) => first.states.get(id) },
      log.slice(split),
    );
    for (const [id, st] of first.states) expect(decider.serialize(st)).toEqual(frozen.get(id));
    expect([...first.decisions, ...second.decisions]).toEqual(replay(log, defaultRuleSetV2, { policy }));
  });

  it("returns capability updates instead of writing the table, and a table rebuilt from them decides the same", () => {
    const s = designSection1();
    const empty = new CapabilityTable();
    const out = foldBatch(
      { decider: createDecider(defaultRuleSetV2), policy, capabilities: empty, stateOf: () => undefined },
      s.cards.slice(0, 1),
    );
    expect(empty.workers()).toEqual([]);
    expect(out.capabilityUpdates).toMatchObject([
      { workerId: "w-acme", verified: false, causeEventId: s.cards[0]!.eventId },
    ]);
    const { capabilities } = replayLog([...s.cards, ...s.probes], defaultRuleSetV2, { policy });
    const rest = [...s.firstAttempt, s.lost, ...s.secondAttempt];
    expect(replay(rest, defaultRuleSetV2, { policy, capabilities: capabilities.snapshots() })).toEqual(
      replayLog(fullLog(), defaultRuleSetV2, { policy }).decisions.slice(6),
    );
  });

  it("rejects an observation the rules throw on, leaves its correlation as it was, and folds the rest", () => {
    const log = fullLog();
    const bad = log.findIndex((o) => o.type === "ArtifactEmitted");
    const throwing = {
      ...defaultRuleSetV2,
      rulesVersion: "throwing/1",
      rules: [
        ...defaultRuleSetV2.rules,
        {
          id: "boom",
          apply: (i: { observation: { eventId: string } }) => {
            if (i.observation.eventId === log[bad]!.eventId) throw new Error("rule bug");
            return { decisions: [], capabilityUpdates: [], cards: [] };
          },
        },
      ],
    };
    const decider = createDecider(throwing);
    const out = foldBatch({ decider, policy, capabilities: new CapabilityTable(), stateOf: () => undefined }, log);
    expect(out.rejected.map((r) => [r.index, r.error.message])).toEqual([[bad, "rule bug"]]);
    expect(out.decisions.some((d) => d.type === "TaskReconciled")).toBe(true);
    expect(() => replay(log, throwing, { policy })).toThrow(RulesFailedError);
    // replayLog agrees with the reconciler: the rejection is listed and the rest decided, as the batch fold did.
    const replayed = replayLog(log, throwing, { policy });
    expect(replayed.rejected.map((r) => [r.index, r.observation.eventId, r.error.message])).toEqual([
      [bad, log[bad]!.eventId, "rule bug"],
    ]);
    expect(replayed.decisions).toEqual(out.decisions);
  });

  it("round-trips every state through its changelog value and decides the same as in memory", () => {
    const decider = createDecider(defaultRuleSetV2);
    const table = new CapabilityTable();
    const stored = new Map<string, Uint8Array>();
    const decisions = [];
    for (const obs of fullLog()) {
      const bytes = stored.get(obs.correlationId);
      const state: LedgerState = bytes === undefined ? decider.initialState() : decider.deserialize(bytes);
      const result = decider.step({ capabilities: table, policy }, state, obs);
      applyCapabilityUpdates(table, result);
      stored.set(obs.correlationId, decider.serialize(result.state));
      decisions.push(...result.decisions);
    }
    expect(JSON.stringify(decisions)).toBe(JSON.stringify(replay(fullLog(), defaultRuleSetV2, { policy })));
  });

  it("continues a default/1 changelog state under default/2, and refuses bytes that are no state", () => {
    const s = designSection1();
    const v1 = replayLog([...s.cards, ...s.probes, ...s.firstAttempt], defaultRuleSetV1, { policy });
    const decider = createDecider(defaultRuleSetV2);
    const v1State = createDecider(defaultRuleSetV1).serialize(v1.correlations.get("task-42")!);
    const migrated = decider.deserialize(v1State);
    const lost = decider.step({ capabilities: v1.capabilities, policy }, migrated, s.lost);
    expect(lost.decisions.map((d) => d.type)).toEqual(["TaskIndeterminate", "RedispatchCommanded"]);
    expect(() => decider.deserialize(new TextEncoder().encode("not json"))).toThrow();
    expect(() =>
      decider.deserialize(new TextEncoder().encode(serializeCorrelationState(initialCorrelationState()))),
    ).not.toThrow();
  });
});

describe("the one fold in place", () => {
  it("decides the same when the caller hands its states over, chunk after chunk", () => {
    const decider = createDecider(defaultRuleSetV2);
    const log = fullLog();
    const table = new CapabilityTable();
    const states = new Map<string, LedgerState>();
    const decisions = [];
    for (let i = 0; i < log.length; i += 3) {
      const out = foldBatch(
        { decider, policy, capabilities: table, stateOf: (id) => states.get(id), inPlace: true },
        log.slice(i, i + 3),
      );
      applyCapabilityUpdates(table, out);
      for (const [id, st] of out.states) states.set(id, st);
      decisions.push(...out.decisions);
    }
    expect(decisions).toEqual(replay(log, defaultRuleSetV2, { policy }));
  });
});

describe("where a fold emitted each decision", () => {
  it("names the step's observation, and the sweep a rescuing probe starts", () => {
    // Given a task lost while no worker can take it over (it blocks), and then the card and probe of one that can
    const without = designSection1({ withGamma: false });
    const gamma = designSection1().probes.filter((o) => o.workerId === "w-gamma");
    const gammaCard = designSection1().cards.filter((o) => o.workerId === "w-gamma");
    const log = [...without.cards, ...without.probes, ...without.firstAttempt, without.lost, ...gammaCard, ...gamma];
    // When one fold takes them all
    const out = foldBatch(
      {
        decider: createDecider(defaultRuleSetV2),
        policy,
        capabilities: new CapabilityTable(),
        stateOf: () => undefined,
      },
      log,
    );
    // Then every decision has its origin, the loss's own at the loss, and the re-dispatch at the probe, by the sweep
    expect(out.origins).toHaveLength(out.decisions.length);
    const lost = log.indexOf(without.lost);
    const at = (type: string) => out.decisions.flatMap((d, i) => (d.type === type ? [out.origins[i]] : []));
    expect(at("ReconciliationBlocked")).toEqual([{ index: lost, sweep: false }]);
    expect(at("RedispatchCommanded")).toEqual([{ index: log.indexOf(gamma[0] as (typeof log)[number]), sweep: true }]);
    for (const [i, o] of out.origins.entries())
      if (!o.sweep) expect(log[o.index]?.correlationId).toBe(out.decisions[i]?.correlationId);
  });
});
