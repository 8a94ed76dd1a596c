import { describe, expect, it } from "vitest";
import { parsed } from "../../test/builders.ts";
import { designSection1 } from "../../test/design-section-1.ts";
import { CapabilityTable } from "../capabilities.ts";
import {
  deserializeCorrelationState,
  initialCorrelationState,
  serializeCorrelationState,
  CorrelationStateFormatError,
} from "./correlation-state.ts";
import { createDecider, type LedgerState } from "../decider.ts";
import { applyCapabilityUpdates } from "../fold.ts";
import { replay, replayLog } from "../replay.ts";
import { defaultRuleSetV1 } from "./rules/rule-sets.ts";

const policy = { trustedVendors: [] };
const fullLog = () => {
  const s = designSection1();
  return [...s.cards, ...s.probes, ...s.firstAttempt, s.lost, ...s.secondAttempt];
};

describe("the decider", () => {
  it("derives decision ids from the cause event, the decision kind and its position", () => {
    const s = designSection1();
    const decisions = replay([...s.cards, ...s.probes, ...s.firstAttempt, s.lost], defaultRuleSetV1, { policy });
    const fromLoss = decisions.filter((d) => d.causeEventIds[0] === s.lost.eventId);
    expect(fromLoss.map((d) => d.decisionId)).toEqual([
      `${s.lost.eventId}:TaskIndeterminate:0`,
      `${s.lost.eventId}:RedispatchCommanded:1`,
    ]);
    expect(fromLoss.every((d) => d.decidedAt === s.lost.occurredAt && d.rulesVersion === "default/1")).toBe(true);
  });

  it("ignores a redelivered event: no decisions, no state change", () => {
    const decider = createDecider(defaultRuleSetV1);
    const table = new CapabilityTable();
    const s = designSection1({ withGamma: false });
    let state = decider.initialState();
    const ctx = { capabilities: table, policy };
    for (const obs of [...s.cards, ...s.probes])
      applyCapabilityUpdates(table, decider.step(ctx, decider.initialState(), obs));
    for (const obs of s.firstAttempt) state = decider.step(ctx, state, obs).state;
    const first = decider.step(ctx, state, s.lost);
    expect(first.decisions.map((d) => d.type)).toEqual(["TaskIndeterminate", "ReconciliationBlocked"]);
    const again = decider.step(ctx, first.state, s.lost);
    expect(again.decisions).toEqual([]);
    expect(again.capabilityUpdates).toEqual([]);
    expect(again.state).toBe(first.state);
  });

  it("returns capability updates instead of writing the table, and a table rebuilt from them decides the same", () => {
    const s = designSection1();
    const decider = createDecider(defaultRuleSetV1);
    const empty = new CapabilityTable();
    const result = decider.step({ capabilities: empty, policy }, decider.initialState(), s.cards[0]!);
    expect(empty.workers()).toEqual([]);
    expect(result.capabilityUpdates).toMatchObject([
      { workerId: "w-acme", verified: false, causeEventId: s.cards[0]!.eventId, validFrom: s.cards[0]!.occurredAt },
    ]);

    const { capabilities } = replayLog([...s.cards, ...s.probes], defaultRuleSetV1, { policy });
    const rest = [...s.firstAttempt, s.lost, ...s.secondAttempt];
    const rebuilt = replay(rest, defaultRuleSetV1, { policy, capabilities: capabilities.snapshots() });
    const continued = replayLog([...s.cards, ...s.probes, ...rest], defaultRuleSetV1, { policy }).decisions.slice(6);
    expect(rebuilt).toEqual(continued);
  });

  it("diffs a changed card field by field from a table rebuilt from capability snapshots alone", () => {
    const s = designSection1();
    const { capabilities } = replayLog([...s.cards, ...s.probes], defaultRuleSetV1, { policy });
    const snapshotsOnly = capabilities.snapshots();
    const card = s.cards[0]!;
    if (card.type !== "AgentCardObserved") throw new Error("the story starts with a card");
    const original = JSON.parse(card.card) as { defaultOutputModes?: string[] };
    const changedCard = { ...original, defaultOutputModes: ["text/html"] };
    const changed = parsed({
      type: "AgentCardObserved",
      eventId: "card-changed",
      correlationId: card.correlationId,
      occurredAt: 9_000,
      observer: "dispatcher",
      workerId: "w-acme",
      cardUrl: card.cardUrl,
      card: changedCard,
    });
    const [cardChanged] = replay([changed], defaultRuleSetV1, { policy, capabilities: snapshotsOnly }).filter(
      (d) => d.type === "CardChanged",
    );
    expect(cardChanged).toMatchObject({ type: "CardChanged", previousCardHash: card.cardHash });
    expect(cardChanged?.type === "CardChanged" && cardChanged.changes.map((c) => c.path)).toEqual(
      expect.arrayContaining(["/defaultOutputModes/0"]),
    );
  });

  it("looks capabilities up as of the event's time", () => {
    const { capabilities } = replayLog(fullLog(), defaultRuleSetV1, { policy });
    expect(capabilities.asOf("w-acme", 999)).toBeUndefined();
    expect(capabilities.asOf("w-acme", 1_500)?.verified).toBe(false);
    expect(capabilities.asOf("w-acme", 2_000)?.verified).toBe(true);
  });
});

describe("correlation state serialization", () => {
  it("round-trips through JSON at every step and decides the same as in memory", () => {
    const decider = createDecider(defaultRuleSetV1);
    const log = fullLog();
    const inMemory = replay(log, defaultRuleSetV1, { policy });
    const table = new CapabilityTable();
    const stored = new Map<string, Uint8Array>();
    const decisions = [];
    for (const obs of log) {
      const bytes = stored.get(obs.correlationId);
      const state: LedgerState = bytes === undefined ? decider.initialState() : decider.deserialize(bytes);
      const result = decider.step({ capabilities: table, policy }, state, obs);
      applyCapabilityUpdates(table, result);
      const serialized = decider.serialize(result.state);
      expect(decider.deserialize(serialized)).toEqual(result.state);
      stored.set(obs.correlationId, serialized);
      decisions.push(...result.decisions);
    }
    expect(JSON.stringify(decisions)).toBe(JSON.stringify(inMemory));
    expect(deserializeCorrelationState(new TextDecoder().decode(stored.get("task-42")!))).toMatchObject({
      status: "reconciled",
      attempts: [{ serverTaskIds: ["acme-t1"] }, { serverTaskIds: ["gamma-t9"], attempt: 2 }],
    });
  });

  it("refuses text that is not a correlation state", () => {
    expect(() => deserializeCorrelationState('{"version":2}')).toThrow(CorrelationStateFormatError);
    expect(() => deserializeCorrelationState(serializeCorrelationState(initialCorrelationState()))).not.toThrow();
  });
});
