import { afterAll, describe, expect, it } from "vitest";
import { createMetrics } from "./metrics.ts";
import { buildServer } from "./server.ts";

let running = true;
const metrics = createMetrics();
const app = buildServer({
  metrics,
  logLevel: "silent",
  health: () => ({ running, detail: { commands: { done: 2 } } }),
});
afterAll(() => app.close());

describe("the dispatcher's HTTP surface", () => {
  it("serves Prometheus metrics with the dispatcher's counters", async () => {
    metrics.alerts.inc({ code: "DISPATCHER_WORKER_NOT_CONFIGURED" });
    const response = await app.inject({ method: "GET", url: "/metrics" });
    expect(response.statusCode).toBe(200);
    expect(response.headers["content-type"]).toMatch(/^text\/plain/);
    expect(response.body).toContain('a2a_dispatcher_alerts_total{code="DISPATCHER_WORKER_NOT_CONFIGURED"} 1');
  });

  it("answers /healthz 200 while consuming and 503 with a stable code otherwise", async () => {
    expect((await app.inject({ method: "GET", url: "/healthz" })).json()).toEqual({
      status: "ok",
      commands: { done: 2 },
    });
    running = false;
    const down = await app.inject({ method: "GET", url: "/healthz" });
    running = true;
    expect(down.statusCode).toBe(503);
    expect(down.json()).toMatchObject({ code: "DISPATCHER_UNHEALTHY" });
  });

  it("serves its OpenAPI document, naming exactly the routes it serves", async () => {
    const doc = (await app.inject({ method: "GET", url: "/openapi.json" })).json() as {
      openapi: string;
      paths: Record<string, unknown>;
    };
    expect(doc.openapi).toBe("3.1.0");
    expect(Object.keys(doc.paths).sort()).toEqual(["/healthz", "/metrics"]);
  });

  it("answers unknown routes, other methods and hostile paths with the catalogue's codes", async () => {
    const notFound = await app.inject({ method: "GET", url: "/v1/commands/../../etc/passwd" });
    expect(notFound.statusCode).toBe(404);
    expect(notFound.json()).toMatchObject({ code: "DISPATCHER_NOT_FOUND" });
    const post = await app.inject({ method: "POST", url: "/healthz", payload: "x".repeat(10_000) });
    expect([405, 413]).toContain(post.statusCode);
    const del = await app.inject({ method: "DELETE", url: "/metrics" });
    expect(del.statusCode).toBe(405);
    expect(del.headers.allow).toBe("GET, HEAD");
    expect(del.json()).toMatchObject({ code: "DISPATCHER_METHOD_NOT_ALLOWED" });
    for (const [method, url] of [
      ["TRACE", "/healthz"],
      ["QUERY", "/metrics"],
      ["PUT", "/openapi.json"],
    ] as const) {
      const response = await app.inject({ method, url });
      expect(response.statusCode, `${method} ${url}`).toBe(405);
      expect(response.headers.allow).toBe("GET, HEAD");
    }
    const weird = await app.inject({ method: "GET", url: `/${"%00".repeat(500)}` });
    expect(weird.statusCode).toBe(404);
  });
});
