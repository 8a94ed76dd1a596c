/**
 * What the restore benchmarks share: a private changelog topic, writing it (values and tombstones, in
 * order, acknowledged by every in-sync replica), the machine's load, timing a restore, medians and number
 * formatting.
 */
import os from "node:os";
import { type Admin, ensureTopics, suffixedTopicNames, topicSpecs } from "@a2a-ledger/kafka";
import { kafka } from "../test/harness.ts";

/** Creates `topic` as the ledger creates its changelog, with `partitions` partitions. */
export async function createChangelogTopic(admin: Admin, topic: string, partitions: number): Promise<void> {
  await ensureTopics(
    admin,
    topicSpecs({ ...suffixedTopicNames("unused"), changelog: topic }, partitions).filter((s) => s.name === topic),
  );
}

/** "2 cores, load average 1.20 0.90 0.80": printed before and after a run (these machines are shared). */
export const machineLoad = () =>
  `${os.cpus().length} cores, load average ${os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(" ")}`;

export function envInt(name: string, fallback: number, min: number, max: number): number {
  const raw = process.env[name]?.trim();
  if (raw === undefined || raw === "") return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max)
    throw new Error(`${name}=${JSON.stringify(raw)}: expected an integer from ${min} to ${max}`);
  return value;
}

export const fmt = (n: number, digits = 0) =>
  n.toLocaleString("en-US", { maximumFractionDigits: digits, minimumFractionDigits: digits });

export function median(xs: readonly number[]): number {
  const sorted = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[mid] as number)
    : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

export async function timed(run: () => Promise<number>): Promise<{ ms: number; correlations: number }> {
  const started = performance.now();
  const correlations = await run();
  return { ms: performance.now() - started, correlations };
}

/** Writes `records` in order (a null value: a tombstone); returns how many and the bytes of the values. */
export async function writeChangelog(
  topic: string,
  records: Iterable<[string, Buffer | null]>,
): Promise<{ records: number; bytes: number }> {
  const producer = kafka.producer({ idempotent: true });
  await producer.connect();
  let batch: { key: string; value: Buffer | null }[] = [];
  let count = 0;
  let bytes = 0;
  const inFlight: Promise<unknown>[] = [];
  const flush = async () => {
    const messages = batch;
    batch = [];
    inFlight.push(producer.send({ topic, acks: -1, messages }));
    if (inFlight.length >= 4) await inFlight.shift();
  };
  try {
    for (const [key, value] of records) {
      batch.push({ key, value });
      count++;
      bytes += value?.length ?? 0;
      if (batch.length === 2_000) await flush();
    }
    if (batch.length > 0) await flush();
    await Promise.all(inFlight);
  } finally {
    await producer.disconnect();
  }
  return { records: count, bytes };
}
