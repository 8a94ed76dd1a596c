import { describe, expect, it, vi } from "vitest";
import { envReader, type DeprecatedName } from "./env-reader.ts";

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

  it("reads durations with a unit, or bare milliseconds, within bounds", () => {
    const r = envReader({
      D: "7d",
      H: "12h",
      M: "30m",
      S: "90s",
      MS: "500ms",
      BARE: "250",
      NEG: "-1s",
      FRACTION: "1.5h",
      WORD: "week",
      LOW: "0s",
    });
    expect(["D", "H", "M", "S", "MS", "BARE"].map((n) => r.duration(n, 1, 1, 30 * 86_400_000))).toEqual([
      604_800_000, 43_200_000, 1_800_000, 90_000, 500, 250,
    ]);
    expect(["NEG", "FRACTION", "WORD", "LOW", "UNSET"].map((n) => r.duration(n, 42, 1, 1_000))).toEqual([
      42, 42, 42, 42, 42,
    ]);
    expect(r.problems).toEqual(
      ['NEG="-1s"', 'FRACTION="1.5h"', 'WORD="week"', 'LOW="0s"'].map(
        (v) => `${v} must be a duration from 1 ms to 1000 ms, like 7d, 12h, 30m, 90s or 500ms`,
      ),
    );
  });

  describe("a service whose settings moved to A2A_LEDGER_<SERVICE>_*", () => {
    const renamed = { from: "SVC_", to: "A2A_LEDGER_SVC_" };

    it("given only the new name, reads it and reports nothing deprecated", () => {
      const seen: DeprecatedName[] = [];
      const r = envReader({ A2A_LEDGER_SVC_PORT: "80" }, { renamed, onDeprecated: (d) => seen.push(d) });
      expect(r.int("A2A_LEDGER_SVC_PORT", 1, 1, 65535)).toBe(80);
      expect([seen, r.deprecated]).toEqual([[], []]);
    });

    it("given only the old name, reads it and reports it once, naming old and new", () => {
      const seen: DeprecatedName[] = [];
      const r = envReader({ SVC_PORT: "81" }, { renamed, onDeprecated: (d) => seen.push(d) });
      expect(r.int("A2A_LEDGER_SVC_PORT", 1, 1, 65535)).toBe(81);
      expect(r.text("A2A_LEDGER_SVC_PORT")).toBe("81");
      expect(seen).toEqual([{ old: "SVC_PORT", new: "A2A_LEDGER_SVC_PORT" }]);
      expect(r.deprecated).toEqual(seen);
    });

    it("given both, takes the new name and still reports the old one", () => {
      const seen: DeprecatedName[] = [];
      const r = envReader(
        { SVC_PORT: "81", A2A_LEDGER_SVC_PORT: "82" },
        { renamed, onDeprecated: (d) => seen.push(d) },
      );
      expect(r.int("A2A_LEDGER_SVC_PORT", 1, 1, 65535)).toBe(82);
      expect(seen).toEqual([{ old: "SVC_PORT", new: "A2A_LEDGER_SVC_PORT" }]);
    });

    it("names a bad value under the new name, with every other problem", () => {
      const r = envReader({ SVC_PORT: "x", A2A_LEDGER_SVC_DEBUG: "maybe" }, { renamed, onDeprecated: () => undefined });
      r.int("A2A_LEDGER_SVC_PORT", 1, 1, 65535);
      r.bool("A2A_LEDGER_SVC_DEBUG");
      expect(r.problems).toEqual([
        'A2A_LEDGER_SVC_PORT="x" must be an integer from 1 to 65535',
        'A2A_LEDGER_SVC_DEBUG="maybe" must be true or false',
      ]);
    });

    it("by default warns once per old name and process, through a DeprecationWarning", () => {
      const emit = vi.spyOn(process, "emitWarning").mockImplementation(() => undefined);
      try {
        for (let i = 0; i < 3; i++) envReader({ SVC_ONCE: "1" }, { renamed }).text("A2A_LEDGER_SVC_ONCE");
        expect(emit.mock.calls).toEqual([
          [
            "SVC_ONCE is deprecated: set A2A_LEDGER_SVC_ONCE instead (A2A_LEDGER_SVC_ONCE wins when both are set)",
            { type: "DeprecationWarning", code: "A2A_LEDGER_DEPRECATED_SETTING" },
          ],
        ]);
      } finally {
        emit.mockRestore();
      }
    });
  });
});
