import { existsSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, describe, expect, it } from "vitest";
import { autoCheckpointPages, type Checkpointed, Checkpointer } from "./sqlite-checkpointer.ts";
import { SqliteStore } from "./sqlite-store.ts";

const dir = mkdtempSync(join(tmpdir(), "sqlite-checkpointer-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const pause = () => new Promise((resolve) => setTimeout(resolve, 2));

function database(name: string): { db: Database.Database; file: string } {
  const file = join(dir, name);
  const db = new Database(file);
  db.pragma("journal_mode = WAL");
  db.pragma("synchronous = NORMAL");
  db.exec("CREATE TABLE t (id INTEGER PRIMARY KEY, body BLOB)");
  return { db, file };
}

const walBytes = (file: string) => (existsSync(`${file}-wal`) ? statSync(`${file}-wal`).size : 0);

/** 200 transactions of 100 KB each (20 MB); the largest the WAL file grew to. */
async function write(db: Database.Database, file: string): Promise<number> {
  const insert = db.prepare("INSERT INTO t (body) VALUES (?)");
  const body = Buffer.alloc(100_000, 7);
  let largest = 0;
  for (let i = 0; i < 200; i++) {
    db.transaction(() => insert.run(body))();
    largest = Math.max(largest, walBytes(file));
    await pause();
  }
  return largest;
}

describe("the WAL checkpoint on its own thread", () => {
  it("keeps the WAL bounded while the writer's own checkpoint is off, which without it grows by everything written", async () => {
    const alone = database("alone.sqlite");
    alone.db.pragma("wal_autocheckpoint = 0");
    const unbounded = await write(alone.db, alone.file);
    alone.db.close();
    expect(unbounded).toBeGreaterThan(20_000_000);

    const { db, file } = database("threaded.sqlite");
    const results: Checkpointed[] = [];
    // A thread starved by a busy machine still gets 10 s to finish a checkpoint the writer waits for.
    const checkpointer = new Checkpointer(db, file, {
      everyMs: 10,
      settleMs: 10_000,
      onCheckpoint: (r) => results.push(r),
    });
    const insert = db.prepare("INSERT INTO t (body) VALUES (?)");
    const body = Buffer.alloc(100_000, 7);
    let largest = 0;
    for (let i = 0; i < 200; i++) {
      await checkpointer.beforeTransaction();
      db.transaction(() => insert.run(body))();
      checkpointer.committed();
      largest = Math.max(largest, walBytes(file));
      await pause();
    }
    expect(db.pragma("wal_autocheckpoint", { simple: true })).toBe(0);
    expect(checkpointer.running).toBe(true);
    expect(results.length).toBeGreaterThan(0);
    expect(results.some((r) => r.checkpointed > 0)).toBe(true);
    expect(largest).toBeLessThan(8_000_000);
    await checkpointer.close();
    expect(db.prepare("SELECT count(*) AS n FROM t").get()).toEqual({ n: 200 });
    db.close();
    expect(existsSync(`${file}-wal`)).toBe(false);
  });

  it("waits for a reader that pins the WAL at most once per ten waits' time, then writes on", async () => {
    const { db, file } = database("pinned.sqlite");
    const checkpointer = new Checkpointer(db, file, { everyMs: 5, settleMs: 100 });
    const reader = new Database(file, { readonly: true });
    reader.exec("BEGIN");
    reader.prepare("SELECT count(*) AS n FROM t").get();
    const insert = db.prepare("INSERT INTO t (body) VALUES (?)");
    const body = Buffer.alloc(100_000, 7);
    const waits: number[] = [];
    const began = performance.now();
    for (let i = 0; i < 120; i++) {
      const started = performance.now();
      await checkpointer.beforeTransaction();
      waits.push(performance.now() - started);
      db.transaction(() => insert.run(body))();
      checkpointer.committed();
      await pause();
    }
    const elapsed = performance.now() - began;
    reader.exec("COMMIT");
    reader.close();
    // Each wait that ran out is one settle (100 ms), and the next comes ten settles later at the earliest.
    const long = waits.filter((w) => w >= 90);
    expect(long.length).toBeGreaterThanOrEqual(1);
    expect(long.length).toBeLessThanOrEqual(1 + Math.floor(elapsed / 1_000));
    // Bounded, not forever (a busy machine stretches a 100 ms timer, never to seconds).
    for (const w of long) expect(w).toBeLessThan(2_000);
    await checkpointer.close();
    db.close();
  });

  it("hands the checkpoint back to the writer when the thread fails", async () => {
    const { db, file } = database("fallback.sqlite");
    const failures: Error[] = [];
    const checkpointer = new Checkpointer(db, join(dir, "no-such-folder", "x.sqlite"), {
      onFailure: (e) => failures.push(e),
    });
    expect(db.pragma("wal_autocheckpoint", { simple: true })).toBe(0);
    // A worker thread can take a while to start on a busy machine.
    const deadline = Date.now() + 30_000;
    while (failures.length === 0 && Date.now() < deadline) await pause();
    expect(failures).toHaveLength(1);
    expect(checkpointer.running).toBe(false);
    expect(db.pragma("wal_autocheckpoint", { simple: true })).toBe(autoCheckpointPages);
    // The writer's own checkpoint bounds the WAL again (1,000 pages of 4 KB and the commit crossing them).
    expect(await write(db, file)).toBeLessThan(8_000_000);
    checkpointer.committed(); // a no-op once failed
    await checkpointer.close();
    db.close();
  });

  it("leaves no WAL behind when its store closes, and everything committed is there on reopening", async () => {
    const file = join(dir, "store.sqlite");
    const store = new SqliteStore(file, { everyMs: 10 });
    await store.exec(["CREATE TABLE t (id INTEGER PRIMARY KEY, body TEXT)"]);
    for (let i = 0; i < 50; i++)
      await store.write(async (tx) => tx.run("INSERT INTO t (body) VALUES (?)", ["x".repeat(10_000)]));
    await store.close();
    expect(existsSync(`${file}-wal`)).toBe(false);
    const again = new SqliteStore(file);
    expect(await again.read(async (r) => r.all("SELECT count(*) AS n FROM t"))).toEqual([{ n: 50 }]);
    await again.close();
  });
});
