/**
 * Benchmark (not a test) of what an exact partial replay costs, as ratios against a replay of the whole
 * log measured in the same run:
 *   npm run bench:window -w @a2a-ledger/cli   (OBSERVATIONS=1000000, ROUNDS=3, RULES=default/4)
 * One generated log in an Avro file; (a) the whole log, (b) the last tenth (`--since`) as the replay
 * folded it before it was exact (one pass: the window, and from outside it only what CapabilityScope
 * names), (c) the same window exact (a first pass naming the correlations in scope and the shared ones,
 * a second folding those whole), (d) one correlation, exact. CPU time of this process, median of ROUNDS.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { replay, ruleSetByName } from "@a2a-ledger/core";
import { generateLog } from "@a2a-ledger/core/testing";
import { ocfSource } from "../src/ocf/ocf-reader.ts";
import { OcfWriter } from "../src/ocf/ocf-writer.ts";
import { runReplay } from "../src/replay/replay-run.ts";
import { type ReplayScope, wholeLog } from "../src/replay/replay-scope.ts";
import { RuleSetRun } from "../src/replay/rule-set-run.ts";
import { parseLines } from "../test/observations.ts";

const total = Number(process.env["OBSERVATIONS"] ?? 1_000_000);
const rounds = Number(process.env["ROUNDS"] ?? 3);
const rules = process.env["RULES"] ?? "default/4";
const ruleSet = ruleSetByName(rules);
if (ruleSet === undefined) throw new Error(`RULES=${rules}: no such shipped rule set`);
const policy = { trustedVendors: [] };

const cpuNow = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;

const dir = mkdtempSync(join(tmpdir(), "a2a-ledger-window-bench-"));
const file = join(dir, "log.avro");
const observations = parseLines(generateLog(total));
const writer = new OcfWriter(file, "deflate");
for (const o of observations) await writer.write(o);
await writer.close();
const since = (observations[Math.floor(observations.length * 0.9)] as { occurredAt: number }).occurredAt;
/** A correlation of the window the rules decide on (a loss), so (d) replays something. */
const target =
  replay(observations, ruleSet).find((d) => d.type === "TaskIndeterminate" && d.decidedAt >= since)?.correlationId ??
  (observations.at(-1) as { correlationId: string }).correlationId;
const source = () => ocfSource(file, 0, "log.avro");

/** One replay; returns its decisions in scope. */
async function once(scope: ReplayScope, exact: boolean): Promise<number> {
  const run = new RuleSetRun(ruleSet as NonNullable<typeof ruleSet>, policy, scope);
  let whole: Set<string> | undefined;
  if (exact) {
    const counts = await runReplay(source(), [], scope);
    whole = new Set([...counts.scoped, ...counts.shared]);
  }
  await runReplay(source(), [run], scope, undefined, undefined, whole);
  return run.decisions.length;
}

async function measure(label: string, scope: ReplayScope, exact: boolean): Promise<number> {
  const cpu: number[] = [];
  let decisions = 0;
  for (let r = 0; r < rounds; r++) {
    const c = cpuNow();
    decisions = await once(scope, exact);
    cpu.push(cpuNow() - c);
  }
  const ms = median(cpu);
  console.log(`${label.padEnd(48)} cpu ${(ms / 1000).toFixed(2)} s  (${decisions.toLocaleString("en-US")} decisions)`);
  return ms;
}

console.log(
  `${observations.length.toLocaleString("en-US")} generated observations, rules ${rules}, window: the last tenth; Node ${process.version}`,
);
const whole = await measure("(a) the whole log", wholeLog, false);
const window = { since, until: undefined, correlationId: undefined };
const before = await measure("(b) the window, one pass (inexact)", window, false);
const exact = await measure("(c) the window, exact (two passes)", window, true);
const one = await measure("(d) one correlation, exact (two passes)", { ...wholeLog, correlationId: target }, true);
console.log(
  `ratios to (a): (b) ${(before / whole).toFixed(2)}, (c) ${(exact / whole).toFixed(2)}, (d) ${(one / whole).toFixed(2)}; (c)/(b) ${(exact / before).toFixed(2)}`,
);
rmSync(dir, { recursive: true, force: true });
