/**
 * The per-token rate limit on a real ingest server: past A2A_LEDGER_INGEST_RATE_LIMIT requests in a
 * window a token is answered 429 INGEST_RATE_LIMITED with Retry-After, before its body is read; other
 * tokens, the health checks and the documentation go on; without tokens the client address is counted;
 * 0 switches the limit off. Neither the answer nor /metrics names the token.
 */
import { afterEach, describe, expect, it } from "vitest";
import { metricSum } from "@a2a-ledger/env/testing";
import { testServer, type TestServer } from "../test/stack.ts";

const tokenA = "rate-limit-token-a-0123456789";
const tokenB = "rate-limit-token-b-0123456789";
let app: TestServer | undefined;
afterEach(async () => {
  await app?.close();
  app = undefined;
});

/** An empty batch reaches the route (400 INGEST_EMPTY_BATCH) and produces nothing. */
const post = (server: TestServer["server"], token?: string) =>
  server.inject({
    method: "POST",
    url: "/v1/observations",
    headers: {
      "content-type": "application/json",
      ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
    },
    payload: "[]",
  });

describe("ingest rate limit", () => {
  it("answers 429 with Retry-After to the token over its limit, and only to it", async () => {
    app = testServer({
      topic: "ingest.rate-limit.unused",
      tokens: [
        { token: tokenA, observers: ["*"] },
        { token: tokenB, observers: ["*"] },
      ],
      rateLimit: 3,
      rateLimitWindowMs: 60_000,
    });
    for (let i = 0; i < 3; i++)
      expect((await post(app.server, tokenA)).json()).toMatchObject({ code: "INGEST_EMPTY_BATCH" });
    const limited = await post(app.server, tokenA);
    expect(limited.statusCode).toBe(429);
    expect(limited.json()).toMatchObject({ code: "INGEST_RATE_LIMITED" });
    const wait = Number(limited.headers["retry-after"]);
    expect(wait).toBeGreaterThanOrEqual(1);
    expect(wait).toBeLessThanOrEqual(60);
    expect(limited.body).not.toContain(tokenA);
    // Another token has its own count; an unauthenticated request is still 401, not 429.
    expect((await post(app.server, tokenB)).statusCode).toBe(400);
    expect((await post(app.server)).statusCode).toBe(401);
    for (const url of ["/healthz", "/metrics", "/openapi.json", "/docs"]) {
      for (let i = 0; i < 4; i++) expect((await app.server.inject(url)).statusCode, url).toBe(200);
    }
    const metrics = (await app.server.inject("/metrics")).body;
    expect(metricSum(metrics, "ingest_rejects_total", { code: "INGEST_RATE_LIMITED" })).toBe(1);
    expect(metrics).not.toContain(tokenA);
  });

  it("counts the client address when no tokens are configured, and 0 switches the limit off", async () => {
    app = testServer({ topic: "ingest.rate-limit.unused", rateLimit: 2, rateLimitWindowMs: 60_000 });
    expect((await post(app.server)).statusCode).toBe(400);
    expect((await post(app.server)).statusCode).toBe(400);
    expect((await post(app.server)).statusCode).toBe(429);
    await app.close();
    app = testServer({ topic: "ingest.rate-limit.unused", rateLimit: 0 });
    for (let i = 0; i < 50; i++) expect((await post(app.server)).statusCode).toBe(400);
  });

  it("opens the window again once Retry-After has passed", async () => {
    app = testServer({ topic: "ingest.rate-limit.unused", rateLimit: 1, rateLimitWindowMs: 300 });
    expect((await post(app.server)).statusCode).toBe(400);
    const limited = await post(app.server);
    expect(limited.statusCode).toBe(429);
    expect(limited.headers["retry-after"]).toBe("1");
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect((await post(app.server)).statusCode).toBe(400);
  });
});
