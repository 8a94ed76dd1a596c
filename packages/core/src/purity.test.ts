/** The core is pure: no clock, no randomness, no I/O. This fails if one creeps in. */
import { readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { designSection1 } from "../test/design-section-1.ts";
import { sources } from "../test/sources.ts";
import { replay } from "./replay.ts";
import { defaultRuleSetV2, restartFromScratchRuleSet } from "./rules/rule-sets.ts";

const srcDir = import.meta.dirname;

const forbidden: [RegExp, string][] = [
  [/\bDate\b/, "Date (a clock)"],
  [/\bMath\.random\b/, "Math.random"],
  [/\bcrypto\.(getRandomValues|randomUUID|randomBytes)\b|\brandom(UUID|Bytes|Int)\b/, "random values"],
  [/\bperformance\b/, "performance (a clock)"],
  [/\bprocess\b/, "process"],
  [/\b(setTimeout|setInterval|setImmediate|queueMicrotask)\b/, "timers"],
  [/\bfetch\s*\(/, "fetch"],
  [/\brequire\s*\(/, "require"],
  [/\bimport\s*\(/, "dynamic import"],
];

const allowedImport = (spec: string): boolean =>
  spec === "node:crypto" ||
  spec === "@a2a-ledger/schemas" ||
  spec === "avsc" ||
  spec.startsWith("./") ||
  spec.startsWith("../");

describe("purity of the core", () => {
  const files = sources(srcDir);

  it("has sources to scan", () => {
    expect(files.length).toBeGreaterThan(10);
  });

  it.each(files.map((f) => [relative(srcDir, f), f]))("%s uses no clock, randomness, process or I/O", (_name, file) => {
    const text = readFileSync(file, "utf8").replace(/\/\*[\s\S]*?\*\/|\/\/.*$/gm, "");
    for (const [pattern, what] of forbidden) expect(pattern.test(text), `uses ${what}`).toBe(false);
    const specs = [...text.matchAll(/\b(?:import|export)\b[^;]*?\bfrom\s*["']([^"']+)["']/g)].map(
      (m) => m[1] as string,
    );
    for (const spec of specs) expect(allowedImport(spec), `imports ${spec}`).toBe(true);
    for (const spec of specs.filter((s) => s.startsWith(".")))
      expect(
        spec.startsWith("../") ? relative(srcDir, join(file, "..", spec)).startsWith("..") : false,
        `imports outside src: ${spec}`,
      ).toBe(false);
  });

  afterEach(() => vi.restoreAllMocks());

  it("replays a log with the clock and randomness made to throw", () => {
    const s = designSection1();
    const log = [...s.cards, ...s.probes, ...s.firstAttempt, s.lost, ...s.secondAttempt];
    const boom = () => {
      throw new Error("the core read a clock or randomness");
    };
    vi.spyOn(Date, "now").mockImplementation(boom);
    vi.spyOn(Math, "random").mockImplementation(boom);
    vi.spyOn(performance, "now").mockImplementation(boom);
    expect(replay(log, defaultRuleSetV2).length).toBeGreaterThan(5);
    expect(replay(log, restartFromScratchRuleSet).length).toBeGreaterThan(5);
  });
});
