/**
 * Kafka stopped mid-run, on a private broker (the shared one is never touched; the registry is the
 * shared one): requests get 503 with Retry-After; after the restart every event that ever got 202 is
 * on the topic; the client retries with the same eventIds through the outage, and after consumer-side
 * de-duplication by eventId every event is there exactly once, unchanged.
 *
 * The bound on copies: an eventId is on the topic at most as many times as requests carried it (one
 * per HTTP attempt: Kafka's idempotent producer adds none), so at most 1 + maxRetries = 61 times for
 * an event the client sent, plus one per earlier raw request of the test. Every copy of an eventId
 * carries the same payload.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseObservation } from "@a2a-ledger/core";
import { loadConfig as loadStackConfig, startKafka, stopKafka, type StackConfig } from "@a2a-ledger/infra";
import { IngestClient } from "@a2a-ledger/ingest-client";
import type { ObservationInput } from "@a2a-ledger/ingest-client";
import { ensureTopics, topicNames } from "@a2a-ledger/kafka";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { observation, type JsonObject } from "../test/observations.ts";
import { endpoints, kafkaAt, readTopic, testServer, withAdmin, type TestServer } from "../test/stack.ts";

let stack: StackConfig;
let dataDir: string;
let brokers: string;
let app: TestServer;
let url: string;

/** The warm-up's eventIds (not part of what the test counts). */
const warmUp = new Set<string>();

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), "ingest-outage-"));
  stack = loadStackConfig({
    ...process.env,
    A2A_LEDGER_DATA_DIR: dataDir,
    A2A_LEDGER_KAFKA_PORT: "29392",
    A2A_LEDGER_KAFKA_CONTROLLER_PORT: "29393",
    A2A_LEDGER_REGISTRY_PORT: "28381",
    // An outage of the whole cluster: one node is enough, whatever the suite's cluster is.
    A2A_LEDGER_KAFKA_NODES: "1",
    KAFKA_BROKERS: "",
    SCHEMA_REGISTRY_URL: "",
  });
  brokers = await startKafka(stack);
  await withAdmin(kafkaAt(brokers), (admin) => ensureTopics(admin));
  app = testServer({
    brokers,
    registryUrl: endpoints.registryUrl,
    topic: topicNames.observations,
    produceTimeoutMs: 2_000,
    retryAfterSeconds: 1,
  });
  await app.server.listen({ host: "127.0.0.1", port: 0 });
  url = `http://127.0.0.1:${(app.server.server.address() as AddressInfo).port}`;
  // The broker was just started: its first produce (metadata, the idempotent producer's id) may take
  // longer than the 2 s produce timeout on a loaded machine. The test is about an outage, not a cold
  // start: wait for the first 202 (an observation of a run of its own) before it begins.
  const warm = `outage-warm-up-${Date.now()}`;
  for (let i = 0, deadline = Date.now() + 60_000; ; i++) {
    const event = observation(warm, i, `${warm}-c`);
    warmUp.add(event["eventId"] as string);
    const response = await fetch(`${url}/v1/observations`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify([event]),
    }).catch(() => undefined);
    if (response?.status === 202) break;
    if (Date.now() > deadline) throw new Error(`ingest on the fresh broker answered ${response?.status} for 60 s`);
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}, 240_000);

afterAll(async () => {
  await app?.close();
  if (stack) await stopKafka(stack);
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
}, 120_000);

interface Attempt {
  events: JsonObject[];
  status: number;
  code: string | undefined;
  retryAfter: string | null;
}

/** How many HTTP requests carried each eventId, raw or through the client. */
const carried = new Map<string, number>();
function countCarried(body: string): void {
  for (const event of JSON.parse(body) as { eventId: string }[])
    carried.set(event.eventId, (carried.get(event.eventId) ?? 0) + 1);
}
const countingFetch: typeof fetch = (input, init) => {
  if (typeof init?.body === "string") countCarried(init.body);
  return fetch(input, init);
};
const clientMaxRetries = 60;

async function postRaw(events: JsonObject[]): Promise<Attempt> {
  countCarried(JSON.stringify(events));
  try {
    const response = await fetch(`${url}/v1/observations`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(events),
      signal: AbortSignal.timeout(15_000),
    });
    const body = (await response.json()) as { code?: string };
    return { events, status: response.status, code: body.code, retryAfter: response.headers.get("retry-after") };
  } catch {
    return { events, status: 0, code: undefined, retryAfter: null };
  }
}

describe("Kafka stopped mid-run", () => {
  it("answers 503 while down, loses nothing it acknowledged, and retries add no duplicate after de-duplication", async () => {
    const run = `outage-${Date.now()}`;
    let next = 0;
    const batch = (n: number): JsonObject[] =>
      Array.from({ length: n }, () => {
        const i = next++;
        return observation(run, i, `${run}-c${i % 11}`);
      });
    const attempts: Attempt[] = [];
    const writeFor = async (ms: number, maxRequests: number) => {
      const until = Date.now() + ms;
      for (let r = 0; r < maxRequests && Date.now() < until; r++) attempts.push(await postRaw(batch(25)));
    };

    // Up: everything is acknowledged.
    await writeFor(1_500, 40);
    expect(attempts.length).toBeGreaterThan(0);
    expect(attempts.every((a) => a.status === 202)).toBe(true);

    // A writer keeps going while the broker stops: some requests may still land, then 503s.
    const stopping = stopKafka(stack);
    await writeFor(4_000, 200);
    await stopping;
    await writeFor(3_000, 10);
    const down = attempts.filter((a) => a.status !== 202);
    expect(down.length).toBeGreaterThan(0);
    for (const a of down) {
      expect(a.status).toBe(503);
      expect(a.code).toMatch(/^INGEST_(KAFKA_UNAVAILABLE|OVERLOADED)$/);
      expect(a.retryAfter).toBe("1");
    }
    const ready = await fetch(`${url}/readyz`);
    expect(ready.status).toBe(503);

    // The client embedded in an orchestrator retries through the outage with the same eventIds.
    const client = new IngestClient({
      baseUrl: url,
      maxBatchEvents: 20,
      maxRetries: clientMaxRetries,
      initialBackoffMs: 200,
      maxBackoffMs: 1_000,
      fetch: countingFetch,
    });
    const throughOutage = batch(30);
    const clientSend = client.send(throughOutage as unknown as ObservationInput[]);

    await startKafka(stack);
    const clientResult = await clientSend;
    expect(clientResult.accepted).toBe(30);
    expect(clientResult.retries).toBeGreaterThan(0);

    // After the restart: new writes are acknowledged again, and every 503'd batch is retried as it was.
    await writeFor(1_000, 20);
    expect(attempts.at(-1)?.status).toBe(202);
    const retried = await client.send(down.flatMap((a) => a.events) as unknown as ObservationInput[]);
    expect(retried.accepted).toBe(down.reduce((n, a) => n + a.events.length, 0));

    const acknowledged = attempts.filter((a) => a.status === 202).flatMap((a) => a.events);
    const everything = [...attempts.flatMap((a) => a.events), ...throughOutage];
    const kafka = kafkaAt(brokers);
    const total = await withAdmin(kafka, async (admin) =>
      (await admin.fetchTopicOffsets(topicNames.observations)).reduce((n, p) => n + Number(p.high), 0),
    );
    const records = await readTopic(kafka, topicNames.observations, total);
    expect(records).toHaveLength(total);

    const byEventId = new Map<string, unknown>();
    const copies = new Map<string, number>();
    for (const record of records) {
      const decoded = await app.serde.decode(record.value);
      const eventId = (decoded.record as { eventId: string }).eventId;
      if (warmUp.has(eventId)) continue;
      copies.set(eventId, (copies.get(eventId) ?? 0) + 1);
      const first = byEventId.get(eventId);
      if (first === undefined) byEventId.set(eventId, decoded.record);
      // No two different payloads share one eventId.
      else expect(decoded.record, `payload of a copy of ${eventId}`).toEqual(first);
    }
    // The promised bound: copies of an eventId ≤ requests that carried it ≤ 1 + maxRetries (+1 for a raw request before).
    const rawOnce = new Set(attempts.flatMap((a) => a.events.map((e) => e["eventId"] as string)));
    for (const [eventId, n] of copies) {
      expect(carried.get(eventId) ?? 0, `${eventId} was never sent`).toBeGreaterThan(0);
      expect(n, `copies of ${eventId}`).toBeLessThanOrEqual(carried.get(eventId) ?? 0);
      expect(n, `copies of ${eventId}`).toBeLessThanOrEqual(1 + clientMaxRetries + (rawOnce.has(eventId) ? 1 : 0));
    }
    // Nothing acknowledged is lost.
    for (const event of acknowledged)
      expect(byEventId.has(event["eventId"] as string), event["eventId"] as string).toBe(true);
    // After de-duplication: every event sent, exactly once, unchanged.
    expect(byEventId.size).toBe(everything.length);
    for (const event of everything) {
      const expected = parseObservation(event);
      expect(expected.ok).toBe(true);
      if (expected.ok) expect(byEventId.get(expected.observation.eventId)).toEqual(expected.observation);
    }
    const most = Math.max(...copies.values());
    console.info(
      `outage run: ${attempts.length} requests, ${down.length} answered 503, ${records.length} records for ${everything.length} events (${records.length - everything.length} duplicates removed by eventId), client retries ${clientResult.retries}, at most ${most} copies of one eventId`,
    );
  }, 240_000);
});
