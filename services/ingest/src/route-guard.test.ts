/**
 * The bearer guard decides on the route fastify matched: every spelling of POST /v1/observations in the
 * shared battery of @a2a-ledger/env/testing (percent-encoded, re-cased, doubled or trailing slashes,
 * dot segments, `;` parameters, HEAD and OPTIONS) is refused without a token on a real server, while
 * the health checks, /metrics and the documentation stay open under any spelling the router accepts.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rawRequest, runGuardBattery } from "@a2a-ledger/env/testing";
import { testServer, type TestServer } from "../test/stack.ts";

const token = "route-guard-token-0123456789";
let app: TestServer;
let port: number;

beforeAll(async () => {
  app = testServer({ topic: "ingest.route-guard.unused", tokens: [{ token, observers: ["*"] }] });
  await app.server.listen({ host: "127.0.0.1", port: 0 });
  const address = app.server.server.address();
  if (address === null || typeof address === "string") throw new Error("no port");
  port = address.port;
});
afterAll(async () => {
  await app?.close();
});

describe("ingest with tokens, asked by paths that decode or normalize onto POST /v1/observations", () => {
  it("refuses every variant without a token: 401 when it reaches the route, else 404/405; nothing is accepted", async () => {
    // An empty batch: with the token it reaches the route (400 INGEST_EMPTY_BATCH) without producing anything.
    const result = await runGuardBattery(
      port,
      [{ path: "/v1/observations", method: "POST", body: "[]", headers: { "content-type": "application/json" } }],
      { token, unmatchedCodes: ["INGEST_NOT_FOUND", "INGEST_METHOD_NOT_ALLOWED"] },
    );
    expect(result.failures).toEqual([]);
    expect(result.reachedWithToken).toBeGreaterThan(3);
    for (const path of ["/%761/observations", "/v%31/observations", "/v1/%6fbservations"]) {
      const answer = await rawRequest(port, "POST", path, { "content-type": "application/json" }, "[]");
      expect(answer.status, path).toBe(401);
      expect(answer.body).toContain("INGEST_UNAUTHORIZED");
    }
  }, 60_000);

  it("keeps the health check, /metrics and the documentation open", async () => {
    for (const path of ["/healthz", "/h%65althz", "/metrics", "/%6detrics", "/openapi.json", "/docs"])
      expect((await rawRequest(port, "GET", path)).status, path).toBe(200);
  });
});
