/**
 * Hostile bodies against the real server (Kafka sink and registry serde): malformed, truncated,
 * oversized, wrong-type, unknown-type, deeply nested and non-UTF-8 bodies, and batches where one bad
 * event hides among good ones. Every answer is a 4xx with a stable code; nothing reaches the topic.
 */
import { observationTypeNames } from "@a2a-ledger/core";
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { observation } from "../test/observations.ts";
import { endOffsetSum, servedTopic } from "../test/stack.ts";
import { errorCodes } from "./errors.ts";

const maxBodyBytes = 16 * 1024;
const maxEvents = 20;
const runs = 10_000;

const served = servedTopic("hostile", { maxBodyBytes, maxEvents });
/** The default body limit (8 MiB): room for a card tens of thousands of levels deep. */
const roomy = servedTopic("hostile-deep", { maxEvents });

beforeAll(async () => {
  // Prove the pipe works, so "nothing produced" below is not an artefact of a dead sink.
  const ok = await served.app.server.inject({
    method: "POST",
    url: "/v1/observations",
    headers: { "content-type": "application/json" },
    payload: JSON.stringify(observation("hostile-probe", 2, "c-probe")),
  });
  expect(ok.statusCode, ok.body).toBe(202);
});

type Body = { contentType: string | undefined; payload: Buffer; kind: string };

const json = (kind: string, value: unknown, contentType = "application/json"): Body => ({
  kind,
  contentType,
  payload: Buffer.from(JSON.stringify(value)),
});
const validEvent = fc.nat({ max: 1_000 }).map((i) => observation("hostile", i, `c-${i % 7}`));
const requiredStringFields = ["eventId", "correlationId", "observer", "workerId"];
const notAString = fc.oneof(
  fc.integer(),
  fc.boolean(),
  fc.constant(null),
  fc.array(fc.string(), { maxLength: 3 }),
  fc.dictionary(fc.string({ maxLength: 5 }), fc.string(), { maxKeys: 3 }),
);

function nested(depth: number, leaf: string): string {
  return `${"[".repeat(depth)}${leaf}${"]".repeat(depth)}`;
}

const hostile: fc.Arbitrary<Body> = fc.oneof(
  // Random bytes, usually not UTF-8 and never an observation.
  fc
    .uint8Array({ minLength: 0, maxLength: 300 })
    .map((bytes) => ({ kind: "bytes", contentType: "application/json", payload: Buffer.from(bytes) })),
  // Any JSON value that is not an observation.
  fc.jsonValue({ maxDepth: 4 }).map((value) => json("json-value", value)),
  // A valid event whose body is cut short.
  fc.tuple(validEvent, fc.double({ min: 0, max: 0.999, noNaN: true })).map(([event, cut]) => {
    const text = JSON.stringify(event);
    return {
      kind: "truncated",
      contentType: "application/json",
      payload: Buffer.from(text.slice(0, Math.floor(text.length * cut))),
    };
  }),
  // A required field missing.
  fc.tuple(validEvent, fc.constantFrom(...requiredStringFields, "occurredAt", "type")).map(([event, field]) => {
    const { [field]: _dropped, ...rest } = event;
    return json("missing-field", rest);
  }),
  // A required string field of the wrong type.
  fc
    .tuple(validEvent, fc.constantFrom(...requiredStringFields), notAString)
    .map(([event, field, value]) => json("wrong-type", { ...event, [field]: value })),
  // Unknown types, unknown fields, bad enums, bad times.
  fc
    .tuple(
      validEvent,
      fc
        .string({ minLength: 1, maxLength: 30 })
        .filter((t) => !(observationTypeNames as readonly string[]).includes(t)),
    )
    .map(([event, type]) => json("unknown-type", { ...event, type })),
  fc
    .tuple(
      validEvent,
      fc
        .string({ minLength: 1, maxLength: 20 })
        .filter((k) => !["type", "eventId", "correlationId", "occurredAt", "observer", "workerId"].includes(k)),
    )
    .map(([event, key]) => json("unknown-field", { ...event, [`x_${key}`]: 1 })),
  fc
    .tuple(fc.nat({ max: 100 }), fc.string({ maxLength: 20 }))
    .map(([i, state]) =>
      json("bad-state", { ...observation("hostile", i * 6 + 2, "c"), state: `not-a-state-${state}` }),
    ),
  fc
    .tuple(
      validEvent,
      fc.oneof(
        fc.string({ maxLength: 20 }).map((t) => `not-a-date-${t}`),
        fc.boolean(),
        fc.constant({}),
        fc.constant("2025-13-45T99:99:99Z"),
      ),
    )
    .map(([event, t]) => json("bad-time", { ...event, occurredAt: t })),
  // Empty eventId or correlationId.
  fc
    .tuple(validEvent, fc.constantFrom("eventId", "correlationId"), fc.constantFrom("", "  "))
    .map(([event, key, value]) => json("empty-key", { ...event, [key]: value })),
  // One bad event among good ones: the whole batch is rejected.
  fc
    .tuple(
      fc.array(validEvent, { minLength: 0, maxLength: 10 }),
      fc.nat({ max: 10 }),
      fc.constantFrom(...requiredStringFields),
    )
    .map(([events, at, field]) => {
      const bad = { ...observation("hostile", 999, "c-bad"), [field]: 42 };
      const batch = [...events];
      batch.splice(Math.min(at, batch.length), 0, bad);
      return json("mixed-batch", batch);
    }),
  fc.tuple(fc.array(validEvent, { minLength: 1, maxLength: 10 }), fc.nat({ max: 10 })).map(([events, at]) => {
    const lines = events.map((e) => JSON.stringify(e));
    lines.splice(Math.min(at, lines.length), 0, "{not json");
    return { kind: "ndjson-bad-line", contentType: "application/x-ndjson", payload: Buffer.from(lines.join("\n")) };
  }),
  // Deep nesting: as the body, inside a field, inside the card.
  fc
    .integer({ min: 33, max: 5_000 })
    .map((depth) => ({ kind: "deep-body", contentType: "application/json", payload: Buffer.from(nested(depth, "1")) })),
  fc.tuple(validEvent, fc.integer({ min: 40, max: 2_000 })).map(([event, depth]) => ({
    kind: "deep-field",
    contentType: "application/json",
    payload: Buffer.from(JSON.stringify(event).replace(/"observer":"[^"]*"/, `"observer":${nested(depth, '"x"')}`)),
  })),
  fc.tuple(fc.nat({ max: 100 }), fc.integer({ min: 40, max: 2_000 })).map(([i, depth]) => ({
    kind: "deep-card",
    contentType: "application/json",
    payload: Buffer.from(
      JSON.stringify(observation("hostile", i * 6, "c")).replace(/"card":\{/, `"card":{"deep":${nested(depth, "0")},`),
    ),
  })),
  // Over the limits.
  fc.integer({ min: maxBodyBytes + 1, max: maxBodyBytes * 3 }).map((size) => ({
    kind: "oversized",
    contentType: "application/json",
    payload: Buffer.from(JSON.stringify({ pad: "x".repeat(size) })),
  })),
  fc.integer({ min: maxEvents + 1, max: maxEvents * 3 }).map((n) =>
    json(
      "too-many",
      Array.from({ length: n }, (_, i) => observation("hostile", i, "c")),
    ),
  ),
  // Empty bodies and arrays.
  fc
    .constantFrom("", "   ", "\n\n", "[]")
    .map((text) => ({ kind: "empty", contentType: "application/json", payload: Buffer.from(text) })),
  // Wrong or missing media types, even for valid events.
  fc
    .tuple(
      validEvent,
      fc.constantFrom(
        undefined,
        "text/plain",
        "application/xml",
        "application/json; charset=latin1",
        "multipart/form-data; boundary=x",
        "application/x-www-form-urlencoded",
        "",
      ),
    )
    .map(([event, contentType]) => ({ kind: "media-type", contentType, payload: Buffer.from(JSON.stringify(event)) })),
  // Non-UTF-8 inside an otherwise valid event.
  fc
    .tuple(
      validEvent,
      fc.constantFrom(
        Buffer.from([0xff]),
        Buffer.from([0xc3, 0x28]),
        Buffer.from([0xed, 0xa0, 0x80]),
        Buffer.from([0xf8, 0x88, 0x80, 0x80, 0x80]),
      ),
    )
    .map(([event, bad]) => {
      const text = JSON.stringify({ ...event, observer: "@@" });
      const at = text.indexOf("@@");
      return {
        kind: "non-utf8",
        contentType: "application/json",
        payload: Buffer.concat([Buffer.from(text.slice(0, at)), bad, Buffer.from(text.slice(at + 2))]),
      };
    }),
);

describe("hostile input", () => {
  it(`answers ${runs} hostile bodies with a 4xx and a stable code, and produces nothing`, async () => {
    const before = await endOffsetSum(served.admin, served.topic);
    const kinds = new Map<string, number>();
    const codes = new Map<string, number>();
    await fc.assert(
      fc.asyncProperty(hostile, async (body) => {
        const headers: Record<string, string> = {};
        if (body.contentType !== undefined) headers["content-type"] = body.contentType;
        const response = await served.app.server.inject({
          method: "POST",
          url: "/v1/observations",
          headers,
          payload: body.payload,
        });
        kinds.set(body.kind, (kinds.get(body.kind) ?? 0) + 1);
        expect(response.statusCode, `${body.kind}: ${response.body}`).toBeGreaterThanOrEqual(400);
        expect(response.statusCode, `${body.kind}: ${response.body}`).toBeLessThan(500);
        const answer = response.json() as { code: string; error: string };
        expect(errorCodes).toContain(answer.code);
        expect(typeof answer.error).toBe("string");
        codes.set(answer.code, (codes.get(answer.code) ?? 0) + 1);
      }),
      { numRuns: runs },
    );
    expect(await endOffsetSum(served.admin, served.topic)).toBe(before);
    // The generator really covered every kind and the answers span the catalogue's client errors.
    expect(kinds.size).toBe(20);
    for (const code of [
      "INGEST_INVALID_EVENT",
      "INGEST_MALFORMED_BODY",
      "INGEST_BODY_TOO_LARGE",
      "INGEST_TOO_MANY_EVENTS",
      "INGEST_UNSUPPORTED_MEDIA_TYPE",
      "INGEST_EMPTY_BATCH",
    ]) {
      expect(codes.get(code) ?? 0, code).toBeGreaterThan(0);
    }
  }, 180_000);
});

describe("a card nested 20,000 arrays deep", () => {
  const depth = 20_000;
  const deepCard = `{"name":"deep","skills":${"[".repeat(depth)}0${"]".repeat(depth)}}`;
  const event = (card: string) =>
    JSON.stringify(observation("hostile-deep", 0, "c-deep")).replace(
      /"card":\{.*\},"cacheMaxAgeSeconds"/,
      `"card":${card},"cacheMaxAgeSeconds"`,
    );

  it.each([
    ["as an object", deepCard],
    ["as JSON text", JSON.stringify(deepCard)],
  ])("%s: 400 INGEST_INVALID_EVENT naming the place past the limit, and nothing produced", async (_how, card) => {
    const payload = event(card);
    expect(payload.includes("[[[[")).toBe(true);
    const before = await endOffsetSum(roomy.admin, roomy.topic);
    const response = await roomy.app.server.inject({
      method: "POST",
      url: "/v1/observations",
      headers: { "content-type": "application/json" },
      payload,
    });
    expect(response.statusCode, response.body).toBe(400);
    expect(response.json()).toEqual({
      code: "INGEST_INVALID_EVENT",
      error: "1 of 1 events are invalid, 1 issues; nothing was accepted",
      details: [{ index: 0, path: `card.skills${"[0]".repeat(31)}`, message: "nested deeper than 32 levels" }],
    });
    expect(await endOffsetSum(roomy.admin, roomy.topic)).toBe(before);
  });
});
