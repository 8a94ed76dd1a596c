import { describe, expect, it } from "vitest";
import { ChunkBudget, sizeOf } from "./chunk-budget.ts";
import { partitionOf } from "@a2a-ledger/kafka";

const record = (key: string, bytes: number) => ({ key, value: Buffer.alloc(bytes) });

describe("ChunkBudget", () => {
  it("always takes the first record, however large", () => {
    expect(new ChunkBudget(6, { partitionBytes: 10, requestBytes: 10, records: 1 }).tryAdd(record("k", 1_000))).toBe(
      true,
    );
  });
  it("keeps each partition under its byte budget but lets other partitions fill", () => {
    const keys = ["a", "b", "c", "d", "e", "f", "g", "h"];
    const [k1, k2] = [keys[0]!, keys.find((k) => partitionOf(k, 6) !== partitionOf(keys[0]!, 6))!];
    const limit = 3 * sizeOf(record(k1, 100));
    const budget = new ChunkBudget(6, { partitionBytes: limit, requestBytes: 1e9, records: 1e9 });
    expect([1, 2, 3, 4].map(() => budget.tryAdd(record(k1, 100)))).toEqual([true, true, true, false]);
    expect(budget.tryAdd(record(k2, 100))).toBe(true);
    expect(budget.size).toBe(4);
  });
  it("caps the request's records and bytes", () => {
    const byCount = new ChunkBudget(1, { partitionBytes: 1e9, requestBytes: 1e9, records: 2 });
    expect([1, 2, 3].map((i) => byCount.tryAdd(record(`k${i}`, 1)))).toEqual([true, true, false]);
    const byBytes = new ChunkBudget(6, { partitionBytes: 1e9, requestBytes: 300, records: 1e9 });
    expect([1, 2, 3].map((i) => byBytes.tryAdd(record(`k${i}`, 100)))).toEqual([true, true, false]);
  });
});
