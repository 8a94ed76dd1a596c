import { ObservationChannelSymbols, PartKindSymbols, TaskStateSymbols, avroSchemas } from "@a2a-ledger/schemas";
import { describe, expect, it } from "vitest";
import { parseObservation } from "./ingest-json.ts";
import { normalizeTaskState } from "./task-state.ts";
import {
  channelSpellings,
  observationTypeNames,
  partKindSpellings,
  spellingsOf,
  taskStateSpellings,
} from "./vocabulary.ts";

const stateObs = {
  type: "TaskStateObserved",
  eventId: "e1",
  correlationId: "c1",
  occurredAt: 5,
  observer: "p",
  workerId: "w1",
  serverTaskId: "s1",
  state: "working",
  via: "GET",
};
const part = (kind: string) => ({
  type: "ArtifactEmitted",
  eventId: "e1",
  correlationId: "c1",
  occurredAt: 5,
  observer: "p",
  workerId: "w1",
  serverTaskId: "s1",
  artifactId: "a",
  parts: [{ kind, sizeBytes: 1 }],
});

describe("the input vocabulary", () => {
  it("spells every Avro symbol as itself, and every spelling once", () => {
    for (const [table, symbols] of [
      [taskStateSpellings, TaskStateSymbols],
      [channelSpellings, ObservationChannelSymbols],
      [partKindSpellings, PartKindSymbols],
    ] as const) {
      const spellings = spellingsOf(table);
      expect(new Set(spellings).size).toBe(spellings.length);
      for (const symbol of symbols) expect(table).toContainEqual([symbol, symbol]);
      for (const [, symbol] of table) expect(symbols).toContain(symbol);
    }
  });

  it("names the observation types of the Avro schemas", () => {
    expect([...observationTypeNames].sort()).toEqual(Object.keys(avroSchemas.observations).sort());
  });

  it("is what the parser accepts: every spelling, and nothing near one", () => {
    for (const [spelling, symbol] of taskStateSpellings) {
      expect(normalizeTaskState(spelling)).toBe(symbol);
      const r = parseObservation({ ...stateObs, state: spelling });
      expect(r.ok && r.observation).toMatchObject({ state: symbol, rawState: spelling });
    }
    for (const [spelling, symbol] of channelSpellings) {
      const r = parseObservation({ ...stateObs, via: spelling });
      expect(r.ok && r.observation).toMatchObject({ via: symbol });
    }
    for (const [spelling, symbol] of partKindSpellings) {
      const r = parseObservation(part(spelling));
      expect(r.ok && r.observation).toMatchObject({ parts: [{ kind: symbol }] });
    }
    const near = (s: string) => [
      s.toUpperCase(),
      s.toLowerCase(),
      `${s} `,
      s.charAt(0).toUpperCase() + s.slice(1).toLowerCase(),
    ];
    const states = new Set<string>(spellingsOf(taskStateSpellings));
    for (const s of spellingsOf(taskStateSpellings)
      .flatMap(near)
      .filter((s) => !states.has(s)))
      expect(parseObservation({ ...stateObs, state: s }).ok, s).toBe(false);
    const channels = new Set<string>(spellingsOf(channelSpellings));
    for (const s of spellingsOf(channelSpellings)
      .flatMap(near)
      .filter((s) => !channels.has(s)))
      expect(parseObservation({ ...stateObs, via: s }).ok, s).toBe(false);
    const kinds = new Set<string>(spellingsOf(partKindSpellings));
    for (const s of spellingsOf(partKindSpellings)
      .flatMap(near)
      .filter((s) => !kinds.has(s)))
      expect(parseObservation(part(s)).ok, s).toBe(false);
    for (const s of ["toString", "__proto__", "constructor", "hasOwnProperty"]) {
      expect(parseObservation({ ...stateObs, state: s }).ok).toBe(false);
      expect(parseObservation({ ...stateObs, via: s }).ok).toBe(false);
      expect(parseObservation(part(s)).ok).toBe(false);
    }
  });
});
