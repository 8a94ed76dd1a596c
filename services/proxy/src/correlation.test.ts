import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { CorrelationMemory, correlationOfId, validCorrelationId } from "./correlation.ts";
import Database from "better-sqlite3";
import { SqliteCorrelationStore } from "./correlation-store.ts";

describe("CorrelationMemory", () => {
  it("keeps the first correlation of a task and forgets the least recently used beyond its capacity", () => {
    const memory = new CorrelationMemory(2);
    expect(memory.remember("t1", "c1")).toBe("c1");
    expect(memory.remember("t1", "other")).toBe("c1");
    memory.remember("t2", "c2");
    memory.lookup("t1");
    memory.remember("t3", "c3");
    expect(memory.lookup("t2")).toBeUndefined();
    expect(memory.lookup("t1")).toBe("c1");
    expect(memory.size).toBe(2);
  });
});

describe("CorrelationMemory in its store", () => {
  const file = () => join(mkdtempSync(join(tmpdir(), "correlations-")), "correlations.sqlite");

  it("knows after a restart the correlation of every task it remembered, even without a clean stop", () => {
    const path = file();
    const before = new CorrelationMemory(10, { store: new SqliteCorrelationStore(path) });
    before.remember("task-1", "order-1");
    before.remember("task-2", "task-2");
    // No close(): the process is killed.
    const after = new CorrelationMemory(10, { store: new SqliteCorrelationStore(path) });
    expect(after.lookup("task-1")).toBe("order-1");
    expect(after.lookup("task-2")).toBe("task-2");
    expect(after.remember("task-1", "other")).toBe("order-1");
    expect(after.size).toBe(2);
    after.close();
  });

  it("forgets the least recently used first, across restarts too", () => {
    const path = file();
    let clock = 1_000;
    const now = () => clock++;
    const first = new CorrelationMemory(3, { store: new SqliteCorrelationStore(path), now });
    first.remember("t1", "c1");
    first.remember("t2", "c2");
    first.remember("t3", "c3");
    first.lookup("t1");
    first.close();
    // A smaller memory after the restart keeps the most recently used: t1 (used last), then t3.
    const second = new CorrelationMemory(2, { store: new SqliteCorrelationStore(path), now });
    expect(second.lookup("t2")).toBeUndefined();
    expect(second.lookup("t3")).toBe("c3");
    expect(second.lookup("t1")).toBe("c1");
    second.remember("t4", "c4");
    second.close();
    const third = new CorrelationMemory(10, { store: new SqliteCorrelationStore(path), now });
    expect([third.lookup("t1"), third.lookup("t3"), third.lookup("t4"), third.lookup("t2")]).toEqual([
      "c1",
      undefined,
      "c4",
      undefined,
    ]);
    expect(third.size).toBe(2);
    third.close();
  });
});

describe("CorrelationMemory bounded by age", () => {
  it("forgets a task nobody named for longer than maxAgeMs, in memory and in its store, across restarts too", () => {
    const path = join(mkdtempSync(join(tmpdir(), "correlations-")), "correlations.sqlite");
    const day = 24 * 3_600_000;
    let clock = 1_000_000;
    const now = () => clock;
    const sizes: number[] = [];
    const first = new CorrelationMemory(100, {
      store: new SqliteCorrelationStore(path),
      now,
      maxAgeMs: 30 * day,
      onSize: (n) => sizes.push(n),
    });
    first.remember("old", "c-old");
    first.remember("kept", "c-kept");
    clock += 20 * day;
    // Named again: its age starts over.
    expect(first.lookup("kept")).toBe("c-kept");
    first.remember("new", "c-new");
    clock += 10 * day + 1;
    expect(first.lookup("old")).toBeUndefined();
    expect(first.lookup("kept")).toBe("c-kept");
    expect(first.size).toBe(2);
    expect(sizes.at(-1)).toBe(2);
    first.close();
    // After a restart, what aged out meanwhile is gone too, and the store no longer holds it.
    clock += 25 * day;
    const second = new CorrelationMemory(100, { store: new SqliteCorrelationStore(path), now, maxAgeMs: 30 * day });
    expect(second.lookup("new")).toBeUndefined();
    expect(second.lookup("kept")).toBe("c-kept");
    second.close();
    const rows = new Database(path).prepare("SELECT task_id FROM correlation ORDER BY task_id").all();
    expect(rows).toEqual([{ task_id: "kept" }]);
  });
});

describe("SqliteCorrelationStore given a file that is not its database", () => {
  for (const [what, write] of [
    [
      "random bytes",
      (path: string) => writeFileSync(path, Buffer.from(Array.from({ length: 5_000 }, (_, i) => (i * 131 + 7) % 256))),
    ],
    [
      "another program's database",
      (path: string) =>
        new Database(path).exec("CREATE TABLE correlation (x BLOB); INSERT INTO correlation VALUES (1);"),
    ],
  ] as const) {
    it(`moves ${what} aside, says so, and starts with an empty memory`, () => {
      const dir = mkdtempSync(join(tmpdir(), "correlations-"));
      const path = join(dir, "correlations.sqlite");
      write(path);
      const original = readFileSync(path);
      const problems: { movedTo: string }[] = [];
      const memory = new CorrelationMemory(10, { store: new SqliteCorrelationStore(path, (p) => problems.push(p)) });
      expect(memory.size).toBe(0);
      expect(problems).toHaveLength(1);
      expect(readFileSync(problems[0]!.movedTo)).toEqual(original);
      memory.remember("t1", "c1");
      memory.close();
      expect(new CorrelationMemory(10, { store: new SqliteCorrelationStore(path) }).lookup("t1")).toBe("c1");
      expect(readdirSync(dir).filter((n) => n.includes(".unreadable-"))).toHaveLength(1);
    });
  }
});

describe("correlationOfId", () => {
  it("is the id itself when usable, a stable digest when not, and a correlation of its own without an id — never empty", () => {
    expect(correlationOfId("task", "t-1")).toBe("t-1");
    const spaced = correlationOfId("message", "a message id with spaces");
    expect(spaced).toMatch(/^message-[0-9a-f]{32}$/);
    expect(correlationOfId("message", "a message id with spaces")).toBe(spaced);
    expect(correlationOfId("task", "ü".repeat(300))).toMatch(/^task-[0-9a-f]{32}$/);
    const none = correlationOfId("message", "");
    expect(none).toMatch(/^message-[0-9a-f-]{36}$/);
    expect(correlationOfId("message", "   ")).not.toBe(none);
    for (const id of ["", " ", "x".repeat(201), "tab\there"])
      expect(validCorrelationId(correlationOfId("message", id))).not.toBeNull();
  });
});

describe("validCorrelationId", () => {
  it("accepts 1–200 visible ASCII characters, trimmed, and refuses the rest", () => {
    expect(validCorrelationId(" order-42 ")).toBe("order-42");
    for (const bad of ["", "   ", "a b", "x".repeat(201), "tab\there", "ünïcode", "line\nbreak", null, undefined])
      expect(validCorrelationId(bad)).toBeNull();
  });
});
