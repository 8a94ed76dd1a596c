import { describe, expect, it } from "vitest";
import { observerMatcher, parseTokenEntries, tokenCheck } from "./auth.ts";

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

describe("tokens bound to observers", () => {
  const proxies = { token: "proxy-token-0123456789", observers: ["proxy:W1-*", "proxy:W2-*"] };
  const dispatcher = { token: "dispatcher-token-01234", observers: ["dispatcher"] };
  const check = tokenCheck([proxies, dispatcher, "legacy-token-0123456789"]);

  it("grants each token exactly the observers its patterns match", () => {
    const proxy = check.grant(`Bearer ${proxies.token}`);
    expect(proxy?.mayClaim("proxy:W1-run7")).toBe(true);
    expect(proxy?.mayClaim("proxy:W2-")).toBe(true);
    for (const other of ["proxy:W3-run7", "dispatcher", "xproxy:W1-a", "proxy:W1", ""]) expect(proxy?.mayClaim(other), other).toBe(false);
    expect(check.grant(`Bearer ${dispatcher.token}`)?.mayClaim("dispatcher")).toBe(true);
    expect(check.grant(`Bearer ${dispatcher.token}`)?.mayClaim("dispatcher-2")).toBe(false);
  });

  it("lets a token configured without patterns claim any observer, as tokens always could", () => {
    const legacy = check.grant("Bearer legacy-token-0123456789");
    for (const observer of ["orchestrator", "proxy:W1-x", "dispatcher", "anything at all"]) expect(legacy?.mayClaim(observer)).toBe(true);
  });

  it("treats pattern characters other than * literally", () => {
    expect(observerMatcher("a.b+(c)")("a.b+(c)")).toBe(true);
    expect(observerMatcher("a.b+(c)")("aXb+(c)")).toBe(false);
    expect(observerMatcher("[x]*")("[x]y")).toBe(true);
    expect(observerMatcher("*")("\n")).toBe(true);
  });

  it("reads TOKEN=PATTERN|PATTERN entries and refuses malformed ones without quoting a token", () => {
    const problems: string[] = [];
    const tokens = parseTokenEntries(["proxy-token-0123456789=proxy:*|dispatcher", "plain-token-0123456789", "short=x", "fine-token-0123456789=", "dup-token-01234567890=a", "dup-token-01234567890=b", "bad-token-0123456789=a b"], "A2A_LEDGER_INGEST_TOKENS", problems);
    expect(tokens.map((t) => t.observers)).toEqual([["proxy:*", "dispatcher"], ["*"], ["a"], ["b"]]);
    expect(problems).toHaveLength(4);
    expect(problems.join("\n")).not.toMatch(/short|fine-token|dup-token|bad-token/);
  });
});
