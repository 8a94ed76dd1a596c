import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { IngestClient, IngestRejectedError, IngestUnavailableError, retryAfterMs } from "./client.ts";
import type { ObservationInput } from "./observation-input.ts";

interface Seen {
  body: string;
  authorization: string | undefined;
}

type Answer = { status: number; body: unknown; headers?: Record<string, string> };

let server: Server | undefined;

/** A scripted HTTP server on 127.0.0.1: answers the i-th request with answers[i] (the last one repeats). */
async function scripted(answers: Answer[]): Promise<{ url: string; seen: Seen[] }> {
  const seen: Seen[] = [];
  server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      seen.push({ body: Buffer.concat(chunks).toString("utf8"), authorization: req.headers.authorization });
      const answer = answers[Math.min(seen.length - 1, answers.length - 1)]!;
      res.writeHead(answer.status, { "content-type": "application/json", ...answer.headers });
      res.end(JSON.stringify(answer.body));
    });
  });
  await new Promise<void>((resolve) => server!.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen };
}

afterEach(async () => {
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server = undefined;
});

const event = (i: number): ObservationInput => ({
  type: "TaskStateObserved",
  eventId: `e-${i}`,
  correlationId: `c-${i % 3}`,
  occurredAt: "2025-01-01T00:00:00Z",
  observer: "orchestrator-1",
  workerId: "worker-1",
  serverTaskId: `t-${i}`,
  state: "working",
  via: "get",
});

const unavailable: Answer = {
  status: 503,
  body: { error: "Kafka down", code: "INGEST_KAFKA_UNAVAILABLE" },
  headers: { "retry-after": "2" },
};

describe("IngestClient", () => {
  it("retries a 503 with the very same body and waits at least Retry-After", async () => {
    const { url, seen } = await scripted([unavailable, unavailable, { status: 202, body: { accepted: 2 } }]);
    const sleeps: number[] = [];
    const client = new IngestClient({ baseUrl: url, sleep: async (ms) => void sleeps.push(ms), random: () => 0 });
    const result = await client.send([event(1), event(2)]);
    expect(result).toEqual({ accepted: 2, requests: 1, retries: 2 });
    expect(seen).toHaveLength(3);
    expect(new Set(seen.map((s) => s.body)).size).toBe(1);
    expect(JSON.parse(seen[0]!.body).map((e: { eventId: string }) => e.eventId)).toEqual(["e-1", "e-2"]);
    expect(sleeps.every((ms) => ms >= 2000)).toBe(true);
  });

  it("backs off exponentially without Retry-After, capped", () => {
    const client = new IngestClient({
      baseUrl: "http://127.0.0.1:1",
      initialBackoffMs: 100,
      maxBackoffMs: 1000,
      random: () => 1,
    });
    expect([1, 2, 3, 4, 5, 6].map((r) => client.backoffMs(r, undefined))).toEqual([100, 200, 400, 800, 1000, 1000]);
    const jittered = new IngestClient({ baseUrl: "http://127.0.0.1:1", initialBackoffMs: 100, random: () => 0 });
    expect(jittered.backoffMs(3, undefined)).toBe(200);
  });

  it("does not retry a 400 and reports details at their index in the send call", async () => {
    const { url, seen } = await scripted([
      { status: 202, body: { accepted: 2 } },
      {
        status: 400,
        body: {
          error: "bad",
          code: "INGEST_INVALID_EVENT",
          details: [{ index: 1, path: "state", message: "unknown task state" }],
        },
      },
    ]);
    const client = new IngestClient({ baseUrl: url, maxBatchEvents: 2, sleep: async () => undefined });
    const error = await client.send([event(0), event(1), event(2), event(3)]).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(IngestRejectedError);
    const rejected = error as IngestRejectedError;
    expect(rejected.code).toBe("INGEST_INVALID_EVENT");
    expect(rejected.batchOffset).toBe(2);
    expect(rejected.details).toEqual([{ index: 3, path: "state", message: "unknown task state" }]);
    expect(seen).toHaveLength(2);
  });

  it("does not retry 401, 413 or 415", async () => {
    for (const status of [401, 413, 415]) {
      const { url, seen } = await scripted([{ status, body: { error: "no", code: `CODE_${status}` } }]);
      const client = new IngestClient({ baseUrl: url, sleep: async () => undefined });
      await expect(client.send([event(0)])).rejects.toMatchObject({ status, code: `CODE_${status}` });
      expect(seen).toHaveLength(1);
      await new Promise<void>((resolve) => server!.close(() => resolve()));
      server = undefined;
    }
  });

  it("sends batches in order with the bearer token", async () => {
    const { url, seen } = await scripted([
      { status: 202, body: { accepted: 2 } },
      { status: 202, body: { accepted: 2 } },
      { status: 202, body: { accepted: 1 } },
    ]);
    const client = new IngestClient({ baseUrl: url, token: "t".repeat(20), maxBatchEvents: 2 });
    const result = await client.send([0, 1, 2, 3, 4].map(event));
    expect(result).toEqual({ accepted: 5, requests: 3, retries: 0 });
    expect(seen.flatMap((s) => JSON.parse(s.body).map((e: { eventId: string }) => e.eventId))).toEqual([
      "e-0",
      "e-1",
      "e-2",
      "e-3",
      "e-4",
    ]);
    expect(seen.every((s) => s.authorization === `Bearer ${"t".repeat(20)}`)).toBe(true);
  });

  it("gives up after maxRetries with IngestUnavailableError, also on connection failures", async () => {
    const { url, seen } = await scripted([unavailable]);
    const client = new IngestClient({ baseUrl: url, maxRetries: 3, sleep: async () => undefined });
    await expect(client.send([event(0)])).rejects.toBeInstanceOf(IngestUnavailableError);
    expect(seen).toHaveLength(4);
    const nowhere = new IngestClient({ baseUrl: "http://127.0.0.1:1", maxRetries: 2, sleep: async () => undefined });
    await expect(nowhere.send([event(0)])).rejects.toMatchObject({ name: "IngestUnavailableError", attempts: 3 });
  });

  it("reads Retry-After as seconds or an HTTP date", () => {
    expect(retryAfterMs("3")).toBe(3000);
    expect(retryAfterMs(new Date(10_000).toUTCString(), 4_000)).toBe(6000);
    expect(retryAfterMs("soon")).toBeUndefined();
    expect(retryAfterMs(null)).toBeUndefined();
  });
});
