/**
 * GET /v1/tasks/:id/events.ndjson is read and written page by page: a correlation of several thousand
 * observations comes out byte for byte as the former whole read gave it (one SELECT of every body in log
 * order), on SQLite and PostgreSQL, while no read returns more than a page and each page after the first
 * is read only when the response asks for it.
 */
import { describe, expect, it } from "vitest";
import { LiveStream } from "../live-stream.ts";
import { createMetrics } from "../metrics.ts";
import { buildServer } from "../server.ts";
import { activeGeneration } from "../store/generations.ts";
import { tableNames, type Tables } from "../store/schema.ts";
import type { Reader, Row, SqlValue } from "../store/store.ts";
import { bigTask } from "../../test/big-task.ts";
import { newStore, storeKinds, useStores } from "../../test/stores.ts";
import { inputsFor } from "../../test/story.ts";
import { ndjsonPageSize, observationsNdjson, toIngestJson, type ViewRead } from "./lineage.ts";
import { writeBatch } from "./writer.ts";
import type { Observation } from "@a2a-ledger/schemas";

useStores();
const kafka = { endOffsets: async () => [], kafkaReachable: async () => true, consuming: () => true };

describe.each(storeKinds)("events.ndjson on %s", (kind) => {
  it("streams several thousand observations page by page, byte-identical to the whole read", async () => {
    const store = await newStore(kind);
    const gen = (await store.read(activeGeneration)) as number;
    const t = tableNames(gen);
    const observations = bigTask("nd-big", 3_000);
    for (const { topic, partition, inputs } of inputsFor(observations)) {
      for (let i = 0; i < inputs.length; i += 1_000)
        await writeBatch(store, gen, topic, partition, inputs.slice(i, i + 1_000), { lowWatermark: 0 });
    }
    expect(observations.length).toBeGreaterThan(3 * ndjsonPageSize);
    // The former whole read: every body of the correlation in log order, one line each.
    const whole = await store.read((r) =>
      r.all(
        `SELECT body FROM ${t.event} WHERE correlation_id = ? AND kind = 'observation' ORDER BY log_partition, log_offset`,
        ["nd-big"],
      ),
    );
    const expected = whole
      .map((row) => `${JSON.stringify(toIngestJson(JSON.parse(String(row.body)) as Observation))}\n`)
      .join("");
    expect(whole).toHaveLength(observations.length);

    const stream = new LiveStream(store);
    const server = buildServer({
      config: { policy: { trustedVendors: [] }, cursorSecret: "a-test-secret-of-16+", maxStreams: 2 },
      store,
      stream,
      metrics: createMetrics(),
      kafka,
      logger: false,
    });
    try {
      const response = await server.inject({ method: "GET", url: "/v1/tasks/nd-big/events.ndjson" });
      expect(response.statusCode).toBe(200);
      expect(response.headers["content-type"]).toBe("application/x-ndjson; charset=utf-8");
      expect(response.headers["content-disposition"]).toBe('attachment; filename="nd-big.ndjson"');
      expect(response.body).toBe(expected);
      expect((await server.inject({ method: "GET", url: "/v1/tasks/nd-none/events.ndjson" })).json()).toMatchObject({
        code: "PROJECTOR_UNKNOWN_TASK",
      });
    } finally {
      await server.close();
      stream.stop();
    }

    // No read returns more than a page, and a page is read only when the consumer asks for it.
    let reads = 0;
    let largest = 0;
    const counting: ViewRead = (fn) =>
      store.read((r) => {
        reads++;
        const reader: Reader = {
          inList: r.inList,
          all: async (sql: string, params?: readonly SqlValue[]): Promise<Row[]> => {
            const rows = await r.all(sql, params);
            largest = Math.max(largest, rows.length);
            return rows;
          },
        };
        return fn(reader, t as Tables);
      });
    const pages = await observationsNdjson(counting, "nd-big", 250);
    expect(reads).toBe(1);
    let text = "";
    let count = 0;
    for await (const page of pages ?? []) {
      text += page;
      count++;
    }
    expect(text).toBe(expected);
    expect(largest).toBeLessThanOrEqual(250);
    expect(count).toBe(Math.ceil(observations.length / 250));
    expect(reads).toBeGreaterThanOrEqual(count);
  }, 120_000);
});
