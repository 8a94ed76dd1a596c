/**
 * Local state snapshots: the file is read back whole and only once, and is refused when it can no longer
 * stand for the changelog's prefix. On Kafka: a reconciler stopped cleanly leaves one per partition, and
 * the next instance restores each from it, reading only the changelog after it — and decides what the
 * replay of the whole log decides; an instance without the directory reads the changelog whole.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { defaultRuleSet, replay } from "@a2a-ledger/core";
import { correlationPartitions } from "@a2a-ledger/kafka";
import type { Observation } from "@a2a-ledger/schemas";
import {
  byCorrelation,
  fixture,
  kafkaSuite,
  parseLines,
  produce,
  readDecisions,
  seededPolicy,
  startInProcess,
  waitForGroupAtEnd,
} from "../test/harness.ts";
import type { Reconciler } from "./reconciler.ts";
import { type SnapshotHeader, takeSnapshot, unusable, writeSnapshot } from "./state-snapshot.ts";

const dirs: string[] = [];
const tempDir = () => {
  const dir = mkdtempSync(join(tmpdir(), "reconciler-state-"));
  dirs.push(dir);
  return dir;
};
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

describe("a local state snapshot file", () => {
  const states = new Map([
    ["c1", Uint8Array.from([1, 2, 3])],
    ["c-ü", Uint8Array.from([])],
  ]);

  it("reads back what was written, once", () => {
    const dir = tempDir();
    writeSnapshot(dir, { topic: "t", partition: 2, offset: "41", streamTime: 7 }, states, 1_000);
    const rejected: string[] = [];
    const taken = takeSnapshot(dir, "t", 2, (r) => rejected.push(r));
    expect(taken?.header).toEqual({
      version: 1,
      topic: "t",
      partition: 2,
      offset: "41",
      streamTime: 7,
      asOf: 1_000,
      correlations: 2,
    });
    expect([...(taken?.states ?? [])].map(([k, v]) => [k, [...v]])).toEqual([
      ["c1", [1, 2, 3]],
      ["c-ü", []],
    ]);
    expect(
      takeSnapshot(dir, "t", 2, (r) => rejected.push(r)),
      "taken once",
    ).toBeUndefined();
    expect(
      takeSnapshot(dir, "t", 3, (r) => rejected.push(r)),
      "no snapshot of another partition",
    ).toBeUndefined();
    expect(rejected).toEqual([]);
  });

  it("refuses a truncated file, a count that disagrees and a file without a header, and removes each", () => {
    const dir = tempDir();
    const file = writeSnapshot(dir, { topic: "t", partition: 0, offset: "1", streamTime: null }, states);
    const whole = readFileSync(file);
    for (const bytes of [
      whole.subarray(0, whole.length - 2),
      Buffer.concat([whole, Buffer.from([0, 0, 0, 1, 65, 0, 0, 0, 0])]),
      Buffer.from("no header"),
    ]) {
      writeFileSync(file, bytes);
      const rejected: string[] = [];
      expect(takeSnapshot(dir, "t", 0, (r) => rejected.push(r))).toBeUndefined();
      expect(rejected).toHaveLength(1);
      expect(readdirSync(dir)).toEqual([]);
    }
  });

  it("is not used for another topic or partition, beyond the changelog's end or below its start, or past delete.retention.ms", () => {
    const header: SnapshotHeader = {
      version: 1,
      topic: "t",
      partition: 1,
      offset: "100",
      streamTime: null,
      asOf: 10_000,
      correlations: 0,
    };
    const bounds = { low: 0n, high: 150n, deleteRetentionMs: 60_000, now: 20_000 };
    expect(unusable(header, { topic: "t", partition: 1 }, bounds)).toBeUndefined();
    expect(unusable(header, { topic: "t", partition: 1 }, { ...bounds, high: 100n }), "at the end").toBeUndefined();
    expect(unusable(header, { topic: "u", partition: 1 }, bounds)).toMatch(/written for t partition 1/);
    expect(unusable(header, { topic: "t", partition: 2 }, bounds)).toMatch(/written for t partition 1/);
    expect(unusable(header, { topic: "t", partition: 1 }, { ...bounds, high: 99n })).toMatch(
      /beyond the changelog's end/,
    );
    expect(unusable(header, { topic: "t", partition: 1 }, { ...bounds, low: 101n })).toMatch(
      /below the changelog's start/,
    );
    expect(unusable(header, { topic: "t", partition: 1 }, { ...bounds, now: 70_000 })).toMatch(/delete\.retention\.ms/);
    expect(unusable(header, { topic: "t", partition: 1 }, { ...bounds, now: 9_000 }), "written in the future").toMatch(
      /delete\.retention\.ms/,
    );
    expect(unusable({ ...header, version: 2 as 1 }, { topic: "t", partition: 1 }, bounds)).toMatch(/version 2/);
  });
});

const { admin, fixtures, running } = kafkaSuite({ beforeAll, afterAll });

/** A metric's value per partition label. */
async function perPartition(
  reconciler: Reconciler,
  metric: "partitionRestores" | "restoreRecords" | "snapshotRestores",
): Promise<Map<number, number>> {
  return new Map((await reconciler.metrics[metric].get()).values.map((v) => [Number(v.labels.partition), v.value]));
}

/** `n` correlations, each dispatched then working (step 0), then lost (step 1). */
function story(n: number): [Observation[], Observation[]] {
  const line = (o: Record<string, unknown>) => JSON.stringify(o);
  const ids = Array.from({ length: n }, (_, i) => `snap-${i}`);
  const first = ids.flatMap((id, i) => [
    line({
      type: "TaskDispatched",
      eventId: `${id}-d`,
      correlationId: id,
      occurredAt: Date.now() + i,
      observer: "orchestrator",
      workerId: "w1",
      skillId: "summarize",
      messageId: `m-${id}`,
      acceptedOutputModes: ["text/plain"],
    }),
    line({
      type: "TaskStateObserved",
      eventId: `${id}-s`,
      correlationId: id,
      occurredAt: Date.now() + i + 1,
      observer: "proxy",
      workerId: "w1",
      serverTaskId: `t-${id}`,
      state: "input-required",
      via: "stream",
    }),
  ]);
  const then = ids.map((id, i) =>
    line({
      type: "TaskNotFoundObserved",
      eventId: `${id}-l`,
      correlationId: id,
      occurredAt: Date.now() + 10_000 + i,
      observer: "orchestrator",
      workerId: "w1",
      serverTaskId: `t-${id}`,
      method: "GetTask",
      errorCode: "-32001",
    }),
  );
  return [parseLines(first), parseLines(then)];
}

describe("restore from a local snapshot, on Kafka", () => {
  it("leaves a snapshot per partition at a clean stop; the next instance reads only the changelog after it and decides as the replay", async () => {
    const dir = tempDir();
    const [first, then] = story(60);
    const f = await fixture(admin, "snapshot", { A2A_LEDGER_RECONCILER_STATE_DIR: dir });
    fixtures.push(f);
    const all = Array.from({ length: correlationPartitions }, (_, p) => p);
    const sum = (m: Map<number, number>) => [...m.values()].reduce((n, v) => n + v, 0);

    const a = await startInProcess(f);
    running.push(a);
    await produce(f.topics.observations, first);
    await waitForGroupAtEnd(admin, f);
    await a.stop();
    expect(readdirSync(dir).sort(), "one snapshot per partition").toEqual(
      all.map((p) => `${f.topics.changelog}-${p}.snapshot`).sort(),
    );

    // B, sharing the directory, restores every partition from its snapshot: nothing was written after.
    const b = await startInProcess(f);
    running.push(b);
    await produce(f.topics.observations, then);
    await waitForGroupAtEnd(admin, f);
    expect(Object.fromEntries(await perPartition(b, "snapshotRestores")), "every partition from its snapshot").toEqual(
      Object.fromEntries(all.map((p) => [p, 1])),
    );
    expect(sum(await perPartition(b, "restoreRecords")), "no changelog record read before the snapshots' offsets").toBe(
      0,
    );
    await b.stop();

    // C, without the directory, reads the changelog whole when the same losses arrive again (deciding nothing new).
    const c = await startInProcess(f, { A2A_LEDGER_RECONCILER_STATE_DIR: "" });
    running.push(c);
    await produce(f.topics.observations, then);
    await waitForGroupAtEnd(admin, f);
    expect(sum(await perPartition(c, "snapshotRestores"))).toBe(0);
    expect(sum(await perPartition(c, "restoreRecords")), "every state written, read again").toBeGreaterThanOrEqual(120);

    const decisions = await readDecisions(f.topics.decisions);
    const ids = decisions.map((d) => d.decisionId);
    expect(new Set(ids).size, "no decision twice").toBe(ids.length);
    const expected = replay([...first, ...then, ...then], defaultRuleSet, { policy: seededPolicy() });
    expect(expected.length).toBeGreaterThan(0);
    expect(byCorrelation(decisions)).toEqual(byCorrelation(expected));
  }, 180_000);
});
