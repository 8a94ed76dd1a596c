import { spawnSync } from "node:child_process";
import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  truncateSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ObservationInput } from "@a2a-ledger/ingest-client";
import { createLogger } from "@a2a-ledger/logging";
import { describe, expect, it, vi } from "vitest";
import { observation } from "../test/observation-fixture.ts";
import { fillableFs } from "../test/fillable-fs.ts";
import {
  ObservationSpool,
  SpoolLockedError,
  SpoolUnavailableError,
  type SpoolMetricsSink,
} from "./observation-spool.ts";

function sink() {
  const counts = { torn: 0, corrupt: 0, writeErrors: 0, failing: false, diskBytes: 0 };
  const metrics: SpoolMetricsSink = {
    badRecord: (kind) => void counts[kind]++,
    writeError: () => void counts.writeErrors++,
    failing: (f) => void (counts.failing = f),
    fsyncSeconds: () => undefined,
    diskBytes: (b) => void (counts.diskBytes = b),
  };
  return { counts, metrics };
}

const log = createLogger("proxy", "silent");
const freshDir = () => mkdtempSync(join(tmpdir(), "spool-test-"));
const open = (dir: string, segmentBytes?: number) => {
  const s = sink();
  return {
    ...ObservationSpool.open({ dir, log, metrics: s.metrics, ...(segmentBytes === undefined ? {} : { segmentBytes }) }),
    counts: s.counts,
  };
};
const segments = (dir: string) =>
  readdirSync(dir)
    .filter((n) => n.endsWith(".seg"))
    .sort();

describe("ObservationSpool", () => {
  it("hands back at the next start what was kept and not acknowledged, in order, the same objects", async () => {
    const dir = freshDir();
    const first = open(dir);
    expect(first.replayed).toEqual([]);
    const card = observation(3, {
      type: "AgentCardObserved",
      card: '{"name":"W1","ü":"\\u0000"}',
    } as Partial<ObservationInput>);
    const entries = [observation(0), observation(1), observation(2), card].map((o) => first.spool.append(o));
    expect(entries.map((e) => e.seq)).toEqual([0, 1, 2, 3]);
    first.spool.acknowledge(1);
    await first.spool.kept();
    // No close: the process is gone as a crash leaves it.
    const second = open(dir);
    expect(second.replayed.map((e) => e.seq)).toEqual([2, 3]);
    expect(second.replayed.map((e) => e.observation)).toEqual([observation(2), card]);
    expect(second.replayed.map((e) => e.bytes)).toEqual([entries[2]?.bytes, entries[3]?.bytes]);
    // New observations continue the sequence.
    expect(second.spool.append(observation(4)).seq).toBe(4);
    await second.spool.close();
  });

  it("kept() resolves once the records appended before it are on disk, one write for what came in one turn", async () => {
    const dir = freshDir();
    const { spool } = open(dir);
    for (let i = 0; i < 50; i++) spool.append(observation(i));
    const size = () => segments(dir).reduce((sum, n) => sum + statSync(join(dir, n)).size, 0);
    await spool.kept();
    const afterFirst = size();
    expect(afterFirst).toBeGreaterThan(50 * 100);
    expect(open(dir).replayed).toHaveLength(50);
  });

  it("deletes segments whose observations were all acknowledged, and leaves nothing behind when all were", async () => {
    const dir = freshDir();
    const { spool, counts } = open(dir, 600);
    for (let i = 0; i < 40; i++) {
      spool.append(observation(i));
      await spool.kept();
    }
    expect(segments(dir).length).toBeGreaterThan(5);
    spool.acknowledge(29);
    await spool.kept();
    spool.append(observation(40));
    await spool.kept();
    const left = open(dir);
    expect(left.replayed.map((e) => e.seq)).toEqual([30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40]);
    expect(segments(dir).length).toBeLessThan(6);
    expect(counts.diskBytes).toBeGreaterThan(0);
    left.spool.acknowledge(40);
    await left.spool.close();
    expect(segments(dir)).toEqual([]);
    expect(readdirSync(dir)).toEqual([]);
  });

  it("an acknowledgement outlives the segment it was written in", async () => {
    const dir = freshDir();
    const { spool } = open(dir, 300);
    for (let i = 0; i < 6; i++) spool.append(observation(i));
    await spool.kept();
    spool.acknowledge(2);
    await spool.kept();
    // Enough traffic for several rolls: the segment that held the acknowledgement is gone by now.
    for (let i = 6; i < 30; i++) {
      spool.append(observation(i));
      await spool.kept();
    }
    expect(open(dir).replayed.map((e) => e.seq)).toEqual(Array.from({ length: 27 }, (_, i) => i + 3));
  });

  it("a torn last record (a crash in the middle of a write) is skipped and counted, never a failed start", async () => {
    const dir = freshDir();
    const { spool } = open(dir);
    for (let i = 0; i < 3; i++) spool.append(observation(i));
    await spool.kept();
    const [name] = segments(dir);
    const path = join(dir, name as string);
    truncateSync(path, statSync(path).size - 7);
    const reopened = open(dir);
    expect(reopened.replayed.map((e) => e.observation.eventId)).toEqual(["e-0", "e-1"]);
    expect(reopened.counts).toMatchObject({ torn: 1, corrupt: 0 });
    reopened.spool.append(observation(9));
    await reopened.spool.kept();
    const third = open(dir);
    expect(third.replayed.map((e) => e.observation.eventId)).toEqual(["e-0", "e-1", "e-9"]);
    // The torn segment is an older one now: still read up to its tear, reported as corrupt.
    expect(third.counts).toMatchObject({ torn: 0, corrupt: 1 });
  });

  it("a corrupt record in an older segment skips the rest of that segment only", async () => {
    const dir = freshDir();
    const { spool } = open(dir, 400);
    for (let i = 0; i < 8; i++) {
      spool.append(observation(i));
      await spool.kept();
    }
    const [oldest] = segments(dir);
    const path = join(dir, oldest as string);
    const bytes = readFileSync(path);
    bytes[20] = (bytes[20] as number) ^ 0x55;
    writeFileSync(path, bytes);
    const reopened = open(dir, 400);
    expect(reopened.counts.corrupt).toBe(1);
    const ids = reopened.replayed.map((e) => e.seq);
    expect(ids.length).toBeGreaterThan(4);
    expect(ids.at(-1)).toBe(7);
    expect(ids).not.toContain(0);
  });

  it("ignores what is not a segment, removes empty ones, and survives segments of garbage", async () => {
    const dir = freshDir();
    writeFileSync(join(dir, "notes.txt"), "hello");
    writeFileSync(join(dir, "12.seg"), "not a segment name");
    writeFileSync(join(dir, "0000000000000005.seg"), Buffer.alloc(0));
    writeFileSync(
      join(dir, "0000000000000009.seg"),
      Buffer.from(Array.from({ length: 10_000 }, (_, i) => (i * 31 + 7) % 256)),
    );
    const { spool, replayed, counts } = open(dir);
    expect(replayed).toEqual([]);
    expect(counts.torn).toBe(1);
    expect(readdirSync(dir)).toEqual(expect.arrayContaining(["notes.txt", "12.seg"]));
    expect(readdirSync(dir)).not.toContain("0000000000000005.seg");
    expect(readdirSync(dir)).not.toContain("0000000000000009.seg");
    spool.append(observation(1));
    await spool.kept();
    expect(open(dir).replayed.map((e) => e.observation)).toEqual([observation(1)]);
  });

  it("a segment that cannot be read (a directory by that name) is reported and left alone; the rest is replayed", async () => {
    const dir = freshDir();
    const { spool } = open(dir);
    spool.append(observation(1));
    await spool.kept();
    mkdirSync(join(dir, "0000000000000000.seg.d"));
    mkdirSync(join(dir, "0000000000000099.seg"));
    const reopened = open(dir);
    expect(reopened.replayed.map((e) => e.observation)).toEqual([observation(1)]);
    expect(reopened.counts.corrupt).toBe(1);
    reopened.spool.append(observation(2));
    await reopened.spool.kept();
    expect(readdirSync(dir)).toContain("0000000000000099.seg");
  });

  it("a spool directory that cannot be one (a file is in its place) is a clear error, not a crash", () => {
    const file = join(freshDir(), "not-a-dir");
    writeFileSync(file, "x");
    expect(() => open(file)).toThrow(SpoolUnavailableError);
    expect(() => open(join(file, "below"))).toThrow(/cannot be used \(A2A_LEDGER_PROXY_SPOOL_DIR\)/);
  });

  it("refuses a directory a live process holds, and takes over the lock of one that is gone", () => {
    const dir = freshDir();
    writeFileSync(join(dir, "spool.lock"), String(process.ppid));
    expect(() => open(dir)).toThrow(SpoolLockedError);
    const gone = spawnSync(process.execPath, ["-e", "process.stdout.write(String(process.pid))"]).stdout.toString();
    writeFileSync(join(dir, "spool.lock"), gone);
    expect(() => open(dir)).not.toThrow();
    expect(readFileSync(join(dir, "spool.lock"), "utf8")).toBe(String(process.pid));
  });

  it("a write that fails marks the spool failing, counts it, and writing goes on in a new segment", async () => {
    const dir = freshDir();
    const { spool, counts } = open(dir, 1);
    // The segment that follows the first one (seq 1) is a device that is always full.
    symlinkSync("/dev/full", join(dir, "0000000000000001.seg"));
    spool.append(observation(0));
    await spool.kept();
    spool.append(observation(1));
    await spool.kept();
    expect(counts.writeErrors).toBe(1);
    expect(spool.failing).toBe(true);
    expect(counts.failing).toBe(true);
    spool.append(observation(2));
    await spool.kept();
    expect(spool.failing).toBe(false);
    expect(counts.failing).toBe(false);
    // The segment the failed write went to holds no observation: removed like a spent one.
    expect(readdirSync(dir)).not.toContain("0000000000000001.seg");
    expect(open(dir).replayed.map((e) => e.observation.eventId)).toEqual(["e-0", "e-2"]);
  });

  it("a full disk: no segment storm, few descriptors, a growing backoff, and it recovers by itself when space returns", async () => {
    const dir = freshDir();
    const { fs, state } = fillableFs();
    const s = sink();
    const { spool } = ObservationSpool.open({
      dir,
      log,
      metrics: s.metrics,
      segmentBytes: 400,
      retryInitialMs: 20,
      retryMaxMs: 160,
      fs,
    });
    for (let i = 0; i < 5; i++) spool.append(observation(i));
    spool.acknowledge(2);
    await spool.kept();
    expect(spool.failing).toBe(false);

    state.full = true;
    const writesBefore = state.writes;
    // Traffic goes on for a second while nothing can be written: every kept() still resolves.
    const until = Date.now() + 1_000;
    let seq = 5;
    while (Date.now() < until) {
      spool.append(observation(seq++));
      if (seq % 7 === 0) spool.acknowledge(seq - 4);
      await spool.kept();
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
    expect(spool.failing).toBe(true);
    expect(s.counts.failing).toBe(true);
    // Backoff 0, 20, 40, 80, 160, 160 …: a dozen attempts in a second, not one per record.
    const attempts = state.writes - writesBefore;
    expect(attempts).toBeGreaterThanOrEqual(3);
    expect(attempts).toBeLessThanOrEqual(15);
    expect(s.counts.writeErrors).toBeLessThanOrEqual(15);
    expect(segments(dir).length).toBeLessThanOrEqual(4);
    expect(state.maxOpen).toBeLessThanOrEqual(3);
    expect(state.opens).toBeLessThan(40);

    // Space returns: the spool finds out without any new record.
    state.full = false;
    await expect.poll(() => spool.failing, { timeout: 2_000, interval: 10 }).toBe(false);
    expect(s.counts.failing).toBe(false);
    const after = spool.append(observation(1_000));
    await spool.kept();
    expect(state.written.some((b) => b.includes(`"e-1000"`))).toBe(true);
    expect(open(dir).replayed.map((e) => e.seq)).toContain(after.seq);
    expect(segments(dir).length).toBeLessThanOrEqual(4);
    await spool.close();
    expect(state.open.size).toBe(0);
  });

  it("a disk on which not even a file can be created: the same backoff, and back by itself", async () => {
    const dir = freshDir();
    const { fs, state } = fillableFs();
    const s = sink();
    const { spool } = ObservationSpool.open({ dir, log, metrics: s.metrics, retryInitialMs: 20, retryMaxMs: 80, fs });
    spool.append(observation(0));
    await spool.kept();
    spool.acknowledge(0);
    Object.assign(state, { full: true, failOpens: true });
    const opensBefore = state.opens;
    const until = Date.now() + 500;
    for (let i = 1; Date.now() < until; i++) {
      spool.append(observation(i));
      await spool.kept();
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
    expect(spool.failing).toBe(true);
    expect(s.counts.writeErrors).toBeLessThanOrEqual(12);
    expect(state.opens - opensBefore).toBeLessThanOrEqual(12);
    expect(segments(dir).length).toBeLessThanOrEqual(2);
    Object.assign(state, { full: false, failOpens: false });
    await expect.poll(() => spool.failing, { timeout: 2_000, interval: 10 }).toBe(false);
    const after = spool.append(observation(999));
    await spool.kept();
    expect(open(dir).replayed.map((e) => e.seq)).toContain(after.seq);
    await spool.close();
  });

  it("a retry ends its backoff even when the wall clock reads earlier than the backoff's end (a clock stepped back, or a timer that fires a millisecond before Date.now() agrees)", async () => {
    const dir = freshDir();
    const { fs, state } = fillableFs();
    const s = sink();
    const { spool } = ObservationSpool.open({ dir, log, metrics: s.metrics, retryInitialMs: 20, retryMaxMs: 40, fs });
    spool.append(observation(0));
    await spool.kept();
    spool.acknowledge(0);
    Object.assign(state, { full: true, failOpens: true });
    spool.append(observation(1));
    await spool.kept();
    await expect.poll(() => s.counts.writeErrors, { timeout: 2_000, interval: 5 }).toBeGreaterThanOrEqual(3);
    expect(spool.failing).toBe(true);
    // The wall clock steps back ten seconds (a time sync); the retry timers run on the monotonic clock.
    const wall = Date.now;
    const now = vi.spyOn(Date, "now").mockImplementation(() => wall() - 10_000);
    try {
      Object.assign(state, { full: false, failOpens: false });
      await expect.poll(() => spool.failing, { timeout: 2_000, interval: 10 }).toBe(false);
    } finally {
      now.mockRestore();
    }
    const after = spool.append(observation(2));
    await spool.kept();
    expect(open(dir).replayed.map((e) => e.seq)).toContain(after.seq);
    await spool.close();
  });
});
