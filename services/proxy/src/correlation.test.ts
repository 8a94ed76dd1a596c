import { describe, expect, it } from "vitest";
import { CorrelationMemory, validCorrelationId } from "./correlation.ts";

describe("CorrelationMemory", () => {
  it("keeps the first correlation of a task and forgets the least recently used beyond its capacity", () => {
    const memory = new CorrelationMemory(2);
    expect(memory.remember("t1", "c1")).toBe("c1");
    expect(memory.remember("t1", "other")).toBe("c1");
    memory.remember("t2", "c2");
    memory.lookup("t1");
    memory.remember("t3", "c3");
    expect(memory.lookup("t2")).toBeUndefined();
    expect(memory.lookup("t1")).toBe("c1");
    expect(memory.size).toBe(2);
  });
});

describe("validCorrelationId", () => {
  it("accepts 1–200 visible ASCII characters, trimmed, and refuses the rest", () => {
    expect(validCorrelationId(" order-42 ")).toBe("order-42");
    for (const bad of ["", "   ", "a b", "x".repeat(201), "tab\there", "ünïcode", "line\nbreak", null, undefined]) expect(validCorrelationId(bad)).toBeNull();
  });
});
