/**
 * The buffer, on its spool, sending through the ingest client as the proxy builds it, against a real
 * ingest server with a tiny rate limit on the real Kafka: every batch refused with 429 stays buffered and
 * is sent again after Retry-After, and every observation lands on the topic exactly once.
 */
import { mkdtempSync, rmSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { configDefaults, createIngestApp } from "@a2a-ledger/ingest";
import { IngestClient } from "@a2a-ledger/ingest-client";
import { createKafka, endpointsFromEnv } from "@a2a-ledger/kafka";
import { createTestTopic, readMessages, topicEndOffset } from "@a2a-ledger/kafka/testing";
import { createLogger } from "@a2a-ledger/logging";
import { Serde } from "@a2a-ledger/schemas/serde";
import { describe, expect, it } from "vitest";
import { observation } from "../test/observation-fixture.ts";
import { createMetrics } from "./metrics.ts";
import { ObservationBuffer } from "./observation-buffer.ts";
import { ObservationSpool } from "./observation-spool.ts";

describe("ObservationBuffer against a rate-limited ingest", () => {
  // The client as the proxy's app builds it (two retries, each after Retry-After), and one without retries, so every 429 reaches the buffer.
  it.each([2, 0])(
    "keeps each batch refused with 429 and delivers every observation exactly once (client retries: %i)",
    async (clientRetries) => {
      const endpoints = endpointsFromEnv();
      const kafka = createKafka({ brokers: endpoints.brokers, clientId: `proxy-rate-limit-test-${clientRetries}` });
      const admin = kafka.admin();
      await admin.connect();
      const topic = await createTestTopic(admin, "proxy.rate-limit", 3);
      const ingest = createIngestApp(
        {
          ...configDefaults,
          brokers: endpoints.brokers,
          registryUrl: endpoints.registryUrl,
          topic,
          tokens: [],
          logLevel: "silent",
          rateLimit: 1,
          rateLimitWindowMs: 1_000,
        },
        { logger: false },
      );
      const dir = mkdtempSync(join(tmpdir(), "buffer-rate-limit-"));
      try {
        await ingest.server.listen({ host: "127.0.0.1", port: 0 });
        const statuses: number[] = [];
        const countingFetch: typeof fetch = async (input, init) => {
          const response = await fetch(input, init);
          statuses.push(response.status);
          return response;
        };
        // The ingest client as the proxy's app builds it (app.ts): Retry-After honoured up to 5 s.
        const sender = new IngestClient({
          baseUrl: `http://127.0.0.1:${(ingest.server.server.address() as AddressInfo).port}`,
          maxBatchEvents: 5,
          maxRetries: clientRetries,
          initialBackoffMs: 100,
          maxBackoffMs: 1_000,
          maxRetryAfterMs: 5_000,
          timeoutMs: 10_000,
          fetch: countingFetch,
        });
        const log = createLogger("proxy", "silent");
        const { spool, replayed } = ObservationSpool.open({
          dir,
          log,
          metrics: {
            badRecord: () => undefined,
            writeError: () => undefined,
            failing: () => undefined,
            fsyncSeconds: () => undefined,
            diskBytes: () => undefined,
          },
        });
        const metrics = createMetrics();
        const failures = async () =>
          (await metrics.registry.getSingleMetric("a2a_proxy_ingest_failures_total")?.get())?.values[0]?.value ?? 0;
        const buffer = new ObservationBuffer({
          sender,
          spool,
          replayed,
          capacity: 1_000,
          maxBytes: 1 << 30,
          failMode: "closed",
          batchMax: 5,
          flushDelayMs: 0,
          retryInitialMs: 50,
          retryMaxMs: 500,
          metrics,
          log,
        });
        const count = 20;
        for (let i = 0; i < count; i++) buffer.offer(observation(i, { correlationId: `rate-limit-c${i % 4}` }));
        buffer.start();
        const deadline = Date.now() + 40_000;
        while (buffer.length > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
        expect(buffer.length).toBe(0);
        await buffer.close(0);

        expect(statuses.filter((s) => s === 429).length).toBeGreaterThan(0);
        // Without client retries each 429 is a failed send the buffer backs off from and sends again.
        if (clientRetries === 0) expect(await failures()).toBe(statuses.filter((s) => s === 429).length);
        expect(statuses.filter((s) => s === 202)).toHaveLength(count / 5);
        expect(await topicEndOffset(admin, topic)).toBe(count);
        const serde = new Serde(endpoints.registryUrl);
        const ids = await Promise.all(
          (await readMessages(kafka, topic, count, 30_000)).map(
            async (m) => ((await serde.decode(m.value ?? Buffer.alloc(0))).record as { eventId: string }).eventId,
          ),
        );
        expect(ids.sort()).toEqual(Array.from({ length: count }, (_, i) => `e-${i}`).sort());
      } finally {
        await ingest.server.close();
        await admin.deleteTopics({ topics: [topic] }).catch(() => undefined);
        await admin.disconnect();
        rmSync(dir, { recursive: true, force: true });
      }
    },
    60_000,
  );
});
