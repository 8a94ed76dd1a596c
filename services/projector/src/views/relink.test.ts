import { describe, expect, it } from "vitest";
import type { ProjectorInput } from "../inputs.ts";
import { canonicalOrder } from "./relink.ts";
import type { EventRow } from "./rows.ts";

const row = (
  kind: EventRow["kind"],
  id: string,
  offset: number,
  occurredAt: number,
  body: Record<string, unknown>,
): EventRow => ({
  correlationId: "c1",
  id: `${kind[0]}:${id}`,
  kind,
  type: String(body.type),
  eventId: id,
  occurredAt,
  observer: null,
  workerId: null,
  serverTaskId: null,
  attempt: null,
  state: null,
  topic: kind === "observation" ? "observations" : kind,
  partition: 0,
  offset,
  body: JSON.stringify(body),
});
const observation = (id: string, offset: number, at: number) =>
  row("observation", id, offset, at, { type: "TaskStateObserved", eventId: id, occurredAt: at });
const decision = (id: string, offset: number, decidedAt: number, causeEventIds: string[]) =>
  row("decision", id, offset, decidedAt, { type: "RedispatchCommanded", decisionId: id, causeEventIds, decidedAt });
const ids = (inputs: readonly ProjectorInput[]) =>
  inputs.map((i) =>
    i.kind === "observation"
      ? i.record.eventId
      : i.kind === "decision" || i.kind === "command"
        ? `${i.kind}:${i.record.decisionId}`
        : i.kind,
  );

describe("the canonical order of a re-dispatched correlation's events", () => {
  it("puts each decision right after the observation it was decided on, however the rows were stored", () => {
    const rows = [
      decision("d1", 0, 20, ["o2", "o1"]),
      observation("o3", 2, 30),
      observation("o1", 0, 10),
      observation("o2", 1, 20),
    ];
    expect(ids(canonicalOrder(rows))).toEqual(["o1", "o2", "decision:d1", "o3"]);
    expect(ids(canonicalOrder([...rows].reverse()))).toEqual(["o1", "o2", "decision:d1", "o3"]);
  });

  it("orders observations by their log position, not their clocks, and a repeated event id by its first copy", () => {
    const rows = [
      observation("o1", 0, 50),
      observation("o2", 1, 10),
      decision("d1", 0, 50, ["o1"]),
      { ...observation("o1", 2, 50), id: "o:o1-again" },
    ];
    expect(ids(canonicalOrder(rows))).toEqual(["o1", "decision:d1", "o2", "o1"]);
  });

  it("puts a decision caused elsewhere after the last observation that occurred no later than it was decided", () => {
    const rows = [
      observation("o1", 0, 10),
      observation("o2", 1, 40),
      observation("o3", 2, 20),
      decision("d1", 0, 25, ["probe-of-another-correlation"]),
    ];
    expect(ids(canonicalOrder(rows))).toEqual(["o1", "o2", "o3", "decision:d1"]);
    expect(ids(canonicalOrder([...rows.slice(0, 3), decision("d1", 0, 5, ["elsewhere"])]))).toEqual([
      "decision:d1",
      "o1",
      "o2",
      "o3",
    ]);
  });

  it("keeps the decisions in their own log order, and the commands after everything", () => {
    const rows = [
      observation("o1", 0, 10),
      observation("o2", 1, 20),
      decision("d1", 0, 20, ["o2"]),
      decision("d2", 1, 10, ["o1"]),
      row("command", "d1", 0, 20, { type: "RedispatchCommanded", decisionId: "d1" }),
    ];
    expect(ids(canonicalOrder(rows))).toEqual(["o1", "o2", "decision:d1", "decision:d2", "command:d1"]);
  });
});
