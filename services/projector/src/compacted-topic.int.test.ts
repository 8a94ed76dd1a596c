/**
 * On a compacted input topic (a2a.capabilities.v1) the offsets are not contiguous once the log cleaner
 * ran: the first record is past the log start offset, and records after any stored offset may be gone.
 * The projector must read such a topic to its end — fresh, by rebuild, and restarted after compaction
 * removed the records at and after the offset it had stored — instead of seeking back forever.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { lifecycleExtensionUri } from "@a2a-ledger/core";
import type { Admin } from "@a2a-ledger/kafka";
import { readToEnd } from "@a2a-ledger/kafka/testing";
import type { Reconciler } from "@a2a-ledger/reconciler";
import { parseObservationJson } from "@a2a-ledger/core";
import type { Observation } from "@a2a-ledger/schemas";
import { loadConfig } from "./config.ts";
import { createLogger } from "./logger.ts";
import { rebuild } from "./rebuild.ts";
import { openStore } from "./store/open-store.ts";
import {
  deleteTopics,
  type Fixture,
  fixture,
  kafka,
  produce,
  serde,
  startProjector,
  startReconciler,
  waitFor,
  waitForGroupAtEnd,
} from "../test/pipeline.ts";

let admin: Admin;
let f: Fixture;
let reconciler: Reconciler;
const dir = mkdtempSync(join(tmpdir(), "projector-compacted-"));
const file = join(dir, "projector.sqlite");
const workers = ["w-compact-a", "w-compact-b"];
let version = 0;

/** A new card version of each worker: one capability snapshot per worker on the compacted topic. */
async function cardRound(): Promise<void> {
  version++;
  const lines = workers.map((w) =>
    JSON.stringify({
      type: "AgentCardObserved",
      eventId: randomUUID(),
      correlationId: `card:${w}`,
      occurredAt: Date.now(),
      observer: "proxy",
      workerId: w,
      cardUrl: `http://${w}/card`,
      card: {
        name: w,
        version: `1.${version}`,
        provider: { organization: "Compaction" },
        capabilities: {
          extensions: [
            {
              uri: lifecycleExtensionUri,
              params: { states: ["TASK_STATE_WORKING", "TASK_STATE_COMPLETED"], taskStore: "ephemeral" },
            },
          ],
        },
        defaultOutputModes: ["text/plain"],
        skills: [{ id: "s", outputModes: ["text/plain"] }],
      },
    }),
  );
  await produce(
    f.topics.observations,
    lines.map((line): Observation => {
      const parsed = parseObservationJson(line);
      if (!parsed.ok) throw new Error(JSON.stringify(parsed.issues));
      return parsed.observation;
    }),
  );
}

/** Offsets of the records a read_committed reader finds on the capabilities topic now. */
async function capabilityOffsets(): Promise<number[]> {
  return (await readToEnd(kafka, admin, f.topics.capabilities)).map((m) => Number(m.offset));
}

/** Until the log cleaner removed the record at `offset` (a later card of its worker superseded it). */
async function compactedAway(offset: number): Promise<number[]> {
  return waitFor(
    `the log cleaner to remove offset ${offset} of ${f.topics.capabilities}`,
    async () => {
      const started = Date.now();
      await cardRound(); // rolls the active segment (segment.ms) so the cleaner can take the older ones
      await waitForGroupAtEnd(admin, `reconciler-${f.suffix}`, f.topics.observations, 60_000);
      const offsets = await capabilityOffsets();
      console.log(`capabilities offsets after round ${version} (${Date.now() - started} ms): ${offsets.join(",")}`);
      return offsets.length > 0 && !offsets.includes(offset) && (offsets[offsets.length - 1] as number) > offset
        ? offsets
        : undefined;
    },
    240_000,
  );
}

beforeAll(async () => {
  admin = kafka.admin();
  await admin.connect();
  await serde.registerAll();
  f = await fixture(admin, "projector-compacted", {
    A2A_LEDGER_PROJECTOR_SQLITE_PATH: file,
    A2A_LEDGER_PROJECTOR_MAX_BATCH: "10",
    A2A_LEDGER_PROJECTOR_CONCURRENCY: "1",
  });
  // The cleaner may take any segment but the active one at once: tiny segments, no lag, any dirt.
  await admin.alterConfigs({
    validateOnly: false,
    resources: [
      {
        type: 2,
        name: f.topics.capabilities,
        configEntries: [
          { name: "cleanup.policy", value: "compact" },
          { name: "segment.ms", value: "200" },
          { name: "min.cleanable.dirty.ratio", value: "0.001" },
          { name: "min.compaction.lag.ms", value: "0" },
          { name: "delete.retention.ms", value: "100" },
        ],
      },
    ],
  });
  reconciler = await startReconciler(f);
});

afterAll(async () => {
  await reconciler?.stop();
  if (f !== undefined) await deleteTopics(admin, f);
  await admin?.disconnect();
  rmSync(dir, { recursive: true, force: true });
});

describe("a compacted capabilities topic", () => {
  it("is read to its end by a fresh projector, by a rebuild, and by a projector restarted after compaction removed the records past its stored offset", async () => {
    for (let i = 0; i < 5; i++) await cardRound();
    const compacted = await compactedAway(0);
    expect(compacted[0]).toBeGreaterThan(0);

    // A fresh projector: the first record is past the log start offset.
    const first = await startProjector(f, {});
    await first.projector.caughtUp(90_000);
    const stored = Number((await first.projector.endOffsets()).find((e) => e.topic === f.topics.capabilities)?.end);
    const workersSeen = await first.server.inject({ method: "GET", url: `/v1/workers/${workers[0]}` });
    expect(workersSeen.statusCode, workersSeen.body).toBe(200);
    await first.stop();

    // Compaction now removes records at and after the offset the projector stored.
    await cardRound();
    const after = await compactedAway(stored);
    expect(after.includes(stored)).toBe(false);
    const restarted = await startProjector(f, {});
    await restarted.projector.caughtUp(90_000);
    expect((await restarted.server.inject({ method: "GET", url: `/v1/workers/${workers[1]}` })).statusCode).toBe(200);
    await restarted.stop();

    // A rebuild reads the compacted topic from its start (in this process: the test's topic settings
    // differ from the code's on purpose, which the projector's own start would refuse).
    const config = loadConfig({ ...f.env });
    const store = openStore(config.store);
    try {
      const result = await rebuild(config, store, createLogger("warn"), { timeoutMs: 120_000, dropAfterMs: 0 });
      expect(result.generation).toBeGreaterThan(result.previous ?? 0);
    } finally {
      await store.close();
    }
  }, 900_000);
});
