/**
 * Benchmark (not a test) of `a2a-ledger replay --shards 2` against one shard, on the same file in the
 * same run:
 *   npm run bench:shards -w @a2a-ledger/cli   (OBSERVATIONS=300000, ROUNDS=1, CODEC=deflate)
 * One shard: `runReplay` with the rule set `default` names, in this process. Two shards: this process's counting pass (it
 * names the shared correlations) and two shard processes, merged (`runSharded`), as `replay --shards 2`
 * runs them. Wall time, and CPU time of every process involved (the shards report their own, start-up
 * included), so events/s per core = events / total CPU seconds. The merged decisions are checked equal
 * to the one-shard ones.
 */
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { defaultRuleSet } from "@a2a-ledger/core";
import { generateLog } from "@a2a-ledger/core/testing";
import { ocfSource } from "../src/ocf/ocf-reader.ts";
import { type OcfCodec, OcfWriter } from "../src/ocf/ocf-writer.ts";
import { runReplay } from "../src/replay/replay-run.ts";
import { wholeLog } from "../src/replay/replay-scope.ts";
import { RuleSetRun } from "../src/replay/rule-set-run.ts";
import { runSharded } from "../src/replay/sharded-replay.ts";
import { parseLines } from "../test/observations.ts";

const total = Number(process.env["OBSERVATIONS"] ?? 300_000);
const rounds = Number(process.env["ROUNDS"] ?? 1);
const codec = (process.env["CODEC"] ?? "deflate") as OcfCodec;
const policy = { trustedVendors: [] };
const cpuNow = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;
const rate = (n: number, ms: number) => `${Math.round((n / ms) * 1000).toLocaleString("en-US")} obs/s`;

const dir = mkdtempSync(join(tmpdir(), "a2a-ledger-shards-bench-"));
const file = join(dir, "log.avro");
{
  const writer = new OcfWriter(file, codec);
  for (const o of parseLines(generateLog(total))) await writer.write(o);
  await writer.close();
}
const size = statSync(file).size;
console.log(
  `${total.toLocaleString("en-US")} generated observations, ${(size / 1e6).toFixed(1)} MB of Avro (${codec}); Node ${process.version}; load average ${(
    await import("node:os")
  )
    .loadavg()
    .map((x) => x.toFixed(1))
    .join(" ")}`,
);

async function oneShard(): Promise<{ wall: number; cpu: number; decisions: string }> {
  const w = performance.now();
  const c = cpuNow();
  const run = new RuleSetRun(defaultRuleSet, policy, wholeLog);
  await runReplay(ocfSource(file, size), [run], wholeLog);
  return { wall: performance.now() - w, cpu: cpuNow() - c, decisions: JSON.stringify(run.decisions) };
}

async function shards(count: number): Promise<{ wall: number; cpu: number; shardCpu: number[]; decisions: string }> {
  const w = performance.now();
  const c = cpuNow();
  const counts = await runReplay(ocfSource(file, size), [], wholeLog);
  const shardCpu: number[] = [];
  const [merged] = await runSharded(
    {
      source: { input: file, kafka: false, topic: undefined, format: "avro" },
      cwd: dir,
      rulesVersions: [defaultRuleSet.rulesVersion],
      policy,
      scope: wholeLog,
    },
    [defaultRuleSet],
    count,
    counts.shared,
    counts.read,
    (s) => shardCpu.push(s.cpuMs),
  );
  const own = cpuNow() - c;
  return {
    wall: performance.now() - w,
    cpu: own + shardCpu.reduce((a, b) => a + b, 0),
    shardCpu: [own, ...shardCpu],
    decisions: JSON.stringify(merged?.decisions),
  };
}

const one = { wall: [] as number[], cpu: [] as number[] };
const two = { wall: [] as number[], cpu: [] as number[], split: "" };
for (let r = 0; r < rounds; r++) {
  const a = await oneShard();
  const b = await shards(2);
  if (a.decisions !== b.decisions) throw new Error("two shards decided otherwise than one");
  one.wall.push(a.wall);
  one.cpu.push(a.cpu);
  two.wall.push(b.wall);
  two.cpu.push(b.cpu);
  two.split = b.shardCpu.map((x) => (x / 1000).toFixed(2)).join(" + ");
}
const line = (label: string, t: { wall: number[]; cpu: number[] }) =>
  `${label.padEnd(40)} wall ${(median(t.wall) / 1000).toFixed(2)} s ${rate(total, median(t.wall)).padStart(15)} | cpu ${(median(t.cpu) / 1000).toFixed(2)} s, per core ${rate(total, median(t.cpu)).padStart(15)}`;
console.log(`median of ${rounds}, ${defaultRuleSet.rulesVersion}, merged decisions equal to one shard's`);
console.log(line("--shards 1 (this process)", one));
console.log(line("--shards 2 (counting pass + 2 processes)", two));
console.log(`--shards 2 cpu split (s, last round): counting pass and merge ${two.split}`);
console.log(
  `ratios: wall 1/2 shards ${(median(one.wall) / median(two.wall)).toFixed(2)} (speed-up), cpu 2/1 shards ${(median(two.cpu) / median(one.cpu)).toFixed(2)} (extra work); per core against the 300,000 obs/s goal: 1 shard ${(((total / median(one.cpu)) * 1000) / 300_000).toFixed(2)}, 2 shards ${(((total / median(two.cpu)) * 1000) / 300_000).toFixed(2)}`,
);
rmSync(dir, { recursive: true, force: true });
