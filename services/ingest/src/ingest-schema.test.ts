/**
 * The OpenAPI document describes exactly what ingest accepts (the core's parser plus the non-blank
 * key check): requests generated from the document's schema are accepted and encode to Avro, and the
 * parser's edge cases are valid under the schema exactly when the parser accepts them. The one
 * constraint JSON Schema cannot state, a given cardHash equal to its card's hash, is the documented
 * exception and is tested as such. Pure: no Kafka, no registry.
 */
import { cardHash, channelSpellings, partKindSpellings, taskStateSpellings } from "@a2a-ledger/core";
import { avroType, type Observation } from "@a2a-ledger/schemas";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { arbitraryOf, validatorOf } from "../test/schema-arbitrary.ts";
import { configDefaults } from "./config.ts";
import { IngestError } from "./errors.ts";
import { openApiDocument } from "./openapi.ts";
import { validateBatch } from "./validate-batch.ts";

const maxDepth = configDefaults.maxDepth;
const document = openApiDocument({
  authRequired: false,
  maxBodyBytes: configDefaults.maxBodyBytes,
  maxEvents: 20,
  maxDepth,
});
type Schema = { [key: string]: unknown };
const requestSchema = (
  ((document["paths"] as Schema)["/v1/observations"] as Schema)["post"] as {
    requestBody: { content: Record<string, { schema: Schema }> };
  }
).requestBody.content["application/json"]!.schema;
const validRequest = validatorOf(document, requestSchema);
const validEvent = validatorOf(document, { $ref: "#/components/schemas/Observation" });

/** Whether ingest accepts the events (validateBatch is what the route runs on the parsed body). */
function accepts(events: unknown[]): { ok: true; observations: Observation[] } | { ok: false; why: string } {
  try {
    return { ok: true, observations: validateBatch(events, maxDepth) };
  } catch (e) {
    if (e instanceof IngestError) return { ok: false, why: JSON.stringify(e.body()) };
    throw e;
  }
}

/** The cross-field constraint JSON Schema cannot state: a given cardHash is the card's own, in either case. */
function withTrueCardHash(event: unknown, upper: boolean): unknown {
  if (typeof event !== "object" || event === null || Array.isArray(event)) return event;
  const e = event as Record<string, unknown>;
  if (e["type"] !== "AgentCardObserved" || typeof e["cardHash"] !== "string") return event;
  const hash = cardHash(typeof e["card"] === "string" ? JSON.parse(e["card"]) : e["card"]);
  return { ...e, cardHash: upper ? hash.toUpperCase() : hash };
}

const base = { eventId: "e1", correlationId: "c1", occurredAt: 1_735_689_600_000, observer: "o", workerId: "w1" };
const state = { type: "TaskStateObserved", ...base, serverTaskId: "t1", state: "working", via: "GET" };
const card = { type: "AgentCardObserved", ...base, cardUrl: "u", card: { name: "x" } };
const part = (p: Record<string, unknown>) => ({
  type: "ArtifactEmitted",
  ...base,
  serverTaskId: "t1",
  artifactId: "a1",
  parts: [{ kind: "TEXT", sizeBytes: 1, ...p }],
});
const nested = (depth: number): unknown => (depth <= 1 ? {} : { a: nested(depth - 1) });
const long = 9_007_199_254_740_990;

/** Accepted by the parser: each must be valid under the schema. */
const acceptedEdges: [string, unknown][] = [
  ...taskStateSpellings.map(([s]): [string, unknown] => [`state ${s}`, { ...state, state: s }]),
  ...channelSpellings.map(([s]): [string, unknown] => [`via ${s}`, { ...state, via: s }]),
  ...partKindSpellings.map(([s]): [string, unknown] => [`part kind ${s}`, part({ kind: s })]),
  ...[
    "2025-01-31T12:00:00Z",
    "2025-01-31t12:00:00z",
    "2025-01-31 12:00:00+01:00",
    "2025-01-31T12:00:00.123456789-0530",
    "2025-01-31T12:00:00,5+05",
    "2000-02-29T00:00:00Z",
    "2024-02-29T23:59:59-23:59",
    "0000-02-29T00:00:00Z",
    "1600-02-29T00:00:00Z",
    "9999-12-31T23:59:59+23:59",
    "2025-04-30T00:00:00Z",
    "2025-12-31T00:00:00Z",
  ].map((t): [string, unknown] => [`time ${t}`, { ...state, occurredAt: t }]),
  ["epoch ms at the long minimum", { ...state, occurredAt: -long }],
  ["epoch ms at the long maximum", { ...state, occurredAt: long }],
  [
    "epoch ms written as 1.0e3",
    JSON.parse(
      `{"type":"TaskStateObserved","eventId":"e","correlationId":"c","occurredAt":1.0e3,"observer":"o","workerId":"w","serverTaskId":"t","state":"working","via":"GET"}`,
    ),
  ],
  [
    "attempt at the int bounds",
    {
      type: "TaskDispatched",
      ...base,
      messageId: "m",
      attempt: 2 ** 31 - 1,
      cardFetchedAt: null,
      cardHash: null,
      skillId: null,
    },
  ],
  ["attempt at the int minimum", { type: "TaskDispatched", ...base, messageId: "m", attempt: -(2 ** 31) }],
  ["keys padded with spaces", { ...state, eventId: " e ", correlationId: "\u00a0c" }],
  ["keys of one non-space character", { ...state, eventId: "\u200b", correlationId: "\u0085" }],
  ["rawState of any text", { ...state, rawState: "" }],
  ["contextId null", { ...state, contextId: null }],
  ["card as JSON text with JSON whitespace", { ...card, card: '\n\t {"name": "x"} \r' }],
  [
    "card as text, hash given in upper case",
    { ...card, card: '{"name":"x"}', cardHash: cardHash({ name: "x" }).toUpperCase() },
  ],
  ["card hash null", { ...card, cardHash: null }],
  ["card exactly at the depth limit", { ...card, card: nested(maxDepth) }],
  ["card text exactly at the depth limit", { ...card, card: JSON.stringify(nested(maxDepth)) }],
  [
    "card holding the largest double",
    { ...card, card: { n: Number.MAX_VALUE, m: -Number.MAX_VALUE, l: [[1.5e-300]] } },
  ],
  ["card with every optional field null", { ...card, cacheMaxAgeSeconds: null, etag: null }],
  ["cacheMaxAgeSeconds at the long maximum", { ...card, cacheMaxAgeSeconds: long }],
  ["part with mimeType", part({ mimeType: "text/plain" })],
  ["part with mimeType null", part({ mimeType: null })],
  ["part with mediaType null", part({ mediaType: null })],
  [
    "errorCode as a number",
    { type: "TaskNotFoundObserved", ...base, serverTaskId: "t", method: "GetTask", errorCode: -32001 },
  ],
  [
    "errorCode as text",
    { type: "TaskNotFoundObserved", ...base, serverTaskId: "t", method: "GetTask", errorCode: "NOT_FOUND" },
  ],
  [
    "probe with v0.3 spellings and canaries",
    {
      type: "ProbeCompleted",
      ...base,
      cardHash: "h",
      statesObserved: ["cancelled", "TASK_STATE_CANCELLED"],
      reobservable: [],
      emittedModes: [],
      parkedCanaries: [{ serverTaskId: "p", state: "auth-required" }],
      durable: null,
      skillId: null,
    },
  ],
  ["streamed chunk", { ...part({}), append: true, lastChunk: false, name: null }],
];

/** Refused by the parser: each must be invalid under the schema. */
const refusedEdges: [string, unknown][] = [
  ...[
    "2025-01-31T12:00:00",
    "2025-01-31",
    "2023-02-29T00:00:00Z",
    "1900-02-29T00:00:00Z",
    "2025-04-31T00:00:00Z",
    "2025-01-31T24:00:00Z",
    "2025-01-31T12:60:00Z",
    "2025-01-31T12:00:60Z",
    "2025-01-31T12:00:00+24:00",
    "2025-01-31T12:00:00+01:60",
    "2025-01-31T12:00:00.1234567890Z",
    "2025-01-31T12:00:00.Z",
    "2025-00-10T00:00:00Z",
    "2025-13-10T00:00:00Z",
    "2025-01-00T00:00:00Z",
    "25-01-31T12:00:00Z",
    "2025-01-31T12:00:00Z\n",
    " 2025-01-31T12:00:00Z",
    "2025-01-31T12:00:00+1",
    "2025-01-31T12:00:00 Z",
    "２０２５-01-31T12:00:00Z",
    "2025-01-31T12:00:00UTC",
  ].map((t): [string, unknown] => [`time ${JSON.stringify(t)}`, { ...state, occurredAt: t }]),
  ["epoch ms below the long range", { ...state, occurredAt: -long - 1 }],
  ["epoch ms above the long range", { ...state, occurredAt: long + 1 }],
  ["epoch ms with a fraction", { ...state, occurredAt: 1.5 }],
  ["attempt above the int range", { type: "TaskDispatched", ...base, messageId: "m", attempt: 2 ** 31 }],
  ["blank eventId", { ...state, eventId: "" }],
  ["whitespace eventId", { ...state, eventId: " \t\u3000\ufeff\u2028" }],
  ["whitespace correlationId", { ...state, correlationId: "\u00a0" }],
  ["mixed-case state", { ...state, state: "Working" }],
  ["mixed-case channel", { ...state, via: "Get" }],
  ["mixed-case part kind", part({ kind: "Text" })],
  ["v0.3 part kind file", part({ kind: "file" })],
  ["mimeType beside mediaType", part({ mimeType: "a/b", mediaType: "a/b" })],
  ["mimeType null beside mediaType", part({ mimeType: null, mediaType: "a/b" })],
  ["unknown field in a part", part({ colour: 1 })],
  ["unknown top-level field", { ...state, colour: "blue" }],
  ["rawState on another type", { ...card, rawState: "x" }],
  ["rawState null", { ...state, rawState: null }],
  ["missing required field", { type: "TaskStateObserved", ...base, state: "working", via: "GET" }],
  ["null in a non-nullable field", { ...state, serverTaskId: null }],
  ["null for a defaulted non-nullable field", { ...part({}), append: null }],
  ["card one level too deep", { ...card, card: nested(maxDepth + 1) }],
  ["card text one level too deep", { ...card, card: JSON.stringify(nested(maxDepth + 1)) }],
  ["card text of an array", { ...card, card: "[1]" }],
  ["card text that is not JSON", { ...card, card: "{name}" }],
  ["card text with a non-JSON space", { ...card, card: '\u00a0{"a":1}' }],
  ["card as an array", { ...card, card: [1] }],
  ["card with a number beyond the double range", { ...card, card: '{"n":1e400}' }],
  ["cardHash not hex", { ...card, cardHash: "z".repeat(64) }],
  ["cardHash too short", { ...card, cardHash: "ab" }],
  ["unknown type", { ...state, type: "TaskExploded" }],
  [
    "errorCode as a boolean",
    { type: "TaskNotFoundObserved", ...base, serverTaskId: "t", method: "GetTask", errorCode: true },
  ],
];

describe("the OpenAPI document describes exactly what ingest accepts", () => {
  it("accepts every request generated from the schema, and each encodes to Avro", () => {
    const requests = fc.tuple(arbitraryOf(document, requestSchema), fc.boolean());
    let cards = 0;
    let batches = 0;
    fc.assert(
      fc.property(requests, ([generated, upper]) => {
        // Through JSON text, as a request body travels.
        const body = JSON.parse(JSON.stringify(generated)) as unknown;
        const events = (Array.isArray(body) ? body : [body]).map((e) => withTrueCardHash(e, upper));
        expect(validRequest(Array.isArray(body) ? events : events[0]), JSON.stringify(validRequest.errors)).toBe(true);
        const result = accepts(events);
        expect(result.ok ? "accepted" : result.why, JSON.stringify(body)).toBe("accepted");
        if (result.ok)
          for (const { type, ...record } of result.observations) avroType("observations", type).toBuffer(record);
        if (Array.isArray(body)) batches += 1;
        if (events.some((e) => (e as { type?: unknown }).type === "AgentCardObserved")) cards += 1;
      }),
      { numRuns: 3_000 },
    );
    // The generator reached batches and card fetches, not only the easy single events.
    expect(batches).toBeGreaterThan(100);
    expect(cards).toBeGreaterThan(100);
  });

  it.each(acceptedEdges)("accepts %s, and so does the schema", (_name, event) => {
    const result = accepts([event]);
    expect(result.ok ? "accepted" : result.why).toBe("accepted");
    expect(validEvent(event), JSON.stringify(validEvent.errors)).toBe(true);
  });

  it.each(refusedEdges)("refuses %s, and so does the schema", (_name, event) => {
    expect(accepts([event]).ok).toBe(false);
    expect(validEvent(event)).toBe(false);
  });

  it("has one exception, stated in the document: a cardHash that is not the card's", () => {
    const event = { ...card, cardHash: "0".repeat(64) };
    expect(validEvent(event)).toBe(true);
    expect(accepts([event]).ok).toBe(false);
    const described = JSON.stringify((document["components"] as Schema)["schemas"]);
    expect(described).toContain("must equal the card's hash");
  });

  it("reads blank keys as String.prototype.trim does, character by character", () => {
    for (let code = 0; code <= 0xffff; code++) {
      const c = String.fromCharCode(code);
      if (code >= 0xd800 && code <= 0xdfff) continue;
      const blank = c.trim() === "";
      expect(validEvent({ ...state, eventId: c }), `U+${code.toString(16)}`).toBe(!blank);
    }
  });
});
