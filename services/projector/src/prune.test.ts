/**
 * `prune --before`: the cut it reads, the entry point's refusal, and a prune beside a batch that holds a
 * correlation's lock. On the stores the real pipeline wrote from Kafka: prune.int.test.ts.
 */
import { describe, expect, it } from "vitest";
import type { Observation } from "@a2a-ledger/schemas";
import { generatedObservations, runPrune } from "../test/pipeline.ts";
import { openStoreAt, storeLocation, useStores } from "../test/stores.ts";
import type { ProjectorInput } from "./inputs.ts";
import { parseCut, prune } from "./prune.ts";
import { migrate } from "./store/generations.ts";
import { tableNames } from "./store/schema.ts";
import { lockSpace, writeBatch } from "./views/writer.ts";

const day = 24 * 60 * 60 * 1000;
const cutMs = Date.UTC(2025, 3, 1);

describe("parseCut", () => {
  it("reads a date (midnight UTC) or a date-time with an offset, and refuses anything else with the reason", () => {
    expect(parseCut("2025-04-01")).toEqual({ ok: true, value: cutMs });
    expect(parseCut("2025-04-01T02:00:00+02:00")).toEqual({ ok: true, value: cutMs });
    for (const bad of ["2025-04-31", "yesterday", "2025-04-01T00:00:00", "1743465600000", ""]) {
      const parsed = parseCut(bad);
      expect(parsed.ok).toBe(false);
      if (!parsed.ok) expect(parsed.message).toContain("--before");
    }
  });

  it("the entry point refuses a bad date with exit code 2 before touching any store", async () => {
    const result = await runPrune(
      { ...process.env, A2A_LEDGER_PROJECTOR_SQLITE_PATH: "/nonexistent/never.sqlite" },
      "last week",
    );
    expect(result.code).toBe(2);
    expect(result.output).toContain("--before: expected an ISO-8601 date");
  });
});

// On SQLite a chunk and a batch never interleave: each holds the database's write lock (BEGIN IMMEDIATE)
// for its whole transaction. (Two stores in one process cannot show it: better-sqlite3 waits for the lock
// synchronously, so the batch holding it would never resume.)
describe.each(["postgres"] as const)("prune beside a batch on %s", (kind) => {
  useStores();

  it("a correlation that a batch holding its lock brings past the cut is kept: the cut is checked again under the lock", async () => {
    const location = await storeLocation(kind);
    const batchStore = openStoreAt(kind, location);
    const pruneStore = openStoreAt(kind, location);
    try {
      const gen = await migrate(batchStore);
      const t = tableNames(gen);
      const observations = generatedObservations(400)
        .filter((o) => !o.correlationId.startsWith("probe-"))
        .map((o) => ({ ...o, occurredAt: o.occurredAt - 100 * day }) as Observation);
      const inputs: ProjectorInput[] = observations.map((record, offset) => ({
        kind: "observation",
        source: { topic: "observations", partition: 0, offset, timestamp: record.occurredAt },
        record,
      }));
      expect((await writeBatch(batchStore, gen, "observations", 0, inputs, { lowWatermark: 0 })).kind).toBe("written");
      const ids = [...new Set(observations.map((o) => o.correlationId))].sort();
      const held = ids[Math.floor(ids.length / 2)] as string;

      // A batch's transaction: it holds the correlation's lock while the prune starts, then moves it past the cut.
      let locked!: () => void;
      const lockTaken = new Promise<void>((resolve) => (locked = resolve));
      const batch = batchStore.write(async (tx) => {
        await tx.lock(lockSpace.correlation, [held]);
        locked();
        await new Promise((r) => setTimeout(r, 1_000));
        await tx.run(`UPDATE ${t.task} SET last_at = ? WHERE correlation_id = ?`, [cutMs + 1, held]);
      });
      await lockTaken;
      const result = await prune(pruneStore, cutMs, undefined, { chunk: 7 });
      await batch;

      expect(result.correlations).toBe(ids.length - 1);
      const left = await pruneStore.read((r) => r.all(`SELECT correlation_id FROM ${t.task}`));
      expect(left.map((r) => r.correlation_id)).toEqual([held]);
      const events = await pruneStore.read((r) => r.all(`SELECT DISTINCT correlation_id FROM ${t.event}`));
      expect(events.map((r) => r.correlation_id)).toEqual([held]);
    } finally {
      await batchStore.close();
      await pruneStore.close();
    }
  });
});
