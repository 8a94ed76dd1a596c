import { describe, expect, it } from "vitest";
import { cardHash } from "@a2a-ledger/core";
import { interfaceUrls, ledgerHeadersOf, maxAgeOf, undoProxyRewrite, workerBaseOf } from "./worker-client.ts";

const workerCard = {
  name: "W",
  url: "http://127.0.0.1:21001/a2a/jsonrpc",
  supportedInterfaces: [
    { url: "http://127.0.0.1:21001/a2a/jsonrpc", protocolBinding: "JSONRPC", protocolVersion: "1.0" },
    { url: "http://127.0.0.1:21001/a2a/rest", protocolBinding: "HTTP+JSON", protocolVersion: "1.0" },
  ],
  additionalInterfaces: [{ url: "http://127.0.0.1:21001/a2a/rest", transport: "HTTP+JSON" }],
  provider: { organization: "N", url: "http://127.0.0.1:21001/elsewhere" },
};
const rewritten = JSON.parse(
  JSON.stringify(workerCard).replace(/"url":"http:\/\/127\.0\.0\.1:21001\/a2a/g, '"url":"http://127.0.0.1:22001/a2a'),
) as Record<string, unknown>;

describe("the card behind a rewriting proxy", () => {
  it("undoes the proxy's rewrite of interface URLs exactly, so the hash is the worker's", () => {
    expect(interfaceUrls(rewritten).every((u) => u.startsWith("http://127.0.0.1:22001/"))).toBe(true);
    const restored = undoProxyRewrite(rewritten, "http://127.0.0.1:22001", "http://127.0.0.1:21001");
    expect(restored).toEqual(workerCard);
    expect(cardHash(restored)).toBe(cardHash(workerCard));
    expect(rewritten.url).toBe("http://127.0.0.1:22001/a2a/jsonrpc");
  });

  it("leaves URLs that are not under the proxy, and prefixes that only look alike, alone", () => {
    const card = {
      supportedInterfaces: [{ url: "http://127.0.0.1:420011/a2a" }, { url: "https://other.example/a2a" }],
    };
    expect(undoProxyRewrite(card, "http://127.0.0.1:22001", "http://w")).toEqual(card);
  });

  it("reads the worker's base URL from a card URL, max-age from Cache-Control, and names the correlation in headers", () => {
    expect(workerBaseOf("http://127.0.0.1:21003/.well-known/agent-card.json")).toBe("http://127.0.0.1:21003");
    expect(workerBaseOf("http://127.0.0.1:21003/card")).toBeNull();
    expect(workerBaseOf(null)).toBeNull();
    expect(maxAgeOf("public, max-age=3600")).toBe(3600);
    expect(maxAgeOf("no-store")).toBeNull();
    expect(maxAgeOf(null)).toBeNull();
    expect(ledgerHeadersOf({ correlationId: "c", skillId: "answer", attempt: 2 })).toEqual({
      "A2A-Ledger-Correlation-Id": "c",
      "A2A-Ledger-Skill-Id": "answer",
      "A2A-Ledger-Attempt": "2",
    });
    expect(ledgerHeadersOf({ correlationId: "c", skillId: null })).toEqual({ "A2A-Ledger-Correlation-Id": "c" });
  });
});
