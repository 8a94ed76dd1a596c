/**
 * The ingest client against a real ingest server with a tiny rate limit on the real Kafka: the client
 * waits what each 429's Retry-After asks and sends the same batch again, so every event of a send lands
 * exactly once (a 429 is answered before the body is read, so nothing of a refused batch was produced).
 */
import { IngestClient, type ObservationInput } from "@a2a-ledger/ingest-client";
import { metricSum } from "@a2a-ledger/env/testing";
import type { AddressInfo } from "node:net";
import { describe, expect, it } from "vitest";
import { observation } from "../test/observations.ts";
import { endOffsetSum, readTopic, servedTopic } from "../test/stack.ts";

const token = "client-rate-limit-token-0123456789";
const served = servedTopic("client-rate-limit", {
  tokens: [{ token, observers: ["*"] }],
  rateLimit: 2,
  rateLimitWindowMs: 1_000,
});

describe("the ingest client against a rate-limited ingest", () => {
  it("retries each 429 after Retry-After and delivers every event exactly once", async () => {
    await served.app.server.listen({ host: "127.0.0.1", port: 0 });
    const url = `http://127.0.0.1:${(served.app.server.server.address() as AddressInfo).port}`;
    const statuses: number[] = [];
    const countingFetch: typeof fetch = async (input, init) => {
      const response = await fetch(input, init);
      statuses.push(response.status);
      return response;
    };
    const events = Array.from({ length: 48 }, (_, i) =>
      observation("client-rl", i, `client-rl-c${i % 5}`),
    ) as unknown as ObservationInput[];
    // 8 requests of 6 events against 2 requests a second: most requests are refused at least once.
    const client = new IngestClient({
      baseUrl: url,
      token,
      maxBatchEvents: 6,
      maxRetries: 8,
      initialBackoffMs: 50,
      maxBackoffMs: 200,
      fetch: countingFetch,
    });
    const sent = await client.send(events);
    expect(sent.accepted).toBe(events.length);
    expect(statuses.filter((s) => s === 429).length).toBeGreaterThan(0);
    expect(statuses.filter((s) => s === 202)).toHaveLength(8);
    const metrics = (await served.app.server.inject("/metrics")).body;
    expect(metricSum(metrics, "ingest_rejects_total", { code: "INGEST_RATE_LIMITED" })).toBe(
      statuses.filter((s) => s === 429).length,
    );

    const total = await endOffsetSum(served.admin, served.topic);
    expect(total).toBe(events.length);
    const records = await readTopic(served.kafka, served.topic, total);
    const ids = await Promise.all(
      records.map(async (r) => ((await served.app.serde.decode(r.value)).record as { eventId: string }).eventId),
    );
    expect(ids.sort()).toEqual(events.map((e) => e.eventId).sort());
  }, 60_000);
});
