import { describe, expect, it } from "vitest";
import { agentCard } from "../test/builders.ts";
import { cardHash } from "./card-hash.ts";
import { parseObservation, parseObservationJson } from "./ingest-json.ts";

const stateObs = {
  type: "TaskStateObserved",
  eventId: "e1",
  correlationId: "c1",
  occurredAt: "2025-01-31T12:00:00Z",
  observer: "proxy",
  workerId: "w1",
  serverTaskId: "s1",
  state: "input-required",
  via: "stream",
};

function issues(input: unknown) {
  const r = parseObservation(input);
  if (r.ok) throw new Error("expected issues");
  return r.issues;
}

describe("ingest JSON → Observation", () => {
  it("normalizes a v0.3 state, keeps the raw spelling, maps via, converts ISO time and fills defaults", () => {
    const r = parseObservation(stateObs);
    expect(r).toEqual({
      ok: true,
      observation: {
        type: "TaskStateObserved",
        eventId: "e1",
        correlationId: "c1",
        occurredAt: 1738324800000,
        observer: "proxy",
        workerId: "w1",
        serverTaskId: "s1",
        contextId: null,
        state: "TASK_STATE_INPUT_REQUIRED",
        rawState: "input-required",
        via: "STREAM",
        principal: null,
      },
    });
  });

  it("keeps an explicit rawState and accepts enum symbols for via", () => {
    const r = parseObservation({
      ...stateObs,
      state: "TASK_STATE_CANCELLED",
      rawState: "TASK_STATE_CANCELLED",
      via: "SEND_RESPONSE",
    });
    expect(r.ok && r.observation).toMatchObject({
      state: "TASK_STATE_CANCELED",
      rawState: "TASK_STATE_CANCELLED",
      via: "SEND_RESPONSE",
    });
  });

  it("stores a card object as JSON text and computes its hash", () => {
    const card = agentCard({ org: "Acme" });
    const r = parseObservation({
      type: "AgentCardObserved",
      eventId: "e1",
      correlationId: "c1",
      occurredAt: 5,
      observer: "o",
      workerId: "w1",
      cardUrl: "u",
      card,
    });
    expect(r.ok && r.observation).toMatchObject({
      card: JSON.stringify(card),
      cardHash: cardHash(card),
      cacheMaxAgeSeconds: null,
      etag: null,
    });
  });

  it("keeps card JSON text as given and accepts a matching hash in any case", () => {
    const text = '{ "name": "x" }';
    const r = parseObservation({
      type: "AgentCardObserved",
      eventId: "e1",
      correlationId: "c1",
      occurredAt: 5,
      observer: "o",
      workerId: "w1",
      cardUrl: "u",
      card: text,
      cardHash: cardHash({ name: "x" }).toUpperCase(),
    });
    expect(r.ok && r.observation).toMatchObject({ card: text, cardHash: cardHash({ name: "x" }) });
  });

  it("refuses a cardHash that does not match the card", () => {
    expect(
      issues({
        type: "AgentCardObserved",
        eventId: "e1",
        correlationId: "c1",
        occurredAt: 5,
        observer: "o",
        workerId: "w1",
        cardUrl: "u",
        card: { name: "x" },
        cardHash: "00",
      }),
    ).toEqual([{ path: "cardHash", message: expect.stringContaining("does not match the card") }]);
  });

  it("accepts v0.3 mimeType on parts and part kinds as symbols or in lower case", () => {
    const r = parseObservation({
      type: "ArtifactEmitted",
      eventId: "e1",
      correlationId: "c1",
      occurredAt: 5,
      observer: "o",
      workerId: "w1",
      serverTaskId: "s1",
      artifactId: "a1",
      parts: [
        { kind: "text", mimeType: "text/plain", sizeBytes: 3 },
        { kind: "DATA", sizeBytes: 2 },
      ],
    });
    expect(r.ok && r.observation).toMatchObject({
      name: null,
      parts: [
        { kind: "TEXT", mediaType: "text/plain", sizeBytes: 3 },
        { kind: "DATA", mediaType: null, sizeBytes: 2 },
      ],
    });
  });

  it("refuses part kinds outside the vocabulary, mixed case included, and mimeType beside mediaType", () => {
    const artifact = {
      type: "ArtifactEmitted",
      eventId: "e1",
      correlationId: "c1",
      occurredAt: 5,
      observer: "o",
      workerId: "w1",
      serverTaskId: "s1",
      artifactId: "a1",
    };
    expect(
      issues({
        ...artifact,
        parts: [
          { kind: "Text", sizeBytes: 1 },
          { kind: "file", sizeBytes: 1 },
        ],
      }),
    ).toEqual([
      { path: "parts[0].kind", message: expect.stringContaining("expected one of TEXT") },
      { path: "parts[1].kind", message: expect.stringContaining("expected one of TEXT") },
    ]);
    expect(
      issues({ ...artifact, parts: [{ kind: "TEXT", mimeType: null, mediaType: "text/plain", sizeBytes: 1 }] }),
    ).toEqual([{ path: "parts[0].mimeType", message: expect.stringContaining("not both") }]);
  });

  it("refuses a card that RFC 8785 cannot hash (a number beyond the double range) as an issue, not an exception", () => {
    const card = {
      type: "AgentCardObserved",
      eventId: "e1",
      correlationId: "c1",
      occurredAt: 5,
      observer: "o",
      workerId: "w1",
      cardUrl: "u",
    };
    expect(issues({ ...card, card: '{"n":1e400}' })).toEqual([
      { path: "card", message: expect.stringContaining("I-JSON") },
    ]);
    expect(
      issues(
        JSON.parse(
          `{"type":"AgentCardObserved","eventId":"e1","correlationId":"c1","occurredAt":5,"observer":"o","workerId":"w1","cardUrl":"u","card":{"n":-1e999}}`,
        ),
      ),
    ).toEqual([{ path: "card", message: expect.stringContaining("I-JSON") }]);
  });

  it("refuses a local time without offset, and an impossible date", () => {
    expect(issues({ ...stateObs, occurredAt: "2025-01-31T12:00:00" }).map((i) => i.path)).toEqual(["occurredAt"]);
    expect(issues({ ...stateObs, occurredAt: "2025-02-29T12:00:00Z" }).map((i) => i.path)).toEqual(["occurredAt"]);
    expect(parseObservation({ ...stateObs, occurredAt: "2024-02-29t12:00:00.123456789-05" }).ok).toBe(true);
  });

  it("normalizes every task state field of a probe, including parked canaries", () => {
    const r = parseObservation({
      type: "ProbeCompleted",
      eventId: "e1",
      correlationId: "c1",
      occurredAt: 5,
      observer: "o",
      workerId: "w1",
      cardHash: "h",
      statesObserved: ["working", "auth-required"],
      reobservable: ["working"],
      emittedModes: [],
      parkedCanaries: [{ serverTaskId: "c", state: "auth-required" }],
    });
    expect(r.ok && r.observation).toMatchObject({
      statesObserved: ["TASK_STATE_WORKING", "TASK_STATE_AUTH_REQUIRED"],
      reobservable: ["TASK_STATE_WORKING"],
      durable: null,
      skillId: null,
      parkedCanaries: [{ state: "TASK_STATE_AUTH_REQUIRED" }],
    });
  });

  it("turns a numeric errorCode into the string it arrived as", () => {
    const r = parseObservation({
      type: "TaskNotFoundObserved",
      eventId: "e1",
      correlationId: "c1",
      occurredAt: 5,
      observer: "o",
      workerId: "w1",
      serverTaskId: "s1",
      method: "GetTask",
      errorCode: -32001,
    });
    expect(r.ok && r.observation).toMatchObject({ errorCode: "-32001" });
  });

  it("reports an unknown type", () => {
    expect(issues({ ...stateObs, type: "TaskExploded" })).toEqual([
      { path: "type", message: expect.stringContaining("unknown observation type") },
    ]);
  });

  it("reports missing fields, wrong types and unknown fields with their paths", () => {
    const { workerId: _w, ...missing } = stateObs;
    expect(issues({ ...missing, serverTaskId: 7, colour: "blue" })).toEqual(
      expect.arrayContaining([
        { path: "colour", message: "unknown field" },
        { path: "workerId", message: "missing" },
        { path: "serverTaskId", message: expect.stringContaining("expected string") },
      ]),
    );
  });

  it("reports bad states, channels and times", () => {
    expect(
      issues({ ...stateObs, state: "sleeping", via: "carrier-pigeon", occurredAt: "last tuesday" })
        .map((i) => i.path)
        .sort(),
    ).toEqual(["occurredAt", "state", "via"]);
  });

  it("reports nested problems with their paths", () => {
    const p = issues({
      type: "ArtifactEmitted",
      eventId: "e1",
      correlationId: "c1",
      occurredAt: 5,
      observer: "o",
      workerId: "w1",
      serverTaskId: "s1",
      artifactId: "a1",
      parts: [
        { kind: "TEXT", sizeBytes: "big" },
        { kind: "TEXT", sizeBytes: 1, colour: 1 },
      ],
    });
    expect(p).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ path: "parts[0].sizeBytes" }),
        { path: "parts[1].colour", message: "unknown field" },
      ]),
    );
  });

  it("refuses non-objects and over-deep nesting", () => {
    expect(issues([stateObs])).toEqual([
      { path: "", message: "expected one observation as a JSON object, got an array" },
    ]);
    expect(issues(42)[0]?.message).toContain("got number");
    let deep: unknown = {};
    for (let i = 0; i < 100; i++) deep = { a: deep };
    expect(
      issues({
        type: "AgentCardObserved",
        eventId: "e1",
        correlationId: "c1",
        occurredAt: 5,
        observer: "o",
        workerId: "w1",
        cardUrl: "u",
        card: deep,
      })[0],
    ).toMatchObject({ path: expect.stringMatching(/^card\.a\.a/), message: expect.stringContaining("nested deeper") });
  });

  it("bounds a card nested 20,000 arrays deep, as an object or as text, with one issue and no stack overflow", () => {
    const depth = 20_000;
    const deepCard = `{"name":"deep","skills":${"[".repeat(depth)}0${"]".repeat(depth)}}`;
    const line = (card: string) =>
      `{"type":"AgentCardObserved","eventId":"e1","correlationId":"c1","occurredAt":5,"observer":"o","workerId":"w1","cardUrl":"u","card":${card}}`;
    for (const text of [line(deepCard), line(JSON.stringify(deepCard))]) {
      const r = parseObservationJson(text);
      expect(r.ok).toBe(false);
      expect(!r.ok && r.issues).toEqual([
        { path: `card.skills${"[0]".repeat(31)}`, message: "nested deeper than 32 levels" },
      ]);
    }
  });

  it("bounds a deep field whose name starts like the card's", () => {
    let deep: unknown = "x";
    for (let i = 0; i < 40; i++) deep = [deep];
    expect(
      issues({
        type: "AgentCardObserved",
        eventId: "e1",
        correlationId: "c1",
        occurredAt: 5,
        observer: "o",
        workerId: "w1",
        cardUrl: deep,
        card: agentCard({ org: "Acme" }),
      }),
    ).toEqual([{ path: `cardUrl${"[0]".repeat(32)}`, message: "nested deeper than 32 levels" }]);
  });

  it("reports invalid JSON text", () => {
    const r = parseObservationJson("{nope");
    expect(r.ok).toBe(false);
    expect(!r.ok && r.issues[0]?.message).toContain("invalid JSON");
  });
});
