/**
 * `npm run bench:restore-snapshot -w @a2a-ledger/reconciler`: the restore of one partition after a clean
 * stop, from a local state snapshot and the changelog after it, against the restore that reads the
 * changelog whole (an instance without `A2A_LEDGER_RECONCILER_STATE_DIR`, or any restore after
 * `kill -9`), in the same run.
 *
 * It writes a private changelog (a suffixed topic, deleted at the end) of CORRELATIONS (default 100000)
 * correlation states as the reconciler writes them, over PARTITIONS (default 6), VERSIONS times each
 * (default 5: a five-event correlation writes its state five times, all of them kept until the cleaner
 * compacts the segment, an hour or more later; 1: a changelog compacted just now). A whole restore of
 * partition 0 is then written as a snapshot at the changelog's end, and TAIL_SHARE (default 0.01) of the
 * correlations are written again after it: the work of the time between the stop and the next restore.
 * ROUNDS (default 3) rounds then restore partition 0 both ways, alternating which goes first — the
 * snapshot's way reading the file, decoding its states and reading the changelog's tail — and print the
 * times, their medians and the ratio.
 */
import { randomUUID } from "node:crypto";
import { copyFileSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import os from "node:os";
import { join } from "node:path";
import type { LedgerState } from "@a2a-ledger/core";
import { endOffsets, suffixedTopicNames } from "@a2a-ledger/kafka";
import { type RestoreSeed, restoreChangelog } from "../src/changelog.ts";
import { takeSnapshot, writeSnapshot } from "../src/state-snapshot.ts";
import { correlationValues, decider } from "../test/correlation-states.ts";
import { kafka } from "../test/harness.ts";
import { createChangelogTopic, envInt, fmt, machineLoad, median, timed, writeChangelog } from "./changelog-bench.ts";

const correlations = envInt("CORRELATIONS", 100_000, 1_000, 10_000_000);
const partitionCount = envInt("PARTITIONS", 6, 1, 64);
const rounds = envInt("ROUNDS", 3, 1, 10);
const tailShare = Number(process.env.TAIL_SHARE ?? 0.01);
const versions = envInt("VERSIONS", 5, 1, 50);
const restored = 0;
const stall = { stallMs: 60_000 };

const admin = kafka.admin();
await admin.connect();
const topic = suffixedTopicNames(`snapshot-bench-${randomUUID().slice(0, 8)}`).changelog;
const dir = mkdtempSync(join(os.tmpdir(), "snapshot-bench-"));
const kept = join(dir, "kept");
try {
  await createChangelogTopic(admin, topic, partitionCount);
  console.log(`machine: ${machineLoad()} before the run`);
  let written = { records: 0, bytes: 0 };
  for (let v = 0; v < versions; v++) {
    const round = await writeChangelog(topic, correlationValues("bench", correlations));
    written = { records: written.records + round.records, bytes: written.bytes + round.bytes };
  }
  const partitions = new Set([restored]);
  const whole = async () => {
    const { states } = await restoreChangelog(kafka, admin, topic, partitions, "bench-whole", decider, stall);
    return states.get(restored) ?? new Map<string, LedgerState>();
  };
  // The snapshot a clean stop leaves: partition 0's state at the changelog's end.
  const at = (await endOffsets(admin, topic)).find((p) => p.partition === restored)?.high ?? "0";
  const states = await whole();
  const file = writeSnapshot(
    dir,
    { topic, partition: restored, offset: at, streamTime: null },
    new Map([...states].map(([id, s]) => [id, decider.serialize(s)])),
  );
  copyFileSync(file, kept);
  // The work after the stop: a share of the correlations written again.
  const tail = await writeChangelog(
    topic,
    correlationValues("bench", Math.max(1, Math.round(correlations * tailShare))),
  );
  console.log(
    `changelog: ${fmt(written.records)} states of ${fmt(correlations)} correlations (${versions} each) over ${partitionCount} partitions (${fmt(states.size)} correlations in partition ${restored}), then ${fmt(tail.records)} written after the snapshot`,
  );
  const fromSnapshot = async () => {
    copyFileSync(kept, file);
    const snapshot = takeSnapshot(dir, topic, restored, (reason) => {
      throw new Error(reason);
    });
    if (snapshot === undefined) throw new Error("no snapshot");
    const seeded = new Map<string, LedgerState>();
    for (const [id, bytes] of snapshot.states) seeded.set(id, decider.deserialize(bytes));
    const seed: RestoreSeed = { offset: BigInt(snapshot.header.offset), states: seeded, streamTime: null };
    const { states: out } = await restoreChangelog(
      kafka,
      admin,
      topic,
      partitions,
      "bench-snapshot",
      decider,
      stall,
      new Map([[restored, seed]]),
    );
    return out.get(restored)?.size ?? 0;
  };
  const results: { snapshot: number[]; whole: number[] } = { snapshot: [], whole: [] };
  for (let round = 0; round < rounds; round++) {
    const order = round % 2 === 0 ? (["snapshot", "whole"] as const) : (["whole", "snapshot"] as const);
    for (const which of order) {
      const { ms, correlations: held } = await timed(async () =>
        which === "snapshot" ? fromSnapshot() : (await whole()).size,
      );
      results[which].push(ms);
      console.log(
        `round ${round + 1}: ${which === "snapshot" ? "snapshot and the changelog after it" : "the changelog whole"}: ${fmt(held)} correlations in ${fmt(ms / 1000, 2)} s`,
      );
    }
  }
  const snapshot = median(results.snapshot);
  const wholeMs = median(results.whole);
  console.log(
    `restore of partition ${restored} after a clean stop, medians: from the snapshot ${fmt(snapshot / 1000, 2)} s, the changelog whole ${fmt(wholeMs / 1000, 2)} s, ratio whole/snapshot ${fmt(wholeMs / snapshot, 2)}`,
  );
  console.log(`files left: ${readdirSync(dir).length}`);
} finally {
  rmSync(dir, { recursive: true, force: true });
  await admin.deleteTopics({ topics: [topic] }).catch(() => undefined);
  await admin.disconnect();
}
