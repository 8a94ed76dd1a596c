/**
 * The HTTP contract on the real server (Kafka sink, registry serde): 401, 413, 415, health,
 * readiness, metrics, the OpenAPI document and the docs page.
 */
import { describe, expect, it } from "vitest";
import { observation, sizedObservation } from "../test/observations.ts";
import { endOffsetSum, servedTopic, testServer } from "../test/stack.ts";
import { avroSchemas } from "@a2a-ledger/schemas";

const token = "s3cret-token-0123456789";
const served = servedTopic("contract", {
  tokens: [
    { token, observers: ["*"] },
    { token: "another-token-abcdefgh", observers: ["*"] },
  ],
  maxBodyBytes: 64 * 1024,
  maxEvents: 10,
  maxRecordBytes: 8 * 1024,
});

const one = (i = 2) => JSON.stringify(observation(`contract-${Date.now()}`, i, "c-contract"));
const post = (payload: string | Buffer, headers: Record<string, string>) =>
  served.app.server.inject({ method: "POST", url: "/v1/observations", headers, payload });
const authorized = { "content-type": "application/json", authorization: `Bearer ${token}` };

describe("authentication", () => {
  it("answers 401 without a token, with a wrong one, or with another scheme, and produces nothing", async () => {
    const before = await endOffsetSum(served.admin, served.topic);
    for (const authorization of [
      undefined,
      "Bearer wrong",
      `Bearer ${token}x`,
      `Bearer ${token.slice(0, -1)}`,
      `Basic ${token}`,
      token,
      "Bearer ",
    ]) {
      const headers: Record<string, string> = { "content-type": "application/json" };
      if (authorization !== undefined) headers["authorization"] = authorization;
      const response = await post(one(), headers);
      expect(response.statusCode, authorization).toBe(401);
      expect(response.json()).toMatchObject({ code: "INGEST_UNAUTHORIZED" });
      expect(response.headers["www-authenticate"]).toMatch(/^Bearer/);
    }
    expect(await endOffsetSum(served.admin, served.topic)).toBe(before);
  });

  it("accepts any configured token, and checks it before reading the body", async () => {
    expect((await post(one(), authorized)).statusCode).toBe(202);
    expect((await post(one(), { ...authorized, authorization: "bearer another-token-abcdefgh" })).statusCode).toBe(202);
    // An unauthenticated oversized body is refused as unauthenticated: it was never read.
    const big = await post(Buffer.alloc(200 * 1024, 0x20), { "content-type": "application/json" });
    expect(big.statusCode).toBe(401);
  });
});

describe("limits and media types", () => {
  it("answers 413 over the byte limit, the event count and the record size", async () => {
    const bytes = await post(JSON.stringify([{ pad: "x".repeat(70 * 1024) }]), authorized);
    expect(bytes.statusCode).toBe(413);
    expect(bytes.json()).toMatchObject({ code: "INGEST_BODY_TOO_LARGE" });
    const count = await post(
      JSON.stringify(Array.from({ length: 11 }, (_, i) => observation("contract", i, "c"))),
      authorized,
    );
    expect(count.statusCode).toBe(413);
    expect(count.json()).toMatchObject({ code: "INGEST_TOO_MANY_EVENTS" });
    const ndjsonCount = await post(
      Array.from({ length: 11 }, (_, i) => JSON.stringify(observation("contract", i, "c"))).join("\n"),
      { ...authorized, "content-type": "application/x-ndjson" },
    );
    expect(ndjsonCount.json()).toMatchObject({ code: "INGEST_TOO_MANY_EVENTS" });
    const record = await post(
      JSON.stringify([observation("contract", 2, "c"), sizedObservation("contract", 7, "c", 9_000)]),
      authorized,
    );
    expect(record.statusCode).toBe(413);
    expect(record.json()).toMatchObject({ code: "INGEST_EVENT_TOO_LARGE", details: [{ index: 1 }] });
  });

  it("answers 415 for other content types and charsets, accepts JSON and NDJSON with parameters", async () => {
    for (const contentType of [
      "text/plain",
      "application/xml",
      "application/json; charset=iso-8859-1",
      "application/octet-stream",
    ]) {
      const response = await post(one(), { ...authorized, "content-type": contentType });
      expect(response.statusCode, contentType).toBe(415);
      expect(response.json()).toMatchObject({ code: "INGEST_UNSUPPORTED_MEDIA_TYPE" });
    }
    expect((await post(one(), { ...authorized, "content-type": "application/json; charset=utf-8" })).statusCode).toBe(
      202,
    );
    expect(
      (await post(`${one(1)}\n\n${one(3)}\n`, { ...authorized, "content-type": "application/x-ndjson" })).json(),
    ).toEqual({ accepted: 2 });
  });

  it("rejects a whole batch with every issue at its index and path", async () => {
    const good = observation("contract", 2, "c");
    const response = await post(
      JSON.stringify([good, { ...good, state: "sleeping" }, good, { ...good, workerId: 7, extra: true }]),
      authorized,
    );
    expect(response.statusCode).toBe(400);
    const body = response.json() as { code: string; details: { index: number; path: string }[] };
    expect(body.code).toBe("INGEST_INVALID_EVENT");
    expect(body.details.map((d) => `${d.index}:${d.path}`).sort()).toEqual(["1:state", "3:extra", "3:workerId"]);
  });
});

describe("operations endpoints", () => {
  it("reports health, readiness of Kafka and the registry, and echoes a request id", async () => {
    expect((await served.app.server.inject({ url: "/healthz" })).json()).toEqual({ status: "ok" });
    const ready = await served.app.server.inject({ url: "/readyz" });
    expect(ready.statusCode, ready.body).toBe(200);
    expect(ready.json()).toMatchObject({ kafka: true, registry: true });
    const withId = await served.app.server.inject({ url: "/healthz", headers: { "x-request-id": "req-42" } });
    expect(withId.headers["x-request-id"]).toBe("req-42");
  });

  it("is not ready when Kafka is unreachable", async () => {
    const unreachable = testServer({ topic: served.topic, brokers: "127.0.0.1:1", produceTimeoutMs: 500 });
    try {
      const ready = await unreachable.server.inject({ url: "/readyz" });
      expect(ready.statusCode).toBe(503);
      expect(ready.json()).toMatchObject({ kafka: false, registry: true });
      const post503 = await unreachable.server.inject({
        method: "POST",
        url: "/v1/observations",
        headers: { "content-type": "application/json" },
        payload: one(),
      });
      expect(post503.statusCode).toBe(503);
      expect(post503.json()).toMatchObject({ code: "INGEST_KAFKA_UNAVAILABLE" });
      expect(post503.headers["retry-after"]).toBe("5");
    } finally {
      await unreachable.close();
    }
  });

  it("exposes Prometheus metrics: requests, events, produce latency and rejects by code", async () => {
    const text = (await served.app.server.inject({ url: "/metrics" })).body;
    expect(text).toMatch(/ingest_http_requests_total\{route="\/v1\/observations",method="POST",status="202"\} \d+/);
    expect(text).toMatch(/ingest_events_accepted_total [1-9]/);
    expect(text).toMatch(/ingest_produce_duration_seconds_bucket\{le="0.1",outcome="acknowledged"\} [1-9]/);
    expect(text).toMatch(/ingest_rejects_total\{code="INGEST_UNAUTHORIZED"\} [1-9]/);
    expect(text).toMatch(/ingest_rejects_total\{code="INGEST_INVALID_EVENT"\} [1-9]/);
  });

  it("serves an OpenAPI document and a docs page generated from the Avro schemas", async () => {
    const doc = (await served.app.server.inject({ url: "/openapi.json" })).json() as {
      openapi: string;
      components: { schemas: Record<string, { properties?: Record<string, unknown> }> };
      paths: Record<string, { post?: { security: unknown[] } }>;
    };
    expect(doc.openapi).toBe("3.1.0");
    expect(doc.paths["/v1/observations"]?.post?.security).toEqual([{ bearer: [] }]);
    for (const [typeName, schema] of Object.entries(avroSchemas.observations)) {
      const fields = (schema as { fields: readonly { name: string }[] }).fields.map((f) => f.name);
      expect(
        Object.keys(doc.components.schemas[typeName]?.properties ?? {}).filter((f) => f !== "type" && f !== "mimeType"),
        typeName,
      ).toEqual(fields);
    }
    const page = await served.app.server.inject({ url: "/docs" });
    expect(page.headers["content-type"]).toMatch(/text\/html/);
    expect(page.body).toContain("TaskStateObserved");
    expect(page.body).toContain("INGEST_KAFKA_UNAVAILABLE");
  });

  it("answers unknown routes with a stable code", async () => {
    const response = await served.app.server.inject({ url: "/v2/nothing" });
    expect(response.statusCode).toBe(404);
    expect(response.json()).toMatchObject({ code: "INGEST_NOT_FOUND" });
  });
});
