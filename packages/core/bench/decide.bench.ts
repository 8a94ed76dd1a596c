/**
 * Benchmark (not a test): the rules against parsing, over a generated log of 1,000,000 observations.
 *   npm run bench -w @a2a-ledger/core            (OBSERVATIONS=200000 to shorten, ROUNDS=5 for more rounds)
 * (a) parse only: JSON.parse + the ingest parser (Avro-validated) per NDJSON line — the baseline;
 * (b) rules alone on pre-parsed observations: default/4 (what `default` names) and the frozen default/2
 *     through the one fold (`foldBatch`, what replay and the reconciler run), default/4's figure also as a
 *     ratio to default/2's; default/2 step by step, and the frozen default/1 step by step.
 * Single thread; every figure is the median of the rounds, and also a ratio to (a) measured in the same run.
 * The script runs node with --expose-gc (a full collection between phases) and a 64 MB young generation
 * (--max-semi-space-size=64, which suits any long fold: set it with NODE_OPTIONS); BENCH_NODE_FLAGS="" for V8's defaults.
 */
import type { Observation } from "@a2a-ledger/schemas";
import { CapabilityTable } from "../src/capabilities.ts";
import { createDecider, type LedgerState } from "../src/decider.ts";
import { applyCapabilityUpdates, foldBatch } from "../src/fold.ts";
import { parseObservation } from "../src/ingest-json.ts";
import type { RuleSet } from "../src/rule-set.ts";
import { defaultRuleSetV2, defaultRuleSetV4 } from "../src/rules/rule-sets.ts";
import { defaultRuleSetV1 } from "../src/v1/rules/rule-sets.ts";
import { generateLog } from "../test/generated-log.ts";

const total = Number(process.env["OBSERVATIONS"] ?? 1_000_000);
const rounds = Number(process.env["ROUNDS"] ?? 3);
const policy = { trustedVendors: ["Vendor0"] };

function parse(line: string): Observation {
  const r = parseObservation(JSON.parse(line));
  if (!r.ok) throw new Error(`generator produced an invalid line: ${JSON.stringify(r.issues)} ${line}`);
  return r.observation;
}

/** Step by step, as a caller holding every state in a Map would. */
function stepLoop(ruleSet: RuleSet, observations: readonly Observation[]): number {
  const decider = createDecider(ruleSet);
  const table = new CapabilityTable();
  const ctx = { capabilities: table, policy };
  const states = new Map<string, LedgerState>();
  let decisions = 0;
  for (const obs of observations) {
    const result = decider.step(ctx, states.get(obs.correlationId) ?? decider.initialState(), obs);
    states.set(obs.correlationId, result.state);
    if (result.capabilityUpdates.length > 0 || result.cards.length > 0) applyCapabilityUpdates(table, result);
    decisions += result.decisions.length;
  }
  return decisions;
}

/** The one fold over the whole log, as replay runs it. */
function fold(ruleSet: RuleSet, observations: readonly Observation[]): number {
  return foldBatch(
    { decider: createDecider(ruleSet), policy, capabilities: new CapabilityTable(), stateOf: () => undefined },
    observations,
  ).decisions.length;
}

/** A full collection between phases (with --expose-gc), so one phase's garbage is not another's time. */
const collect = (): void => (globalThis as { gc?: () => void }).gc?.();
const seconds = (start: bigint): number => Number(process.hrtime.bigint() - start) / 1e9;
const rate = (s: number): string =>
  `${Math.round(total / s)
    .toLocaleString("en-US")
    .padStart(10)} obs/s`;
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;

const genStart = process.hrtime.bigint();
const lines = generateLog(total);
const bytes = lines.reduce((s, l) => s + l.length + 1, 0);
console.log(
  `generated ${lines.length.toLocaleString("en-US")} observations (${(bytes / 1e6).toFixed(0)} MB NDJSON) in ${seconds(genStart).toFixed(1)} s`,
);

let parsed: Observation[] = lines.slice(0, 50_000).map(parse);
// warm-up so the JIT has seen every path
for (const rs of [defaultRuleSetV4, defaultRuleSetV2, defaultRuleSetV1]) {
  stepLoop(rs, parsed);
  fold(rs, parsed);
}

const measures = {
  parse: [] as number[],
  fold4: [] as number[],
  fold2: [] as number[],
  step2: [] as number[],
  step1: [] as number[],
};
const decisions = { fold4: 0, fold2: 0, step2: 0, step1: 0 };
for (let r = 0; r < rounds; r++) {
  parsed = [];
  collect();
  let start = process.hrtime.bigint();
  for (const line of lines) parsed.push(parse(line));
  measures.parse.push(seconds(start));

  collect();
  start = process.hrtime.bigint();
  decisions.fold4 = fold(defaultRuleSetV4, parsed);
  measures.fold4.push(seconds(start));

  collect();
  start = process.hrtime.bigint();
  decisions.fold2 = fold(defaultRuleSetV2, parsed);
  measures.fold2.push(seconds(start));

  collect();
  start = process.hrtime.bigint();
  decisions.step2 = stepLoop(defaultRuleSetV2, parsed);
  measures.step2.push(seconds(start));

  collect();
  start = process.hrtime.bigint();
  decisions.step1 = stepLoop(defaultRuleSetV1, parsed);
  measures.step1.push(seconds(start));
}

const parseS = median(measures.parse);
const line = (label: string, s: number, extra = "") =>
  console.log(
    `${label.padEnd(40)} ${s.toFixed(2).padStart(6)} s ${rate(s)}  ${(parseS / s).toFixed(2)}× parse speed${extra}`,
  );
console.log(`node ${process.version}, ${rounds} rounds, medians (${process.execArgv.join(" ") || "default V8 flags"})`);
line("(a) parse only", parseS);
line(
  "(b) default/4, the one fold (foldBatch)",
  median(measures.fold4),
  `  (${decisions.fold4.toLocaleString("en-US")} decisions; ${(median(measures.fold2) / median(measures.fold4)).toFixed(2)}× default/2's speed)`,
);
line(
  "    default/2, the one fold (foldBatch)",
  median(measures.fold2),
  `  (${decisions.fold2.toLocaleString("en-US")} decisions)`,
);
line("    default/2, step by step", median(measures.step2), `  (${decisions.step2.toLocaleString("en-US")} decisions)`);
line("    default/1, step by step", median(measures.step1), `  (${decisions.step1.toLocaleString("en-US")} decisions)`);
