/**
 * `npm run bench:restore -w @a2a-ledger/reconciler`: the time to restore one partition's state from the
 * changelog, today's restore (`restoreChangelog`: the read fetches only the partitions it restores)
 * against the previous one (a TopicReader over every partition of the changelog, keeping only the
 * restored partition's records, as the code before the per-partition read did), in the same run.
 *
 * It writes a private, compacted changelog (a suffixed topic, deleted at the end) of CORRELATIONS
 * (default 100000) five-event correlation states, each folded and serialised by the real decider as
 * the reconciler writes them, keyed by correlationId and spread over the topic's partitions by the
 * default partitioner as the observations are (PARTITIONS, default 6). Then ROUNDS (default 3) rounds
 * restore partition 0 both ways, alternating which goes first, and print the times, their medians and
 * the ratio of the medians.
 * The previous restore is given a stall guard instead of its fixed 120 s, so it is timed rather than cut
 * short; a time over 120 s is reported as what it then was: a failed restore.
 */
import { randomUUID } from "node:crypto";
import type { LedgerState } from "@a2a-ledger/core";
import { type Admin, suffixedTopicNames, TopicReader } from "@a2a-ledger/kafka";
import { kafka } from "../test/harness.ts";
import { correlationValues, decider } from "../test/correlation-states.ts";
import { restoreChangelog } from "../src/changelog.ts";
import { createChangelogTopic, envInt, fmt, machineLoad, median, timed, writeChangelog } from "./changelog-bench.ts";

const correlations = envInt("CORRELATIONS", 100_000, 1_000, 10_000_000);
const partitionCount = envInt("PARTITIONS", 6, 1, 64);
const rounds = envInt("ROUNDS", 3, 1, 10);
const restored = 0;
const stall = { stallMs: 60_000 };

/** The restore before the per-partition read: every partition of the changelog is fetched, the restored one's records kept. */
async function previousRestore(admin: Admin, topic: string, partitions: ReadonlySet<number>): Promise<number> {
  const states = new Map([...partitions].map((p) => [p, new Map<string, LedgerState>()]));
  const reader = new TopicReader(
    kafka,
    admin,
    topic,
    (partition, message) => {
      const forPartition = states.get(partition);
      if (forPartition === undefined || message.key === null) return;
      const correlationId = message.key.toString("utf8");
      if (message.value === null) forPartition.delete(correlationId);
      else forPartition.set(correlationId, decider.deserialize(message.value));
    },
    "bench-restore-previous",
  );
  await reader.start();
  try {
    await reader.caughtUp(stall, partitions);
  } finally {
    await reader.stop();
  }
  return states.get(restored)?.size ?? 0;
}

async function todaysRestore(admin: Admin, topic: string, partitions: ReadonlySet<number>): Promise<number> {
  const { states } = await restoreChangelog(kafka, admin, topic, partitions, "bench-restore", decider, stall);
  return states.get(restored)?.size ?? 0;
}

const admin = kafka.admin();
await admin.connect();
const topic = suffixedTopicNames(`restore-bench-${randomUUID().slice(0, 8)}`).changelog;
try {
  await createChangelogTopic(admin, topic, partitionCount);
  console.log(`machine: ${machineLoad()} before the run`);
  const writeStarted = performance.now();
  const written = await writeChangelog(topic, correlationValues("bench", correlations));
  console.log(
    `changelog: ${fmt(written.records)} correlation states over ${partitionCount} partitions, ${fmt(written.bytes / written.records)} B per value, written in ${fmt((performance.now() - writeStarted) / 1000, 1)} s`,
  );
  const partitions = new Set([restored]);
  const results: { today: number[]; previous: number[] } = { today: [], previous: [] };
  for (let round = 0; round < rounds; round++) {
    const order = round % 2 === 0 ? (["today", "previous"] as const) : (["previous", "today"] as const);
    for (const which of order) {
      const { ms, correlations: held } = await timed(() =>
        which === "today" ? todaysRestore(admin, topic, partitions) : previousRestore(admin, topic, partitions),
      );
      results[which].push(ms);
      console.log(
        `round ${round + 1}: ${which === "today" ? "today's restore (its partition only)" : "previous restore (every partition)"}: partition ${restored}, ${fmt(held)} correlations in ${fmt(ms / 1000, 2)} s${which === "previous" && ms > 120_000 ? " — over 120 s: the previous code failed this restore" : ""}`,
      );
    }
  }
  const today = median(results.today);
  const previous = median(results.previous);
  console.log(
    `restore of one partition of ${partitionCount} (${fmt(correlations)} correlations in all), medians: today ${fmt(today / 1000, 2)} s, previous ${fmt(previous / 1000, 2)} s, ratio previous/today ${fmt(previous / today, 2)}`,
  );
  console.log(`after the run: ${machineLoad()}`);
} finally {
  await admin.deleteTopics({ topics: [topic] }).catch(() => undefined);
  await admin.disconnect();
}
