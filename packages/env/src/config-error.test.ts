import { describe, expect, it } from "vitest";
import { ConfigError } from "./config-error.ts";
import { envReader } from "./env-reader.ts";

describe("a configuration error", () => {
  it("lists every problem under the service's code, one line each", () => {
    const reader = envReader({ A2A_LEDGER_SVC_PORT: "x", A2A_LEDGER_SVC_OPEN: "yes" });
    reader.int("A2A_LEDGER_SVC_PORT", 1, 0, 65_535);
    reader.bool("A2A_LEDGER_SVC_OPEN");
    const error = new ConfigError("svc", "SVC_CONFIG_INVALID", reader.problems);
    expect(error).toBeInstanceOf(Error);
    expect(error.code).toBe("SVC_CONFIG_INVALID");
    expect(error.problems).toHaveLength(2);
    expect(error.message).toBe(
      [
        "Invalid svc configuration:",
        '  - A2A_LEDGER_SVC_PORT="x" must be an integer from 0 to 65535',
        '  - A2A_LEDGER_SVC_OPEN="yes" must be true or false',
      ].join("\n"),
    );
  });
});
