import { describe, expect, it } from "vitest";
import {
  agreedPartitions,
  defaultPartitions,
  PartitionDisagreementError,
  PartitionsSettingError,
  partitionsFromEnv,
} from "./partition-count.ts";
import { correlationKeyedTopics, suffixedTopicNames, topicSpecs } from "./topics.ts";

describe("A2A_LEDGER_PARTITIONS", () => {
  it("is 6 when unset or blank, so an install without it is sized as before", () => {
    expect(defaultPartitions).toBe(6);
    expect(partitionsFromEnv({})).toBe(6);
    expect(partitionsFromEnv({ A2A_LEDGER_PARTITIONS: "  " })).toBe(6);
  });

  it("takes a whole number from 1 to 1024", () => {
    expect(partitionsFromEnv({ A2A_LEDGER_PARTITIONS: "24" })).toBe(24);
    expect(partitionsFromEnv({ A2A_LEDGER_PARTITIONS: " 1 " })).toBe(1);
    expect(partitionsFromEnv({ A2A_LEDGER_PARTITIONS: "1024" })).toBe(1024);
  });

  it("refuses anything else, naming the setting, the value and the bounds", () => {
    for (const bad of ["0", "1025", "-3", "2.5", "1e2", "twelve", "0x10", "24 partitions"]) {
      expect(() => partitionsFromEnv({ A2A_LEDGER_PARTITIONS: bad }), bad).toThrow(PartitionsSettingError);
      expect(() => partitionsFromEnv({ A2A_LEDGER_PARTITIONS: bad }), bad).toThrow(
        `A2A_LEDGER_PARTITIONS=${JSON.stringify(bad)}: expected a whole number from 1 to 1024`,
      );
    }
  });

  it("sizes the correlation-keyed topics of a spec and leaves the single-partition ones at one", () => {
    const names = suffixedTopicNames("sizing");
    const specs = topicSpecs(names, 24);
    const keyed = correlationKeyedTopics(names);
    expect(
      specs
        .filter((s) => s.correlationKeyed === true)
        .map((s) => s.name)
        .sort(),
    ).toEqual([...keyed].sort());
    for (const s of specs) expect(s.partitions, s.name).toBe(keyed.includes(s.name) ? 24 : 1);
    expect(
      topicSpecs(names)
        .filter((s) => s.correlationKeyed === true)
        .map((s) => s.partitions),
    ).toEqual([6, 6, 6, 6]);
  });
});

describe("the correlation-keyed topics agree on one count", () => {
  it("is that count when they agree, and nothing for no topics", () => {
    expect(
      agreedPartitions([
        { topic: "a", partitions: 24 },
        { topic: "b", partitions: 24 },
      ]),
    ).toBe(24);
    expect(agreedPartitions([{ topic: "a", partitions: 1 }])).toBe(1);
    expect(agreedPartitions([])).toBeUndefined();
  });

  it("refuses topics that disagree, naming each topic and its count", () => {
    const counts = [
      { topic: "a2a.observations.v1", partitions: 24 },
      { topic: "a2a.decisions.v1", partitions: 24 },
      { topic: "a2a.commands.v1", partitions: 6 },
      { topic: "a2a.reconciler.changelog.v1", partitions: 24 },
    ];
    const error = (() => {
      try {
        agreedPartitions(counts);
      } catch (e) {
        return e;
      }
      return undefined;
    })();
    expect(error).toBeInstanceOf(PartitionDisagreementError);
    expect((error as PartitionDisagreementError).counts).toEqual(counts);
    const message = (error as Error).message;
    for (const c of counts) expect(message).toContain(`${c.topic}: ${c.partitions} partitions`);
  });
});
