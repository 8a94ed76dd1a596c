import { describe, expect, it } from "vitest";
import { CapabilityTable, createDecider, defaultRuleSet, PartitionLedger, replay } from "@a2a-ledger/core";
import { designSection1Story } from "../test/example-log.ts";
import { type BatchItem, processBatch } from "./batch.ts";
import { PoisonRecordError } from "./errors.ts";

const { story } = designSection1Story();
const decider = createDecider(defaultRuleSet);
const policy = { trustedVendors: [] };
const items = (from: number, to = story.length): BatchItem[] =>
  story.slice(from, to).map((observation, i) => ({ offset: String(from + i), observation }));

describe("processBatch", () => {
  it("decides a whole log in one batch exactly as the replay does, commands included", () => {
    const out = processBatch(items(0), {
      decider,
      policy,
      capabilities: new CapabilityTable(),
      ledger: new PartitionLedger(decider),
    });
    const expected = replay(story, defaultRuleSet);
    expect(out.decisions).toEqual(expected);
    expect(out.commands.map((c) => c.type)).toEqual(
      expected.filter((d) => d.type === "RedispatchCommanded" || d.type === "ProbeRequested").map((d) => d.type),
    );
  });

  it("lets later observations of a batch see the capabilities earlier ones derived, before anything is committed", () => {
    const out = processBatch(items(0), {
      decider,
      policy,
      capabilities: new CapabilityTable(),
      ledger: new PartitionLedger(decider),
    });
    expect(out.capabilityUpdates.length).toBeGreaterThan(0);
    expect(out.decisions.some((d) => d.type === "RedispatchCommanded" && d.targetWorkerId === "w-gamma")).toBe(true);
  });

  it("returns one changelog value per touched correlation, with the state after its last observation", () => {
    const out = processBatch(items(0), {
      decider,
      policy,
      capabilities: new CapabilityTable(),
      ledger: new PartitionLedger(decider),
    });
    expect([...out.states.keys()].sort()).toEqual(["probe-w-acme", "probe-w-beta", "probe-w-gamma", "task-42"]);
    const task = out.states.get("task-42");
    expect(decider.deserialize(task?.serialized ?? new Uint8Array())).toEqual(task?.state);
  });

  it("passes poison items through with their offset and reason, and decides the rest", () => {
    const poison = new PoisonRecordError("RECONCILER_UNDECODABLE", "garbage");
    const out = processBatch([{ offset: "7", poison }, ...items(0)], {
      decider,
      policy,
      capabilities: new CapabilityTable(),
      ledger: new PartitionLedger(decider),
    });
    expect(out.poison).toEqual([{ offset: "7", error: poison }]);
    expect(out.decisions).toEqual(replay(story, defaultRuleSet));
  });

  it("continues a correlation from the state it is given, as after a changelog restore", () => {
    const split = story.findIndex((o) => o.type === "TaskNotFoundObserved");
    const first = processBatch(items(0, split), {
      decider,
      policy,
      capabilities: new CapabilityTable(),
      ledger: new PartitionLedger(decider),
    });
    const table = CapabilityTable.fromSnapshots(first.capabilityUpdates, first.cards);
    const second = processBatch(items(split), {
      decider,
      policy,
      capabilities: table,
      ledger: new PartitionLedger(decider, { states: [...first.states].map(([id, s]) => [id, s.state] as const) }),
    });
    expect([...first.decisions, ...second.decisions]).toEqual(replay(story, defaultRuleSet));
  });

  it("sends an observation the rules throw on to the dead letters instead of stopping the partition", () => {
    const throwing = {
      ...decider,
      step: () => {
        throw new Error("rule bug");
      },
    };
    const out = processBatch(items(0, 1), {
      decider: throwing,
      policy,
      capabilities: new CapabilityTable(),
      ledger: new PartitionLedger(throwing),
    });
    expect(out.poison[0]?.error.reason).toBe("RECONCILER_RULES_REJECTED");
    expect(out.states.size).toBe(0);
  });
});
