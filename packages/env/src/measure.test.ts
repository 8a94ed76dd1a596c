import { describe, expect, it } from "vitest";
import { percentile, processCpuSeconds } from "./measure.ts";

describe("percentile", () => {
  it("is the nearest rank: the smallest sample with at least q of the samples at or below it", () => {
    const ten = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10];
    expect(percentile(ten, 0.5)).toBe(5);
    expect(percentile(ten, 0.99)).toBe(10);
    expect(percentile(ten, 0.1)).toBe(1);
    expect(percentile(ten, 0)).toBe(1);
    expect(percentile(ten, 1)).toBe(10);
    expect(percentile([7], 0.99)).toBe(7);
    expect(percentile([], 0.5)).toBeNaN();
  });
});

describe("processCpuSeconds", () => {
  it("reads this process's CPU time, which grows with work, and nothing for a process that is not there", () => {
    const before = processCpuSeconds(process.pid);
    expect(before).toBeGreaterThan(0);
    // Spins until Node itself counts 150 ms more CPU for this process (however busy the machine is).
    const start = process.cpuUsage();
    let spin = 0;
    const used = () => {
      const u = process.cpuUsage(start);
      return u.user + u.system;
    };
    while (used() < 150_000 && spin < 1e10) spin++;
    const after = processCpuSeconds(process.pid) as number;
    expect(after - (before as number)).toBeGreaterThanOrEqual(0.1);
    // Within a tick of what Node itself counts for this process.
    const own = process.cpuUsage();
    expect(Math.abs(after - (own.user + own.system) / 1e6)).toBeLessThan(0.1);
    expect(processCpuSeconds(2 ** 22 + 1)).toBeUndefined();
    expect(processCpuSeconds(undefined)).toBeUndefined();
  });
});
