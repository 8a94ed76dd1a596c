/**
 * Read tokens (A2A_LEDGER_PROJECTOR_TOKENS): the API, the live stream and /metrics need one; the page's files,
 * /healthz and /readyz stay open; A2A_LEDGER_PROJECTOR_METRICS_OPEN leaves /metrics open; OpenAPI says which.
 * The guard decides on the route fastify matched: percent-encoded, re-cased, doubled-slash and other
 * spellings of a guarded path (the shared battery of @a2a-ledger/env/testing) are refused on a real server.
 */
import { ConfigError } from "@a2a-ledger/env";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rawRequest, runGuardBattery } from "@a2a-ledger/env/testing";
import { loadConfig } from "./config.ts";

import { LiveStream } from "./live-stream.ts";
import { createMetrics } from "./metrics.ts";
import { buildServer } from "./server.ts";
import type { Store } from "./store/store.ts";
import { newStore, useStores } from "../test/stores.ts";

useStores();
const token = "read-token-0123456789abcdef";
let store: Store;
let stream: LiveStream;
const servers: ReturnType<typeof buildServer>[] = [];
const kafka = { endOffsets: async () => [], kafkaReachable: async () => true, consuming: () => true };

function serve(metricsOpen: boolean) {
  const server = buildServer({
    config: {
      policy: { trustedVendors: [] },
      cursorSecret: "a-test-secret-of-16+",
      maxStreams: 2,
      tokens: [token, "other-read-token-01234567"],
      metricsOpen,
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

beforeAll(async () => {
  store = await newStore("sqlite");
  stream = new LiveStream(store);
});
afterAll(async () => {
  for (const s of servers) await s.close();
  stream.stop();
});

describe("a projector with read tokens", () => {
  it("answers 401 with a Bearer challenge on the API, the stream and /metrics without a valid token", async () => {
    const server = serve(false);
    for (const url of [
      "/v1/tasks",
      "/v1/tasks/x",
      "/v1/tasks/x/events.ndjson",
      "/v1/workers",
      "/v1/violations",
      "/v1/queue",
      "/v1/dlq",
      "/v1/staleness",
      "/v1/stream",
      "/metrics",
    ]) {
      for (const authorization of [
        undefined,
        "Bearer wrong-token-0123456789",
        `Bearer ${token}x`,
        `Basic ${token}`,
        token,
      ]) {
        const response = await server.inject({
          method: "GET",
          url,
          headers: authorization === undefined ? {} : { authorization },
        });
        expect(response.statusCode, `${url} ${authorization}`).toBe(401);
        expect(response.json()).toMatchObject({ code: "PROJECTOR_UNAUTHORIZED" });
        expect(response.headers["www-authenticate"]).toMatch(/^Bearer realm=/);
        expect(response.body).not.toContain(token);
      }
    }
  });

  it("answers a path that names no route 404 without a token: the guard decides on the route matched, and there is none", async () => {
    const response = await serve(false).inject({ method: "GET", url: "/v1/nothing" });
    expect(response.statusCode).toBe(404);
    expect(response.json()).toMatchObject({ code: "PROJECTOR_NOT_FOUND" });
  });

  it("serves the API with any configured token", async () => {
    const server = serve(false);
    expect(
      (await server.inject({ method: "GET", url: "/v1/tasks", headers: { authorization: `Bearer ${token}` } }))
        .statusCode,
    ).toBe(200);
    expect(
      (
        await server.inject({
          method: "GET",
          url: "/v1/workers",
          headers: { authorization: "bearer other-read-token-01234567" },
        })
      ).statusCode,
    ).toBe(200);
    expect(
      (await server.inject({ method: "GET", url: "/metrics", headers: { authorization: `Bearer ${token}` } }))
        .statusCode,
    ).toBe(200);
  });

  it("keeps the page's files and the health checks open, and /metrics when A2A_LEDGER_PROJECTOR_METRICS_OPEN says so", async () => {
    const server = serve(true);
    for (const url of [
      "/",
      "/app.js",
      "/api.js",
      "/task-page.js",
      "/app.css",
      "/healthz",
      "/readyz",
      "/openapi.json",
      "/metrics",
    ])
      expect((await server.inject({ method: "GET", url })).statusCode, url).toBe(200);
    expect((await server.inject({ method: "GET", url: "/v1/tasks" })).statusCode).toBe(401);
  });

  it("documents the bearer scheme on exactly the guarded operations", async () => {
    const doc = (await serve(false).inject({ method: "GET", url: "/openapi.json" })).json() as {
      components: { securitySchemes: Record<string, { scheme: string }> };
      paths: Record<string, { get: { security: unknown[]; responses: Record<string, unknown> } }>;
    };
    expect(doc.components.securitySchemes.bearer?.scheme).toBe("bearer");
    for (const [path, item] of Object.entries(doc.paths)) {
      const guarded = path.startsWith("/v1/") || path === "/metrics";
      expect(item.get.security, path).toEqual(guarded ? [{ bearer: [] }] : []);
      expect("401" in item.get.responses, path).toBe(guarded);
    }
    const open = (await serve(true).inject({ method: "GET", url: "/openapi.json" })).json() as {
      paths: Record<string, { get: { security: unknown[] } }>;
    };
    expect(open.paths["/metrics"]?.get.security).toEqual([]);
  });
});

describe("a projector with read tokens, asked by paths that decode or normalize onto a guarded route", () => {
  const guardedPaths = [
    "/v1/tasks",
    "/v1/tasks/x",
    "/v1/tasks/x/events.ndjson",
    "/v1/tasks/x/timeline",
    "/v1/workers",
    "/v1/workers/x",
    "/v1/workers/x/verified-card",
    "/v1/route",
    "/v1/violations",
    "/v1/dlq",
    "/v1/queue",
    "/v1/staleness",
    "/v1/stream",
    "/metrics",
  ];
  const unmatchedCodes = ["PROJECTOR_NOT_FOUND", "PROJECTOR_METHOD_NOT_ALLOWED"];

  async function listening(metricsOpen: boolean): Promise<number> {
    const server = serve(metricsOpen);
    await server.listen({ host: "127.0.0.1", port: 0 });
    const address = server.server.address();
    if (address === null || typeof address === "string") throw new Error("no port");
    return address.port;
  }

  it("refuses every variant without a token: 401 when it reaches a route, else 404/405, never data", async () => {
    const port = await listening(false);
    const result = await runGuardBattery(
      port,
      guardedPaths.map((path) => ({ path })),
      { token, unmatchedCodes },
    );
    expect(result.failures).toEqual([]);
    // The battery is only worth something if encoded variants do reach the routes (fastify decodes them).
    expect(result.reachedWithToken).toBeGreaterThan(guardedPaths.length * 4);
    for (const path of ["/%761/tasks", "/v%31/tasks", "/%761/route", "/%6detrics"])
      expect((await rawRequest(port, "GET", path)).status, path).toBe(401);
  }, 120_000);

  it("serves the public routes, and /metrics under any spelling once A2A_LEDGER_PROJECTOR_METRICS_OPEN opens it", async () => {
    const port = await listening(true);
    for (const path of ["/", "/app.js", "/healthz", "/readyz", "/openapi.json", "/metrics", "/%6detrics", "/h%65althz"])
      expect((await rawRequest(port, "GET", path)).status, path).toBe(200);
    expect((await rawRequest(port, "GET", "/%761/tasks")).status).toBe(401);
  });
});

describe("A2A_LEDGER_PROJECTOR_TOKENS", () => {
  it("is read as a comma-separated list, and a short token is refused without being shown", () => {
    expect(
      loadConfig({
        A2A_LEDGER_PROJECTOR_TOKENS: `${token}, other-read-token-01234567`,
        A2A_LEDGER_PROJECTOR_METRICS_OPEN: "true",
      }),
    ).toMatchObject({ tokens: [token, "other-read-token-01234567"], metricsOpen: true });
    expect(loadConfig({}).tokens).toEqual([]);
    try {
      loadConfig({ A2A_LEDGER_PROJECTOR_TOKENS: "short-secret", A2A_LEDGER_PROJECTOR_METRICS_OPEN: "maybe" });
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(ConfigError);
      expect((e as Error).message).toMatch(/A2A_LEDGER_PROJECTOR_TOKENS/);
      expect((e as Error).message).toMatch(/A2A_LEDGER_PROJECTOR_METRICS_OPEN/);
      expect((e as Error).message).not.toContain("short-secret");
    }
  });
});
