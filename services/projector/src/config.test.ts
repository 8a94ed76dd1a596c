import { describe, expect, it } from "vitest";
import { describeRenamedSettings } from "@a2a-ledger/env/testing";
import { configDefaults, loadConfig } from "./config.ts";

describeRenamedSettings({ service: "PROJECTOR", load: loadConfig });

describe("loadConfig: the rate limit", () => {
  it("reads the limit and its window; 0 switches it off, a negative or fractional value is refused", () => {
    expect(loadConfig({})).toMatchObject({
      rateLimit: configDefaults.rateLimit,
      rateLimitWindowMs: configDefaults.rateLimitWindowMs,
    });
    expect(
      loadConfig({ A2A_LEDGER_PROJECTOR_RATE_LIMIT: "0", A2A_LEDGER_PROJECTOR_RATE_LIMIT_WINDOW_MS: "1000" }),
    ).toMatchObject({ rateLimit: 0, rateLimitWindowMs: 1000 });
    expect(() => loadConfig({ A2A_LEDGER_PROJECTOR_RATE_LIMIT: "-1" })).toThrow(/A2A_LEDGER_PROJECTOR_RATE_LIMIT\b/);
    expect(() => loadConfig({ A2A_LEDGER_PROJECTOR_RATE_LIMIT_WINDOW_MS: "1.5" })).toThrow(
      /A2A_LEDGER_PROJECTOR_RATE_LIMIT_WINDOW_MS/,
    );
  });
});

describe("loadConfig: the cursor secret", () => {
  it("takes any 16 characters, line breaks too, and refuses fewer without showing them", () => {
    expect(loadConfig({ A2A_LEDGER_PROJECTOR_CURSOR_SECRET: "first line\nsecond line" }).cursorSecret).toBe(
      "first line\nsecond line",
    );
    expect(() => loadConfig({ A2A_LEDGER_PROJECTOR_CURSOR_SECRET: "too short" })).toThrow(
      /A2A_LEDGER_PROJECTOR_CURSOR_SECRET must be at least 16 characters \(value not shown\)/,
    );
  });
});
