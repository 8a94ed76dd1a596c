import { describe, expect, it, vi } from "vitest";
import { loadConfig } from "./config.ts";

describe("projector settings under their deprecated names (PROJECTOR_*)", () => {
  const warnings = (run: () => void): string[] => {
    const emit = vi.spyOn(process, "emitWarning").mockImplementation(() => undefined);
    try {
      run();
      return emit.mock.calls.map((c) => String(c[0]));
    } finally {
      emit.mockRestore();
    }
  };

  it("reads the old name, with one deprecation warning naming old and new", () => {
    let port = 0;
    const seen = warnings(() => {
      port = loadConfig({ PROJECTOR_PORT: "9001" }).port;
      loadConfig({ PROJECTOR_PORT: "9001" });
    });
    expect(port).toBe(9001);
    expect(seen).toEqual(["PROJECTOR_PORT is deprecated: set A2A_LEDGER_PROJECTOR_PORT instead (A2A_LEDGER_PROJECTOR_PORT wins when both are set)"]);
  });

  it("reads the new name without a warning, and takes it when both are set", () => {
    expect(warnings(() => expect(loadConfig({ A2A_LEDGER_PROJECTOR_PORT: "9002" }).port).toBe(9002))).toEqual([]);
    expect(loadConfig({ PROJECTOR_PORT: "9001", A2A_LEDGER_PROJECTOR_PORT: "9002" }).port).toBe(9002);
  });

  it("lists every problem at once, also of values given under old names", () => {
    let problems: string[] = [];
    try {
      loadConfig({ PROJECTOR_PORT: "none", A2A_LEDGER_PROJECTOR_LOG_LEVEL: "loud", KAFKA_BROKERS: "nohost" });
    } catch (e) {
      problems = (e as { problems: string[] }).problems;
    }
    expect(problems.some((p) => p.startsWith('A2A_LEDGER_PROJECTOR_PORT="none"'))).toBe(true);
    expect(problems.some((p) => p.includes("A2A_LEDGER_PROJECTOR_LOG_LEVEL"))).toBe(true);
    expect(problems.some((p) => p.includes("KAFKA_BROKERS"))).toBe(true);
  });
});
