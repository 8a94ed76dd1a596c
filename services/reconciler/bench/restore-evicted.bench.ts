/**
 * `npm run bench:restore-evicted -w @a2a-ledger/reconciler`: the restore of one partition after a
 * restart, on a changelog of HISTORY (default 1,000,000) correlations of which LIVE_PER_MILLE (default
 * 10) per thousand are still within the retention horizons, with retention and without, in the same run.
 *
 * - **Without retention** (the reconciler before it): every correlation's state stays in the changelog;
 *   a restore reads them all.
 * - **With retention**: what the reconciler writes — every correlation's state, then a tombstone for
 *   each that left, and the partition's stream time — on a changelog compacting as the ledger creates it,
 *   its segment roll and cleaner delays shortened to seconds so the bench need not wait hours. The bench
 *   waits until the broker's cleaner has compacted partition 0 (its records read down to the live
 *   states, tombstones gone), then restores.
 *
 * Both restores are `restoreChangelog`, the reconciler's own; ROUNDS (default 3) rounds alternate which
 * goes first; it prints the times, their medians and the ratio. PARTITIONS (default 6).
 */
import { randomUUID } from "node:crypto";
import { type Admin, ensureTopics, suffixedTopicNames, topicSpecs, tuneTopic } from "@a2a-ledger/kafka";
import { restoreChangelog, streamTimeKey } from "../src/changelog.ts";
import { correlationValues, decider } from "../test/correlation-states.ts";
import { kafka } from "../test/harness.ts";
import { envInt, fmt, machineLoad, median, timed, writeChangelog } from "./changelog-bench.ts";

const history = envInt("HISTORY", 1_000_000, 1_000, 10_000_000);
const livePerMille = envInt("LIVE_PER_MILLE", 10, 1, 1_000);
const partitionCount = envInt("PARTITIONS", 6, 1, 64);
const rounds = envInt("ROUNDS", 3, 1, 10);
const restored = 0;
const stall = { stallMs: 60_000 };
const isLive = (i: number) => i % 1_000 < livePerMille;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The reconciler's writes with retention: states, the leavers' tombstones, the stream time of every partition. */
function* withRetention(): Generator<[string, Buffer | null]> {
  const leavers: string[] = [];
  let i = 0;
  for (const [key, value] of correlationValues("bench", history)) {
    yield [key, value];
    if (!isLive(i++)) leavers.push(key);
  }
  for (const key of leavers) yield [key, null];
}

/** Records of partition 0 as a restore reads them now. */
async function recordsOf(admin: Admin, topic: string): Promise<{ records: number; correlations: number }> {
  let records = 0;
  const { states } = await restoreChangelog(kafka, admin, topic, new Set([restored]), "bench-count", decider, {
    stallMs: 60_000,
    restored: (p) => {
      records = p.records;
    },
  });
  return { records, correlations: states.get(restored)?.size ?? 0 };
}

const admin = kafka.admin();
await admin.connect();
const suffix = randomUUID().slice(0, 8);
const kept = suffixedTopicNames(`restore-kept-${suffix}`).changelog;
const evicted = suffixedTopicNames(`restore-evicted-${suffix}`).changelog;
try {
  const specs = [kept, evicted].flatMap((topic) =>
    topicSpecs({ ...suffixedTopicNames("unused"), changelog: topic }, partitionCount).filter((s) => s.name === topic),
  );
  await ensureTopics(admin, specs);
  // The evicted changelog compacts within seconds (the ledger creates it rolling hourly).
  const evictedSpec = specs.find((s) => s.name === evicted);
  if (evictedSpec === undefined) throw new Error("no spec");
  await tuneTopic(admin, evictedSpec, {
    "segment.ms": "5000",
    "delete.retention.ms": "1000",
    "min.cleanable.dirty.ratio": "0.01",
    "min.compaction.lag.ms": "0",
  });
  console.log(`machine: ${machineLoad()} before the run`);
  let started = performance.now();
  const a = await writeChangelog(kept, correlationValues("bench", history));
  console.log(
    `without retention: ${fmt(a.records)} states written in ${fmt((performance.now() - started) / 1000, 1)} s`,
  );
  started = performance.now();
  const b = await writeChangelog(evicted, withRetention());
  console.log(
    `with retention: ${fmt(b.records)} records (states and tombstones) written in ${fmt((performance.now() - started) / 1000, 1)} s`,
  );
  // Compaction: the active segment rolls only when a record comes after segment.ms; the stream time is that record.
  const live = Math.ceil((history * livePerMille) / 1_000);
  const deadline = Date.now() + 20 * 60_000;
  let previous = -1;
  let unchanged = 0;
  for (let pass = 0; ; pass++) {
    await sleep(6_000);
    await writeChangelog(
      evicted,
      Array.from(
        { length: partitionCount },
        () => [streamTimeKey, Buffer.from(String(Date.now()))] as [string, Buffer],
      ),
    );
    const now = await recordsOf(admin, evicted);
    console.log(
      `compaction pass ${pass + 1}: partition ${restored} reads ${fmt(now.records)} records, ${fmt(now.correlations)} correlations`,
    );
    if (now.records <= now.correlations * 1.05 + partitionCount * 3) break;
    // Unchanged for ten passes (a minute): the cleaner has done what it will without more writes. Tombstones
    // it kept (delete.retention.ms counts from a later cleaning, which needs new dirty records) are read too.
    unchanged = now.records === previous ? unchanged + 1 : 0;
    previous = now.records;
    if (unchanged >= 10) {
      console.log(
        `the cleaner settled: ${fmt(now.records - now.correlations)} tombstones left of the ${fmt(history - live)} written (a restore reads them, and decodes nothing for them)`,
      );
      break;
    }
    if (Date.now() > deadline) throw new Error("the cleaner did not compact the changelog within 20 minutes");
  }
  const partitions = new Set([restored]);
  const results: { kept: number[]; evicted: number[] } = { kept: [], evicted: [] };
  for (let round = 0; round < rounds; round++) {
    const order = round % 2 === 0 ? (["evicted", "kept"] as const) : (["kept", "evicted"] as const);
    for (const which of order) {
      const topic = which === "kept" ? kept : evicted;
      const { ms, correlations } = await timed(async () => {
        const { states } = await restoreChangelog(kafka, admin, topic, partitions, "bench-restore", decider, stall);
        return states.get(restored)?.size ?? 0;
      });
      results[which].push(ms);
      console.log(
        `round ${round + 1}: ${which === "kept" ? "without retention" : "with retention"}: partition ${restored}, ${fmt(correlations)} correlations in ${fmt(ms / 1000, 2)} s`,
      );
    }
  }
  const withoutMs = median(results.kept);
  const withMs = median(results.evicted);
  console.log(
    `restore of one partition of ${partitionCount}, history ${fmt(history)} correlations (${fmt(live)} live), medians: without retention ${fmt(withoutMs / 1000, 2)} s, with retention ${fmt(withMs / 1000, 2)} s, ratio without/with ${fmt(withoutMs / withMs, 1)}`,
  );
  console.log(`after the run: ${machineLoad()}`);
} finally {
  await admin.deleteTopics({ topics: [kept, evicted] }).catch(() => undefined);
  await admin.disconnect();
}
