import { describe, expect, it } from "vitest";
import { tokenCheck } from "./auth.ts";

describe("tokenCheck", () => {
  it("allows everything when no token is configured", () => {
    const check = tokenCheck([]);
    expect(check.required).toBe(false);
    expect(check.allows(undefined)).toBe(true);
  });
  it("allows exactly the configured bearer tokens", () => {
    const check = tokenCheck(["token-one-0123456789", "token-two-0123456789"]);
    expect(check.allows("Bearer token-one-0123456789")).toBe(true);
    expect(check.allows("bearer   token-two-0123456789 ")).toBe(true);
    for (const h of [undefined, "", "Bearer", "Bearer ", "token-one-0123456789", "Basic token-one-0123456789", "Bearer token-one-012345678", "Bearer token-one-01234567890", "Bearer token-one-0123456789 extra"]) {
      expect(check.allows(h), String(h)).toBe(false);
    }
  });
});
