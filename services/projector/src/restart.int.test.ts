import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, beforeAll, expect, it } from "vitest";
import type { Admin } from "@a2a-ledger/kafka";
import type { Reconciler } from "@a2a-ledger/reconciler";
import type { Observation } from "@a2a-ledger/schemas";
import { dumpGeneration } from "../test/dump.ts";
import { killHard, stopChild } from "@a2a-ledger/env/testing";
import {
  deleteTopics,
  type Fixture,
  fixture,
  kafka,
  produce,
  runRebuildProcess,
  serde,
  startProjectorProcess,
  startReconciler,
  waitFor,
  waitForGroupAtEnd,
  generatedObservations,
} from "../test/pipeline.ts";
import { activeGeneration } from "./store/generations.ts";
import { SqliteStore } from "./store/sqlite-store.ts";

const count = 4_000;
const observations: Observation[] = generatedObservations(count);

let admin: Admin;
let f: Fixture;
let reconciler: Reconciler;
const dir = mkdtempSync(join(tmpdir(), "projector-restart-"));
const file = join(dir, "projector.sqlite");

beforeAll(async () => {
  admin = kafka.admin();
  await admin.connect();
  await serde.registerAll();
  f = await fixture(admin, "projector-restart", {
    A2A_LEDGER_PROJECTOR_SQLITE_PATH: file,
    A2A_LEDGER_PROJECTOR_MAX_BATCH: "25",
    A2A_LEDGER_PROJECTOR_CONCURRENCY: "1",
  });
  reconciler = await startReconciler(f);
});

afterAll(async () => {
  await reconciler?.stop();
  if (f !== undefined) await deleteTopics(admin, f);
  await admin?.disconnect();
  rmSync(dir, { recursive: true, force: true });
});

/** Observations the projector has committed, read from its database file by another connection. */
function projectedObservations(): number {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    const active = db.prepare("SELECT gen FROM projector_active WHERE id = 1").get() as { gen: number } | undefined;
    if (active === undefined) return 0;
    const row = db
      .prepare(`SELECT COALESCE(SUM(next_offset), 0) AS n FROM v${active.gen}_offset WHERE topic = ?`)
      .get(f.topics.observations) as { n: number };
    return Number(row.n);
  } catch {
    return 0;
  } finally {
    db.close();
  }
}

it("killed with SIGKILL mid-stream and restarted, resumes where it stopped: the views equal a fresh rebuild", async () => {
  const first = await startProjectorProcess(f.env);
  await produce(f.topics.observations, observations);
  const atKill = await waitFor(
    "the projector to be mid-stream",
    async () => {
      const n = projectedObservations();
      return n >= count * 0.1 ? n : undefined;
    },
    120_000,
  );
  await killHard(first.child);
  expect(atKill).toBeLessThan(count);

  const second = await startProjectorProcess(f.env);
  await waitForGroupAtEnd(admin, `reconciler-${f.suffix}`, f.topics.observations, 180_000);
  await waitFor(
    "the restarted projector to catch up",
    async () => {
      const response = await fetch(`${second.url}v1/staleness`);
      const body = (await response.json()) as { topics: { lagRecords: number | null }[] };
      return body.topics.every((t) => t.lagRecords === 0) ? true : undefined;
    },
    180_000,
  );
  await stopChild(second.child);

  const store = new SqliteStore(file);
  try {
    const resumedGen = (await store.read(activeGeneration)) as number;
    const resumed = await dumpGeneration(store, resumedGen);
    expect(resumed.event?.filter((e) => (e as { kind: string }).kind === "observation")).toHaveLength(count);
    expect(resumed.task?.length).toBeGreaterThan(100);

    const rebuilt = await runRebuildProcess(f.env);
    expect(rebuilt.code, rebuilt.output).toBe(0);
    const rebuiltGen = (await store.read(activeGeneration)) as number;
    expect(rebuiltGen).toBeGreaterThan(resumedGen);
    expect(await dumpGeneration(store, rebuiltGen)).toEqual(resumed);
  } finally {
    await store.close();
  }
}, 600_000);
