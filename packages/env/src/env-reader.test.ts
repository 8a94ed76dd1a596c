import { describe, expect, it } from "vitest";
import { envReader } from "./env-reader.ts";

describe("reading configuration from the environment", () => {
  it("trims values and takes an empty one for unset", () => {
    const r = envReader({ A: "  x ", B: "   " });
    expect([r.text("A"), r.text("B"), r.text("C")]).toEqual(["x", undefined, undefined]);
  });

  it("reads integers within bounds and names every bad value", () => {
    const r = envReader({ OK: "42", NEG: "-1", BIG: "1001", FRACTION: "1.5", WORD: "ten" });
    expect(r.int("OK", 1, 0, 1000)).toBe(42);
    expect(r.int("UNSET", 7, 0, 1000)).toBe(7);
    for (const name of ["NEG", "BIG", "FRACTION", "WORD"]) expect(r.int(name, 3, 0, 1000)).toBe(3);
    expect(r.problems).toEqual([
      'NEG="-1" must be an integer from 0 to 1000',
      'BIG="1001" must be an integer from 0 to 1000',
      'FRACTION="1.5" must be an integer from 0 to 1000',
      'WORD="ten" must be an integer from 0 to 1000',
    ]);
  });

  it("reads true and false only", () => {
    const r = envReader({ T: "true", F: "false", Y: "yes" });
    expect([r.bool("T"), r.bool("F"), r.bool("Y"), r.bool("UNSET", true)]).toEqual([true, false, false, true]);
    expect(r.problems).toEqual(['Y="yes" must be true or false']);
  });
});
