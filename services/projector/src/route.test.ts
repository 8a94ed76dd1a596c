import { replayLog, route, defaultRuleSet } from "@a2a-ledger/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LiveStream } from "./live-stream.ts";
import { createMetrics } from "./metrics.ts";
import { buildServer } from "./server.ts";
import { activeGeneration } from "./store/generations.ts";
import type { Store } from "./store/store.ts";
import { writeBatch } from "./views/writer.ts";
import { newStore, useStores } from "../test/stores.ts";
import { inputsFor, story } from "../test/story.ts";

useStores();
let store: Store;
let server: ReturnType<typeof buildServer>;
let stream: LiveStream;
const now = Date.UTC(2026, 0, 1);

beforeAll(async () => {
  store = await newStore("sqlite");
  const gen = (await store.read(activeGeneration)) as number;
  for (const { topic, partition, inputs } of inputsFor(story()))
    await writeBatch(store, gen, topic, partition, inputs, { lowWatermark: 0 });
  stream = new LiveStream(store);
  const kafka = { endOffsets: async () => [], kafkaReachable: async () => true, consuming: () => true };
  server = buildServer({
    config: { policy: { trustedVendors: ["Acme"] }, cursorSecret: "a-test-secret-of-16+", maxStreams: 1 },
    store,
    stream,
    metrics: createMetrics(),
    kafka,
    logger: false,
    now: () => now,
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
    headers: response.headers,
    body: response.json() as Record<string, unknown> & {
      code?: string;
      workers?: { workerId: string; rank: number; validFrom: string }[];
      ineligible?: { workerId: string; reason: string }[];
    },
  };
};

describe("GET /v1/route", () => {
  it("answers what the core's route answers on the reconciler's capability table for the same log", async () => {
    const { capabilities } = replayLog(story(), defaultRuleSet);
    for (const [query, expected] of [
      [
        "skill=summarize&state=input-required",
        { skillId: "summarize", state: "TASK_STATE_INPUT_REQUIRED" as const, accept: [] },
      ],
      [
        "skill=summarize&accept=text/markdown,application/json",
        { skillId: "summarize", state: null, accept: ["text/markdown", "application/json"] },
      ],
      [
        "skill=summarize&state=TASK_STATE_WORKING&accept=text/*",
        { skillId: "summarize", state: "TASK_STATE_WORKING" as const, accept: ["text/*"] },
      ],
    ] as const) {
      const { status, body } = await get(`/v1/route?${query}`);
      expect(status, query).toBe(200);
      const core = route(capabilities, { ...expected, at: now }, { trustedVendors: ["Acme"] });
      expect(
        body.workers?.map((w) => [w.workerId, w.rank]),
        query,
      ).toEqual(core.workers.map((w) => [w.workerId, w.rank]));
      expect(body.ineligible, query).toEqual(core.ineligible);
      expect(body.workers?.map((w) => w.validFrom)).toEqual(
        core.workers.map((w) => new Date(w.validFrom).toISOString()),
      );
      expect(body.at).toBe(new Date(now).toISOString());
    }
  });

  it("names workers that verified the interrupted state, and reasons for the others", async () => {
    const { body } = await get("/v1/route?skill=summarize&state=input-required");
    expect(body.resume).toBe(true);
    expect((body.workers ?? []).length).toBeGreaterThan(0);
    expect(body.eligibleCount).toBe(body.workers?.length);
    expect(body.ineligible?.some((v) => v.reason.includes("lack TASK_STATE_INPUT_REQUIRED"))).toBe(true);
  });

  it("is 200 with an empty list and every worker's reason when none is eligible", async () => {
    const { status, body } = await get("/v1/route?skill=translate");
    expect(status).toBe(200);
    expect(body.workers).toEqual([]);
    expect(body.ineligible?.length).toBeGreaterThan(0);
    for (const v of body.ineligible ?? []) expect(v.reason).toBe("the card in force does not offer skill translate");
  });

  it("caps both lists at limit and still counts them all", async () => {
    const { body } = await get("/v1/route?skill=translate&limit=1");
    expect(body.ineligible).toHaveLength(1);
    expect(body.ineligibleCount).toBeGreaterThan(1);
  });

  it.each([
    ["/v1/route?state=failed", "PROJECTOR_BAD_FILTER"],
    ["/v1/route?state=sleeping", "PROJECTOR_BAD_FILTER"],
    ["/v1/route?accept=text", "PROJECTOR_BAD_FILTER"],
    ["/v1/route?accept=text/plain;q=1", "PROJECTOR_BAD_FILTER"],
    [`/v1/route?accept=${Array(17).fill("text/plain").join(",")}`, "PROJECTOR_BAD_FILTER"],
    ["/v1/route?limit=1001", "PROJECTOR_BAD_FILTER"],
    ["/v1/route?skill=%00", "PROJECTOR_BAD_FILTER"],
    ["/v1/route?worker=w-acme", "PROJECTOR_UNKNOWN_PARAMETER"],
  ])("%s is 400 %s", async (url, code) => {
    const { status, body } = await get(url);
    expect(status).toBe(400);
    expect(body.code).toBe(code);
  });

  it("answers other methods with 405 and Allow", async () => {
    const response = await server.inject({ method: "POST", url: "/v1/route?skill=summarize" });
    expect(response.statusCode).toBe(405);
    expect(response.headers.allow).toBe("GET, HEAD");
  });

  it("is in the OpenAPI document with its limits", async () => {
    const doc = (await server.inject({ method: "GET", url: "/openapi.json" })).json() as {
      paths: Record<string, { get: { parameters: { name: string; schema: Record<string, unknown> }[] } }>;
    };
    const params = doc.paths["/v1/route"]?.get.parameters ?? [];
    expect(params.map((p) => p.name)).toEqual(["skill", "state", "accept", "limit"]);
    expect(params.find((p) => p.name === "limit")?.schema.maximum).toBe(1_000);
  });
});

describe("GET /v1/route with read tokens", () => {
  it("needs a token like the other /v1 endpoints", async () => {
    const guarded = buildServer({
      config: {
        policy: { trustedVendors: [] },
        cursorSecret: "a-test-secret-of-16+",
        maxStreams: 1,
        tokens: ["read-token-0123456789"],
      },
      store,
      stream,
      metrics: createMetrics(),
      kafka: { endOffsets: async () => [], kafkaReachable: async () => true, consuming: () => true },
      logger: false,
    });
    try {
      expect((await guarded.inject({ method: "GET", url: "/v1/route?skill=summarize" })).statusCode).toBe(401);
      expect(
        (
          await guarded.inject({
            method: "GET",
            url: "/v1/route?skill=summarize",
            headers: { authorization: "Bearer read-token-0123456789" },
          })
        ).statusCode,
      ).toBe(200);
    } finally {
      await guarded.close();
    }
  });
});
