import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { errorCatalogue, errorCodes } from "./errors.ts";
import { LiveStream } from "./live-stream.ts";
import { createMetrics } from "./metrics.ts";
import { buildServer } from "./server.ts";
import { activeGeneration } from "./store/generations.ts";
import type { Store } from "./store/store.ts";
import { taskStatuses } from "./views/rows.ts";
import { writeBatch } from "./views/writer.ts";
import { newStore, useStores } from "../test/stores.ts";
import { inputsFor, story } from "../test/story.ts";

useStores();
let store: Store;
let server: ReturnType<typeof buildServer>;
let stream: LiveStream;

beforeAll(async () => {
  store = await newStore("sqlite");
  const gen = (await store.read(activeGeneration)) as number;
  for (const { topic, partition, inputs } of inputsFor(story()))
    await writeBatch(store, gen, topic, partition, inputs, { lowWatermark: 0 });
  stream = new LiveStream(store);
  // The HTTP contract is about requests; Kafka's side (/readyz, staleness) is covered by the pipeline tests.
  const kafka = { endOffsets: async () => [], kafkaReachable: async () => true, consuming: () => true };
  server = buildServer({
    config: { policy: { trustedVendors: [] }, cursorSecret: "a-test-secret-of-16+", maxStreams: 1 },
    store,
    stream,
    metrics: createMetrics(),
    kafka,
    logger: false,
  });
});
afterAll(async () => {
  await server.close();
  stream.stop();
});

const get = async (url: string) => {
  const response = await server.inject({ method: "GET", url });
  return {
    status: response.statusCode,
    body: response.headers["content-type"]?.toString().startsWith("application/json")
      ? (response.json() as { code?: string; parameter?: string } & Record<string, unknown>)
      : { text: response.body },
  };
};

describe("bad requests get a 4xx with a stable code and reach no SQL unparameterised", () => {
  it.each([
    ["/v1/tasks/nope", 404, "PROJECTOR_UNKNOWN_TASK"],
    ["/v1/tasks/nope/events.ndjson", 404, "PROJECTOR_UNKNOWN_TASK"],
    ["/v1/workers/nope", 404, "PROJECTOR_UNKNOWN_WORKER"],
    ["/v1/nothing", 404, "PROJECTOR_NOT_FOUND"],
    ["/v1/tasks?status=lost", 400, "PROJECTOR_BAD_FILTER"],
    ["/v1/tasks?status=running%27%20OR%201%3D1--", 400, "PROJECTOR_BAD_FILTER"],
    ["/v1/tasks?since=yesterday", 400, "PROJECTOR_BAD_FILTER"],
    ["/v1/tasks?since=2025-06-02T09:00:00", 400, "PROJECTOR_BAD_FILTER"],
    ["/v1/tasks?limit=0", 400, "PROJECTOR_BAD_FILTER"],
    ["/v1/tasks?since=8640000000000000", 400, "PROJECTOR_BAD_FILTER"],
    ["/v1/tasks?since=2025-02-29T00:00:00Z", 400, "PROJECTOR_BAD_FILTER"],
    [`/v1/tasks?cursor=${"a".repeat(30)}.${"b".repeat(23)}`, 400, "PROJECTOR_BAD_CURSOR"],
    ["/v1/dlq?reason=" + "A".repeat(101), 400, "PROJECTOR_BAD_FILTER"],
    ["/v1/tasks?limit=100000", 400, "PROJECTOR_BAD_FILTER"],
    ["/v1/tasks?limit=1;DROP%20TABLE%20projector_active", 400, "PROJECTOR_BAD_FILTER"],
    ["/v1/tasks?sort=desc", 400, "PROJECTOR_UNKNOWN_PARAMETER"],
    ["/v1/tasks?status=running&status=failed", 400, "PROJECTOR_UNKNOWN_PARAMETER"],
    ["/v1/tasks?cursor=abc", 400, "PROJECTOR_BAD_CURSOR"],
    ["/v1/tasks?cursor=eyJzIjoidGFza3M6W10iLCJwIjpbMSwieCJdfQ.AAAAAAAAAAAAAAAAAAAAAAAA", 400, "PROJECTOR_BAD_CURSOR"],
    [`/v1/tasks?cursor=${"a".repeat(5000)}.b`, 400, "PROJECTOR_BAD_CURSOR"],
    ["/v1/tasks?q=%00", 400, "PROJECTOR_BAD_FILTER"],
    [`/v1/tasks?q=${"x".repeat(513)}`, 400, "PROJECTOR_BAD_FILTER"],
    ["/v1/violations?kind=EVERYTHING", 400, "PROJECTOR_BAD_FILTER"],
    ["/v1/dlq?reason=a'b", 400, "PROJECTOR_BAD_FILTER"],
    ["/v1/tasks/%01bell", 400, "PROJECTOR_BAD_ID"],
    [`/v1/tasks/${"y".repeat(600)}`, 400, "PROJECTOR_BAD_ID"],
    ["/v1/workers/w-acme?verbose=1", 400, "PROJECTOR_UNKNOWN_PARAMETER"],
    ["/v1/stream?workerId=%1b", 400, "PROJECTOR_BAD_FILTER"],
  ])("GET %s → %i %s", async (url, status, code) => {
    const { status: got, body } = await get(url);
    expect(got).toBe(status);
    expect(body.code).toBe(code);
    expect(errorCatalogue[code as keyof typeof errorCatalogue].status).toBe(status);
  });

  it("treats injection attempts through ids and filters as plain values: nothing found, nothing changed", async () => {
    for (const hostile of [
      "task-42' OR '1'='1",
      'task-42"; DROP TABLE projector_active; --',
      "%' OR 1=1 --",
      "task-42) UNION SELECT * FROM projector_generation --",
    ]) {
      expect((await get(`/v1/tasks/${encodeURIComponent(hostile)}`)).status).toBe(404);
      const list = await get(`/v1/tasks?q=${encodeURIComponent(hostile)}&workerId=${encodeURIComponent(hostile)}`);
      expect(list.status).toBe(200);
      expect(list.body.items).toEqual([]);
      expect((await get(`/v1/violations?workerId=${encodeURIComponent(hostile)}`)).body.items).toEqual([]);
    }
    expect((await get("/v1/tasks/task-42")).status).toBe(200);
  });

  it("takes what its OpenAPI document allows: ids of 512 characters outside the BMP, times before 1970, any date-time with an offset", async () => {
    const astral = "\u{1F600}".repeat(512);
    expect((await get(`/v1/tasks?workerId=${encodeURIComponent(astral)}&q=${encodeURIComponent(astral)}`)).status).toBe(
      200,
    );
    expect((await get(`/v1/tasks/${encodeURIComponent(astral)}`)).status).toBe(404);
    expect((await get(`/v1/tasks/${encodeURIComponent(`${astral}x`)}`)).body.code).toBe("PROJECTOR_BAD_ID");
    expect((await get("/v1/tasks?since=-5&until=999999999999999")).status).toBe(200);
    expect((await get(`/v1/tasks?since=${encodeURIComponent("0001-01-01t00:00:00,5-23:59")}`)).status).toBe(200);
  });

  it("refuses a cursor issued for other filters, and one whose position was altered", async () => {
    const first = await get("/v1/violations?limit=1");
    const cursor = String(first.body.nextCursor);
    expect((await get(`/v1/violations?limit=1&cursor=${cursor}`)).status).toBe(200);
    expect((await get(`/v1/violations?limit=1&kind=DIVERGENT_ARTIFACTS&cursor=${cursor}`)).body.code).toBe(
      "PROJECTOR_BAD_CURSOR",
    );
    expect((await get(`/v1/tasks?cursor=${cursor}`)).body.code).toBe("PROJECTOR_BAD_CURSOR");
    const [body, signature] = cursor.split(".") as [string, string];
    const altered = Buffer.from(
      JSON.stringify({ ...JSON.parse(Buffer.from(body, "base64url").toString()), p: [0, "zzz"] }),
    ).toString("base64url");
    expect((await get(`/v1/violations?limit=1&cursor=${altered}.${signature}`)).body.code).toBe("PROJECTOR_BAD_CURSOR");
  });

  it("answers other methods with 405 (read-only), and hostile bodies do not get parsed", async () => {
    const post = await server.inject({ method: "POST", url: "/v1/tasks", payload: { any: "thing" } });
    expect(post.statusCode).toBe(405);
    expect(post.json()).toMatchObject({ code: "PROJECTOR_METHOD_NOT_ALLOWED" });
    expect(post.headers.allow).toBe("GET, HEAD");
    const big = await server.inject({
      method: "DELETE",
      url: "/v1/tasks/task-42",
      headers: { "content-type": "application/json" },
      payload: "x".repeat(100_000),
    });
    expect(big.statusCode).toBeGreaterThanOrEqual(400);
    expect(big.statusCode).toBeLessThan(500);
    expect((await server.inject({ method: "PUT", url: "/v1/elsewhere" })).json()).toMatchObject({
      code: "PROJECTOR_NOT_FOUND",
    });
    // Every method on every path the server serves, not only the common ones.
    for (const [method, url] of [
      ["TRACE", "/healthz"],
      ["QUERY", "/v1/tasks/x/timeline"],
      ["OPTIONS", "/v1/stream"],
      ["PATCH", "/openapi.json"],
      ["DELETE", "/"],
    ] as const) {
      const response = await server.inject({ method, url });
      expect(response.statusCode, `${method} ${url}`).toBe(405);
      expect(response.headers.allow, `${method} ${url}`).toBe("GET, HEAD");
    }
  });

  it("documents every error code in its OpenAPI document", async () => {
    const openapi = (await server.inject({ method: "GET", url: "/openapi.json" })).json() as {
      components: { schemas: { Error: { properties: { code: { enum: string[] } } } } };
    };
    expect(openapi.components.schemas.Error.properties.code.enum).toEqual(errorCodes);
  });

  it("documents every task status in its OpenAPI document, takes each as a filter, and reports the queue per status", async () => {
    const openapi = (await server.inject({ method: "GET", url: "/openapi.json" })).json() as {
      paths: { "/v1/tasks": { get: { parameters: { name: string; schema: { enum?: string[] } }[] } } };
    };
    const status = openapi.paths["/v1/tasks"].get.parameters.find((p) => p.name === "status");
    expect(status?.schema.enum).toEqual([...taskStatuses]);
    expect(taskStatuses).toContain("expired");
    for (const s of taskStatuses) expect((await get(`/v1/tasks?status=${s}`)).status, s).toBe(200);
    const queue = await get("/v1/queue");
    expect(queue.body.counts).toEqual({ indeterminate: 0, blocked: 0, expired: 0 });
    const metrics = (await server.inject({ method: "GET", url: "/metrics" })).body;
    for (const s of ["indeterminate", "blocked", "expired"]) {
      expect(metrics).toContain(`a2a_projector_waiting_tasks{status="${s}"} 0`);
      expect(metrics).toContain(`a2a_projector_oldest_waiting_seconds{status="${s}"} 0`);
    }
  });

  it("limits live streams per instance", async () => {
    const address = await server.listen({ host: "127.0.0.1", port: 0 });
    const controller = new AbortController();
    const first = await fetch(`${address}/v1/stream`, { signal: controller.signal });
    expect(first.status).toBe(200);
    const second = await fetch(`${address}/v1/stream`);
    expect(second.status).toBe(503);
    expect(await second.json()).toMatchObject({ code: "PROJECTOR_TOO_MANY_STREAMS" });
    controller.abort();
  });
});
