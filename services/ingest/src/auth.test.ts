import { describe, expect, it } from "vitest";
import { observerMatcher, parseTokenEntries, scopeOf, tokenCheck, workersOf } from "./auth.ts";

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
    for (const h of [
      undefined,
      "",
      "Bearer",
      "Bearer ",
      "token-one-0123456789",
      "Basic token-one-0123456789",
      "Bearer token-one-012345678",
      "Bearer token-one-01234567890",
      "Bearer token-one-0123456789 extra",
    ]) {
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
    for (const other of ["proxy:W3-run7", "dispatcher", "xproxy:W1-a", "proxy:W1", ""])
      expect(proxy?.mayClaim(other), other).toBe(false);
    expect(check.grant(`Bearer ${dispatcher.token}`)?.mayClaim("dispatcher")).toBe(true);
    expect(check.grant(`Bearer ${dispatcher.token}`)?.mayClaim("dispatcher-2")).toBe(false);
  });

  it("lets a token configured without patterns claim any observer, as tokens always could", () => {
    const legacy = check.grant("Bearer legacy-token-0123456789");
    for (const observer of ["orchestrator", "proxy:W1-x", "dispatcher", "anything at all"])
      expect(legacy?.mayClaim(observer)).toBe(true);
  });

  it("treats pattern characters other than * literally", () => {
    expect(observerMatcher("a.b+(c)")("a.b+(c)")).toBe(true);
    expect(observerMatcher("a.b+(c)")("aXb+(c)")).toBe(false);
    expect(observerMatcher("[x]*")("[x]y")).toBe(true);
    expect(observerMatcher("*")("\n")).toBe(true);
  });

  it("reads TOKEN=PATTERN|PATTERN entries and refuses malformed ones without quoting a token", () => {
    const problems: string[] = [];
    const tokens = parseTokenEntries(
      [
        "proxy-token-0123456789=proxy:*|dispatcher",
        "plain-token-0123456789",
        "short=x",
        "fine-token-0123456789=",
        "dup-token-01234567890=a",
        "dup-token-01234567890=b",
        "bad-token-0123456789=a b",
      ],
      "A2A_LEDGER_INGEST_TOKENS",
      problems,
    );
    expect(tokens.map((t) => t.observers)).toEqual([["proxy:*", "dispatcher"], ["*"], ["a"], ["b"]]);
    expect(problems).toHaveLength(4);
    expect(problems.join("\n")).not.toMatch(/short|fine-token|dup-token|bad-token/);
  });
});

describe("a token's scope: observers, workers, kinds", () => {
  const event = (type: string, observer: string, workerId: string) => ({ type, observer, workerId });
  const proxyW1 = { token: "proxy-w1-token-0123456789", observers: ["proxy:W1-*"] };
  const guardW2 = { token: "guard-w2-token-0123456789", observers: ["guard:W2-*"] };
  const dispatcher = { token: "dispatcher-token-01234", observers: ["dispatcher"] };
  const orchestrator = { token: "orchestrator-token-0123", observers: ["orchestrator:*"] };
  const legacy = "legacy-token-0123456789";
  const check = tokenCheck([proxyW1, guardW2, dispatcher, orchestrator, legacy]);
  const refusal = (token: string, e: ReturnType<typeof event>) => check.grant(`Bearer ${token}`)?.refusal(e)?.code;

  it("binds a proxy's or guard's token to the workers its observer pattern names", () => {
    expect(workersOf("proxy:W1-*")).toBe("W1-*");
    expect(workersOf("guard:W2-run7")).toBe("W2-run7");
    for (const p of ["dispatcher", "orchestrator:*", "*", "proxy:", "proxyW1"]) expect(workersOf(p), p).toBe("*");
    expect(refusal(proxyW1.token, event("TaskStateObserved", "proxy:W1-r1", "W1-r1"))).toBeUndefined();
    expect(refusal(proxyW1.token, event("AgentCardObserved", "proxy:W1-r1", "W1-r1"))).toBeUndefined();
    // The three forgeries: W2's card, a probe result for W2, W2's task states.
    expect(refusal(proxyW1.token, event("AgentCardObserved", "proxy:W1-r1", "W2-r1"))).toBe("INGEST_WORKER_FORBIDDEN");
    expect(refusal(proxyW1.token, event("ProbeCompleted", "proxy:W1-r1", "W2-r1"))).toBe("INGEST_KIND_FORBIDDEN");
    expect(refusal(proxyW1.token, event("TaskStateObserved", "proxy:W1-r1", "W2-r1"))).toBe("INGEST_WORKER_FORBIDDEN");
    expect(refusal(guardW2.token, event("EmissionRefused", "guard:W2-r1", "W2-r1"))).toBeUndefined();
    expect(refusal(guardW2.token, event("EmissionRefused", "guard:W2-r1", "W1-r1"))).toBe("INGEST_WORKER_FORBIDDEN");
  });

  it("takes probe results only from the prober's token, one that may write as dispatcher", () => {
    expect(refusal(dispatcher.token, event("ProbeCompleted", "dispatcher", "W2-r1"))).toBeUndefined();
    expect(refusal(dispatcher.token, event("AgentCardObserved", "dispatcher", "anyone"))).toBeUndefined();
    expect(refusal(orchestrator.token, event("ProbeCompleted", "orchestrator:a", "W2-r1"))).toBe(
      "INGEST_KIND_FORBIDDEN",
    );
    expect(scopeOf(orchestrator).kinds).not.toContain("ProbeCompleted");
    expect(scopeOf(dispatcher).kinds).toContain("ProbeCompleted");
  });

  it("takes an operator's resolution only as operator:<name>, from a token that may write as one", () => {
    const operator = { token: "operator-token-0123456789", observers: ["operator:*"] };
    const ops = tokenCheck([operator, orchestrator, legacy]);
    const refused = (token: string, e: { type: string; observer: string; workerId: string | null }) =>
      ops.grant(`Bearer ${token}`)?.refusal(e)?.code;
    const resolution = (observer: string, workerId: string | null) => ({
      type: "OperatorResolved",
      observer,
      workerId,
    });
    expect(refused(operator.token, resolution("operator:alice", null))).toBeUndefined();
    expect(refused(operator.token, resolution("operator:alice", "W2-r1"))).toBeUndefined();
    expect(scopeOf(operator).kinds).toContain("OperatorResolved");
    // An orchestrator's token may not resolve, even naming a worker it may speak about.
    expect(scopeOf(orchestrator).kinds).not.toContain("OperatorResolved");
    expect(refused(orchestrator.token, resolution("orchestrator:a", "W2-r1"))).toBe("INGEST_KIND_FORBIDDEN");
    // A token that may write as anyone may resolve, but only as an operator.
    expect(refused(legacy, resolution("operator:bob", null))).toBeUndefined();
    expect(refused(legacy, resolution("orchestrator-1", null))).toBe("INGEST_OBSERVER_FORBIDDEN");
    expect(ops.grant(`Bearer ${legacy}`)?.refusal(resolution("orchestrator-1", null))?.message).toContain(
      "written as an operator",
    );
  });

  it("lets an orchestrator's token speak about any worker, and a token without patterns do anything, as before", () => {
    expect(refusal(orchestrator.token, event("AgentCardObserved", "orchestrator:a", "W2-r1"))).toBeUndefined();
    expect(refusal(orchestrator.token, event("TaskDispatched", "orchestrator:a", "W3-r1"))).toBeUndefined();
    expect(refusal(legacy, event("ProbeCompleted", "orchestrator-1", "worker-1"))).toBeUndefined();
  });

  it("refuses the observer before the kind, and the kind before the worker", () => {
    expect(refusal(proxyW1.token, event("ProbeCompleted", "dispatcher", "W2-r1"))).toBe("INGEST_OBSERVER_FORBIDDEN");
    expect(refusal(proxyW1.token, event("ProbeCompleted", "proxy:W1-r1", "W2-r1"))).toBe("INGEST_KIND_FORBIDDEN");
    const message =
      check.grant(`Bearer ${proxyW1.token}`)?.refusal(event("TaskStateObserved", "proxy:W1-r1", "W2-r1"))?.message ??
      "";
    expect(message).toContain("W1-*");
    expect(message).not.toContain(proxyW1.token);
  });

  it("pairs each observer pattern with its own workers, and named workers= bind every observer of the entry", () => {
    const both = tokenCheck([{ token: "both-proxies-0123456789", observers: ["proxy:W1-*", "proxy:W2-*"] }]).grant(
      "Bearer both-proxies-0123456789",
    );
    expect(both?.refusal(event("TaskStateObserved", "proxy:W2-a", "W2-a"))).toBeUndefined();
    expect(both?.refusal(event("TaskStateObserved", "proxy:W1-a", "W2-a"))?.code).toBe("INGEST_WORKER_FORBIDDEN");
    const named = tokenCheck([
      {
        token: "named-workers-0123456789",
        observers: ["edge-proxy"],
        workers: ["acme-*"],
        kinds: ["TaskStateObserved"],
      },
    ]).grant("Bearer named-workers-0123456789");
    expect(named?.refusal(event("TaskStateObserved", "edge-proxy", "acme-1"))).toBeUndefined();
    expect(named?.refusal(event("TaskStateObserved", "edge-proxy", "other-1"))?.code).toBe("INGEST_WORKER_FORBIDDEN");
    expect(named?.refusal(event("ArtifactEmitted", "edge-proxy", "acme-1"))?.code).toBe("INGEST_KIND_FORBIDDEN");
  });
});

describe("TOKEN=OBSERVERS;workers=…;kinds=… entries", () => {
  it("reads the named parts, leaving today's entries as they were", () => {
    const problems: string[] = [];
    const tokens = parseTokenEntries(
      [
        "scoped-token-0123456789=edge:*;workers=acme-*|beta-*;kinds=TaskStateObserved|ArtifactEmitted",
        "proxy-token-0123456789=proxy:W1-*",
        "semi-token-0123456789=odd;name",
        "prober-token-0123456789=dispatcher;kinds=ProbeCompleted",
      ],
      "A2A_LEDGER_INGEST_TOKENS",
      problems,
    );
    expect(problems).toEqual([]);
    expect(tokens[0]).toEqual({
      token: "scoped-token-0123456789",
      observers: ["edge:*"],
      workers: ["acme-*", "beta-*"],
      kinds: ["TaskStateObserved", "ArtifactEmitted"],
    });
    expect(tokens[1]).toEqual({ token: "proxy-token-0123456789", observers: ["proxy:W1-*"] });
    expect(tokens[2]?.observers).toEqual(["odd;name"]);
    expect(tokens[3]?.kinds).toEqual(["ProbeCompleted"]);
  });

  it("refuses unknown kinds, empty worker patterns, a part given twice, and probe results for a token that is not the prober's, never quoting a token", () => {
    const problems: string[] = [];
    const tokens = parseTokenEntries(
      [
        "bad-kind-token-0123456789=x;kinds=TaskState",
        "empty-workers-0123456789=x;workers=",
        "twice-token-0123456789=x;workers=a;workers=b",
        "not-prober-0123456789=proxy:*;kinds=ProbeCompleted",
        "workers-eq-token-01234567=x;workers=a=b",
        "not-operator-0123456789=orchestrator:*;kinds=OperatorResolved",
      ],
      "A2A_LEDGER_INGEST_TOKENS",
      problems,
    );
    expect(tokens).toEqual([]);
    expect(problems).toHaveLength(6);
    expect(problems.join("\n")).toMatch(/entry 6: OperatorResolved is posted only as an operator/);
    expect(problems.join("\n")).toMatch(/entry 1: kinds= names "TaskState"/);
    expect(problems.join("\n")).toMatch(/entry 4: ProbeCompleted is posted only by the prober's token/);
    expect(problems.join("\n")).not.toMatch(/-token-|-workers-|-prober-/);
  });
});
