import { describe, expect, it } from "vitest";
import { errorCatalogue, errorCodes, ProxyError, renderError } from "./errors.ts";

describe("renderError", () => {
  it("answers a JSON-RPC client with its request id, -32603 and an ErrorInfo naming the catalogue code", () => {
    const rendered = renderError(new ProxyError("PROXY_UPSTREAM_TIMEOUT"), { kind: "jsonrpc", id: 42, version: "1.0" });
    expect(rendered.status).toBe(504);
    expect(rendered.headers["content-type"]).toBe("application/json");
    expect(JSON.parse(rendered.body)).toEqual({
      jsonrpc: "2.0",
      id: 42,
      error: {
        code: -32603,
        message: errorCatalogue.PROXY_UPSTREAM_TIMEOUT.message,
        data: [
          {
            "@type": "type.googleapis.com/google.rpc.ErrorInfo",
            reason: "PROXY_UPSTREAM_TIMEOUT",
            domain: "a2a-ledger.proxy",
            metadata: { status: "504" },
          },
        ],
      },
    });
  });

  it("answers other clients with the HTTP+JSON error shape, in the content type of their protocol version", () => {
    const v1 = renderError(new ProxyError("PROXY_LEDGER_UNAVAILABLE", undefined, 5), { kind: "http", version: "1.0" });
    expect(v1.status).toBe(503);
    expect(v1.headers).toMatchObject({ "content-type": "application/a2a+json", "retry-after": "5" });
    expect(JSON.parse(v1.body)).toMatchObject({
      error: { code: 503, status: "UNAVAILABLE", details: [{ reason: "PROXY_LEDGER_UNAVAILABLE" }] },
    });
    expect(
      renderError(new ProxyError("PROXY_UPSTREAM_UNREACHABLE"), { kind: "http", version: "0.3" }).headers[
        "content-type"
      ],
    ).toBe("application/json");
  });

  it("has one entry per code, each with a gateway-style status", () => {
    expect(new Set(errorCodes).size).toBe(errorCodes.length);
    for (const code of errorCodes) expect(errorCatalogue[code].status).toBeGreaterThanOrEqual(400);
  });
});
