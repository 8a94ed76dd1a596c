/**
 * The per-token rate limit of the read API (A2A_LEDGER_PROJECTOR_RATE_LIMIT): past the limit in a window a
 * read token is answered 429 PROJECTOR_RATE_LIMITED with Retry-After; other tokens, the page's files and
 * the health checks go on; without tokens the client address is counted; 0 switches the limit off. The
 * OpenAPI document declares the 429 on every guarded operation.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { metricSum } from "@a2a-ledger/env/testing";
import { LiveStream } from "./live-stream.ts";
import { createMetrics } from "./metrics.ts";
import { buildServer } from "./server.ts";
import type { Store } from "./store/store.ts";
import { newStore, useStores } from "../test/stores.ts";

useStores();
const token = "rate-read-token-0123456789";
const other = "rate-read-token-other-01234";
let store: Store;
let stream: LiveStream;
const servers: ReturnType<typeof buildServer>[] = [];
const kafka = { endOffsets: async () => [], kafkaReachable: async () => true, consuming: () => true };

function serve(options: { tokens?: string[]; rateLimit: number; rateLimitWindowMs?: number }) {
  const server = buildServer({
    config: {
      policy: { trustedVendors: [] },
      cursorSecret: "a-test-secret-of-16+",
      maxStreams: 2,
      rateLimitWindowMs: 60_000,
      ...options,
    },
    store,
    stream,
    metrics: createMetrics(),
    kafka,
    logger: false,
  });
  servers.push(server);
  return server;
}
const get = (server: ReturnType<typeof buildServer>, url: string, bearer?: string) =>
  server.inject({ method: "GET", url, headers: bearer === undefined ? {} : { authorization: `Bearer ${bearer}` } });

beforeAll(async () => {
  store = await newStore("sqlite");
  stream = new LiveStream(store);
});
afterAll(async () => {
  for (const s of servers) await s.close();
  stream.stop();
});

describe("the projector's rate limit", () => {
  it("answers 429 with Retry-After to the read token over its limit, and only to it", async () => {
    const server = serve({ tokens: [token, other], rateLimit: 3 });
    for (let i = 0; i < 3; i++) expect((await get(server, "/v1/tasks", token)).statusCode).toBe(200);
    const limited = await get(server, "/v1/workers", token);
    expect(limited.statusCode).toBe(429);
    expect(limited.json()).toMatchObject({ code: "PROJECTOR_RATE_LIMITED" });
    expect(Number(limited.headers["retry-after"])).toBeGreaterThanOrEqual(1);
    expect(Number(limited.headers["retry-after"])).toBeLessThanOrEqual(60);
    expect(limited.body).not.toContain(token);
    expect((await get(server, "/v1/tasks", other)).statusCode).toBe(200);
    expect((await get(server, "/v1/tasks")).statusCode).toBe(401);
    for (const url of ["/", "/healthz", "/openapi.json"])
      for (let i = 0; i < 4; i++) expect((await get(server, url)).statusCode, url).toBe(200);
    const metrics = await get(server, "/metrics", other);
    expect(metricSum(metrics.body, "a2a_projector_http_rejects_total", { code: "PROJECTOR_RATE_LIMITED" })).toBe(1);
    expect(metrics.body).not.toContain(token);
  });

  it("counts the client address without tokens, and 0 switches the limit off", async () => {
    const limited = serve({ rateLimit: 2 });
    expect((await get(limited, "/v1/tasks")).statusCode).toBe(200);
    expect((await get(limited, "/v1/tasks")).statusCode).toBe(200);
    expect((await get(limited, "/v1/tasks")).statusCode).toBe(429);
    const open = serve({ rateLimit: 0 });
    for (let i = 0; i < 50; i++) expect((await get(open, "/v1/tasks")).statusCode).toBe(200);
  });

  it("declares the 429 with Retry-After on every guarded operation of its OpenAPI document", async () => {
    const document = (await get(serve({ rateLimit: 1 }), "/openapi.json")).json() as {
      paths: Record<string, { get: { responses: Record<string, { headers?: Record<string, unknown> }> } }>;
    };
    for (const [path, item] of Object.entries(document.paths)) {
      const limitedHere = path.startsWith("/v1/") || path === "/metrics";
      expect(item.get.responses["429"]?.headers?.["Retry-After"] !== undefined, path).toBe(limitedHere);
    }
  });
});
