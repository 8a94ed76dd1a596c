/**
 * Benchmark (not a test) of `a2a-ledger replay`, figures as ratios against baselines measured in the
 * same run:
 *   npm run bench -w @a2a-ledger/cli   (OBSERVATIONS=1000000, TOPIC_OBSERVATIONS=200000, ROUNDS=3, CODEC=deflate)
 * File: 1,000,000 generated observations in an Avro object container file; (a) decode alone, (b)
 * decode + rules (`default`), (c) decode + rules (`default` and restart-from-scratch/2) + diff: what
 * `replay --input FILE.avro --candidate restart-from-scratch` does. Single thread, median of ROUNDS.
 * Topic: the same log's first TOPIC_OBSERVATIONS on a throwaway 6-partition topic; (d) a consumer that
 * only reads it to the end, (e) the merged read without decoding, (f) `replay --kafka` (decode + rules).
 * Each figure is given as CPU time of this process (user + system, all its threads: what "one core"
 * can do, and steady on a shared machine) and as wall-clock time.
 */
import { spawn } from "node:child_process";
import { once } from "node:events";
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { randomUUID } from "node:crypto";
import { defaultRuleSet, restartFromScratchRuleSet } from "@a2a-ledger/core";
import { generateLog } from "@a2a-ledger/core/testing";
import { createKafka, endpointsFromEnv, logLevel } from "@a2a-ledger/kafka";
import { Serde } from "@a2a-ledger/schemas/serde";
import { topicSource } from "../src/kafka/observation-topic.ts";
import { streamTopic } from "../src/kafka/topic-stream.ts";
import { ocfSource } from "../src/ocf/ocf-reader.ts";
import { type OcfCodec, OcfWriter } from "../src/ocf/ocf-writer.ts";
import { buildReport } from "../src/replay/replay-report.ts";
import { rejectionSummary } from "../src/replay/rejections.ts";
import { runReplay } from "../src/replay/replay-run.ts";
import { wholeLog } from "../src/replay/replay-scope.ts";
import { RuleSetRun } from "../src/replay/rule-set-run.ts";
import { parseLines } from "../test/observations.ts";

const total = Number(process.env["OBSERVATIONS"] ?? 1_000_000);
const topicTotal = Number(process.env["TOPIC_OBSERVATIONS"] ?? 200_000);
const rounds = Number(process.env["ROUNDS"] ?? 3);
const codec = (process.env["CODEC"] ?? "deflate") as OcfCodec;
const policy = { trustedVendors: [] };

const now = () => performance.now();
const cpuNow = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;

interface Timing {
  wall: number[];
  cpu: number[];
}
const timing = (): Timing => ({ wall: [], cpu: [] });
/** Runs `fn`, adding its wall-clock and CPU milliseconds to `t`. */
async function timed<T>(t: Timing, fn: () => Promise<T>): Promise<T> {
  const w = now();
  const c = cpuNow();
  const result = await fn();
  t.cpu.push(cpuNow() - c);
  t.wall.push(now() - w);
  return result;
}
const line = (label: string, t: Timing, n: number, extra = "") =>
  `${label.padEnd(52)} cpu ${(median(t.cpu) / 1000).toFixed(2)} s ${rate(n, median(t.cpu)).padStart(15)} ${us(median(t.cpu), n).padStart(13)} | wall ${(median(t.wall) / 1000).toFixed(2)} s ${rate(n, median(t.wall)).padStart(15)}${extra}`;
const rate = (n: number, ms: number) => `${Math.round((n / ms) * 1000).toLocaleString("en-US")} obs/s`;
const us = (ms: number, n: number) => `${((ms * 1000) / n).toFixed(2)} µs/obs`;

const dir = mkdtempSync(join(tmpdir(), "a2a-ledger-replay-bench-"));
const file = join(dir, "log.avro");

{
  const t0 = now();
  const observations = parseLines(generateLog(total));
  const writer = new OcfWriter(file, codec);
  for (const o of observations) await writer.write(o);
  await writer.close();
  console.log(
    `generated ${observations.length.toLocaleString("en-US")} observations into ${(statSync(file).size / 1e6).toFixed(1)} MB of Avro (${codec}) in ${((now() - t0) / 1000).toFixed(1)} s; Node ${process.version}`,
  );
}
const size = statSync(file).size;

async function decodeOnly(): Promise<number> {
  let n = 0;
  for await (const chunk of ocfSource(file, size).chunks()) n += chunk.observations.length;
  return n;
}

/** Decode + rules, with the time spent in each rule set's fold measured around it. */
async function replayFile(
  ruleSets: (typeof defaultRuleSet)[],
  diff: boolean,
): Promise<{ events: number; foldMs: number; diffMs: number; decisions: number[] }> {
  const runs = ruleSets.map((r) => new RuleSetRun(r, policy, wholeLog));
  let foldMs = 0;
  for (const run of runs) {
    const fold = run.fold.bind(run);
    run.fold = (os, where) => {
      const t = cpuNow();
      fold(os, where);
      foldMs += cpuNow() - t;
    };
  }
  const counts = await runReplay(ocfSource(file, size), runs, wholeLog);
  let diffMs = 0;
  if (diff) {
    const t = cpuNow();
    const report = buildReport({
      source: file,
      scope: wholeLog,
      events: counts.events,
      correlations: counts.correlations,
      baseline: {
        label: "b",
        rulesVersion: runs[0]?.rulesVersion as string,
        recorded: false,
        decisions: runs[0]?.decisions ?? [],
      },
      candidate: { label: "c", rulesVersion: runs[1]?.rulesVersion as string, decisions: runs[1]?.decisions ?? [] },
      startedBefore: counts.startedBefore,
      skipped: [],
      order: { kind: "event-time", reason: null },
      rejected: {
        baseline: rejectionSummary(runs[0]?.rulesVersion as string, runs[0]?.rejected ?? []),
        candidate: rejectionSummary(runs[1]?.rulesVersion as string, runs[1]?.rejected ?? []),
      },
    });
    diffMs = cpuNow() - t;
    if (report.diffs.length === 0) throw new Error("the two rule sets should differ on the generated log");
  }
  return { events: counts.events, foldMs, diffMs, decisions: runs.map((r) => r.decisions.length) };
}

await decodeOnly(); // warm-up
const decodeT = timing();
const oneT = timing();
const fullT = timing();
let one = { events: 0, foldMs: 0, diffMs: 0, decisions: [0] };
let full = { events: 0, foldMs: 0, diffMs: 0, decisions: [0, 0] };
for (let r = 0; r < rounds; r++) {
  const n = await timed(decodeT, decodeOnly);
  if (n !== total) throw new Error(`decoded ${n} of ${total}`);
  one = await timed(oneT, () => replayFile([defaultRuleSet], false));
  full = await timed(fullT, () => replayFile([defaultRuleSet, restartFromScratchRuleSet], true));
}
console.log(
  `\nFile replay, ${total.toLocaleString("en-US")} observations, median of ${rounds} (cpu ms per round: decode ${decodeT.cpu.map((x) => x.toFixed(0)).join("/")}, one rule set ${oneT.cpu.map((x) => x.toFixed(0)).join("/")}, compare ${fullT.cpu.map((x) => x.toFixed(0)).join("/")})`,
);
console.log(line("(a) decode alone", decodeT, total));
console.log(
  line(`(b) decode + rules (${defaultRuleSet.rulesVersion})`, oneT, total, `  ${one.decisions[0]} decisions`),
);
console.log(
  line("(c) decode + rules ×2 + diff (replay --candidate)", fullT, total, `  ${full.decisions.join(" / ")} decisions`),
);
const [a, b, c] = [median(decodeT.cpu), median(oneT.cpu), median(fullT.cpu)];
console.log(
  `ratios (cpu): (a)/(b) ${(a / b).toFixed(2)}, (a)/(c) ${(a / c).toFixed(2)} (the replay's throughput relative to decoding alone)`,
);
console.log(
  `where (c)'s cpu time goes (last round): decode and scope ${us((fullT.cpu.at(-1) as number) - full.foldMs - full.diffMs, total)}, two folds ${us(full.foldMs, total)}, diff ${us(full.diffMs, total)}`,
);

/**
 * Peak resident memory (VmHWM, MB) of `a2a-ledger export` run as its own process; Linux only. With
 * `heapMb` the V8 heap is capped: an export that kept what it read would die of it.
 */
async function exportPeakMb(args: string[], heapMb?: number): Promise<number | undefined> {
  if (!existsSync("/proc/self/status")) return undefined;
  const env = heapMb === undefined ? process.env : { ...process.env, NODE_OPTIONS: `--max-old-space-size=${heapMb}` };
  const child = spawn(process.execPath, [join(import.meta.dirname, "../bin/a2a-ledger.js"), "export", ...args], {
    stdio: ["ignore", "ignore", "pipe"],
    env,
  });
  let peak = 0;
  const poll = setInterval(() => {
    try {
      const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${child.pid}/status`, "utf8"));
      if (m) peak = Math.max(peak, Number(m[1]) / 1024);
    } catch {
      // the process has ended
    }
  }, 20);
  const [code] = (await once(child, "exit")) as [number];
  clearInterval(poll);
  if (code !== 0) throw new Error(`export ${args.join(" ")} exited with ${code}`);
  return peak;
}

{
  // Memory of a large export: a tenth of the log and the whole log, Avro → NDJSON, each in its own process.
  const tenth = join(dir, "tenth.avro");
  const w = new OcfWriter(tenth, codec);
  let n = 0;
  for await (const chunk of ocfSource(file, size).chunks()) {
    for (const o of chunk.observations) if (n++ < total / 10) await w.write(o);
  }
  await w.close();
  const small = await exportPeakMb(["--input", tenth, "--output", join(dir, "tenth.ndjson")]);
  const large = await exportPeakMb(["--input", file, "--output", join(dir, "all.ndjson")]);
  const capped = await exportPeakMb(["--input", file, "--output", join(dir, "all-capped.ndjson")], 96);
  if (small !== undefined && large !== undefined && capped !== undefined) {
    console.log(
      `export Avro → NDJSON, peak resident memory: ${(total / 10).toLocaleString("en-US")} observations ${small.toFixed(0)} MB, ${total.toLocaleString("en-US")} observations ${large.toFixed(0)} MB (${(statSync(join(dir, "all.ndjson")).size / 1e6).toFixed(0)} MB written); with the V8 heap capped at 96 MB: ${capped.toFixed(0)} MB`,
    );
  }
}
rmSync(dir, { recursive: true, force: true });

// Topic: replay --kafka against a consumer that only reads the topic.
if (topicTotal > 0) {
  const { brokers, registryUrl } = endpointsFromEnv();
  const kafka = createKafka({ brokers, clientId: "replay-bench", logLevel: logLevel.NOTHING });
  const serde = new Serde(registryUrl);
  await serde.registerAll();
  const admin = kafka.admin();
  await admin.connect();
  const topic = `bench.replay.${randomUUID().slice(0, 8)}`;
  await admin.createTopics({ waitForLeaders: true, topics: [{ topic, numPartitions: 6, replicationFactor: 1 }] });
  try {
    const observations = parseLines(generateLog(topicTotal));
    const producer = kafka.producer({ idempotent: true });
    await producer.connect();
    const t = now();
    for (let i = 0; i < observations.length; i += 2_000) {
      const chunk = observations.slice(i, i + 2_000);
      await producer.send({
        topic,
        acks: -1,
        messages: await Promise.all(
          chunk.map(async (o) => ({ key: o.correlationId, value: await serde.encodeValidated(o) })),
        ),
      });
    }
    await producer.disconnect();
    console.log(
      `\nproduced ${topicTotal.toLocaleString("en-US")} observations to ${topic} (6 partitions) in ${((now() - t) / 1000).toFixed(1)} s`,
    );

    const readOnly = async (): Promise<number> => {
      const ends = await admin.fetchTopicOffsets(topic);
      const left = new Map(ends.map((p) => [p.partition, BigInt(p.high)]));
      const consumer = kafka.consumer({
        groupId: `bench-read-${randomUUID()}`,
        readUncommitted: false,
        maxWaitTimeInMs: 100,
      });
      await consumer.connect();
      await consumer.subscribe({ topic, fromBeginning: true });
      let n = 0;
      await new Promise<void>((resolve) => {
        void consumer.run({
          partitionsConsumedConcurrently: 6,
          autoCommit: false,
          eachBatch: async ({ batch }) => {
            n += batch.messages.length;
            const last = batch.messages.at(-1);
            if (last !== undefined && BigInt(last.offset) + 1n >= (left.get(batch.partition) ?? 0n))
              left.delete(batch.partition);
            if (left.size === 0) resolve();
          },
        });
      });
      await consumer.disconnect();
      return n;
    };
    const mergedOnly = async (): Promise<number> => {
      let n = 0;
      for await (const slice of streamTopic(kafka, topic, { groupPrefix: "bench-merge" })) n += slice.length;
      return n;
    };
    const replayTopic = async (): Promise<number> => {
      const run = new RuleSetRun(defaultRuleSet, policy, wholeLog);
      const counts = await runReplay(topicSource(kafka, serde, topic, []), [run], wholeLog);
      return counts.events;
    };
    const d = timing();
    const e = timing();
    const f = timing();
    for (let r = 0; r < rounds; r++) {
      for (const [t, fn] of [
        [d, readOnly],
        [e, mergedOnly],
        [f, replayTopic],
      ] as const) {
        const n = await timed(t, fn);
        if (n !== topicTotal) throw new Error(`read ${n} of ${topicTotal}`);
      }
    }
    console.log(`Topic replay, ${topicTotal.toLocaleString("en-US")} observations, median of ${rounds}`);
    console.log(line("(d) consumer that only reads the topic", d, topicTotal));
    console.log(line("(e) merged read (by timestamp), no decode", e, topicTotal));
    console.log(line("(f) replay --kafka: merged read + decode + rules", f, topicTotal));
    console.log(
      `ratios (wall): (d)/(f) ${(median(d.wall) / median(f.wall)).toFixed(2)}, (d)/(e) ${(median(d.wall) / median(e.wall)).toFixed(2)}; (cpu): (d)/(f) ${(median(d.cpu) / median(f.cpu)).toFixed(2)}`,
    );
    const exportDir = mkdtempSync(join(tmpdir(), "a2a-ledger-replay-bench-"));
    const peak = await exportPeakMb(["--kafka", "--topic", topic, "--output", join(exportDir, "topic.avro")]);
    const capped = await exportPeakMb(
      ["--kafka", "--topic", topic, "--output", join(exportDir, "topic-capped.avro")],
      96,
    );
    if (peak !== undefined && capped !== undefined)
      console.log(
        `export of the topic to Avro, ${topicTotal.toLocaleString("en-US")} observations, peak resident memory: ${peak.toFixed(0)} MB; with the V8 heap capped at 96 MB: ${capped.toFixed(0)} MB`,
      );
    rmSync(exportDir, { recursive: true, force: true });
  } finally {
    await admin.deleteTopics({ topics: [topic] }).catch(() => undefined);
    await admin.disconnect();
  }
}
