/**
 * Benchmark (not a test): rules cost vs parsing cost over a generated log of 1,000,000 observations.
 *   npm run bench -w @a2a-ledger/core            (OBSERVATIONS=200000 to shorten)
 * (a) parse only: JSON.parse + the ingest parser (Avro-validated) per NDJSON line;
 * (b) parse + rules: the same, then the decider step per observation (single thread);
 * rules cost = (b) − (a), also measured directly on pre-parsed observations.
 */
import type { Observation } from "@a2a-ledger/schemas";
import { CapabilityTable } from "../src/capabilities.ts";
import { createDecider, type LedgerState } from "../src/decider.ts";
import { applyCapabilityUpdates } from "../src/fold.ts";
import { parseObservation } from "../src/ingest-json.ts";
import { defaultRuleSet } from "../src/rules/rule-sets.ts";
import { generateLog } from "../test/generated-log.ts";

const total = Number(process.env["OBSERVATIONS"] ?? 1_000_000);

function parse(line: string): Observation {
  const r = parseObservation(JSON.parse(line));
  if (!r.ok) throw new Error(`generator produced an invalid line: ${JSON.stringify(r.issues)} ${line}`);
  return r.observation;
}

function rulesOver(observations: Iterable<Observation>): number {
  const decider = createDecider(defaultRuleSet);
  const table = new CapabilityTable();
  const ctx = { capabilities: table, policy: { trustedVendors: ["Vendor0"] } };
  const states = new Map<string, LedgerState>();
  let decisions = 0;
  for (const obs of observations) {
    const result = decider.step(ctx, states.get(obs.correlationId) ?? decider.initialState(), obs);
    states.set(obs.correlationId, result.state);
    applyCapabilityUpdates(table, result);
    decisions += result.decisions.length;
  }
  return decisions;
}

function* parsing(lines: readonly string[]): Generator<Observation> {
  for (const line of lines) yield parse(line);
}

const seconds = (start: bigint): number => Number(process.hrtime.bigint() - start) / 1e9;
const rate = (n: number, s: number): string => `${Math.round(n / s).toLocaleString("en-US")} obs/s`;

const genStart = process.hrtime.bigint();
const lines = generateLog(total);
const bytes = lines.reduce((s, l) => s + l.length + 1, 0);
console.log(`generated ${lines.length.toLocaleString("en-US")} observations (${(bytes / 1e6).toFixed(0)} MB NDJSON) in ${seconds(genStart).toFixed(1)} s`);

// warm-up so the JIT has seen every path
rulesOver(parsing(lines.slice(0, 50_000)));

// Three rounds, median of each, so a noisy neighbour on the machine does not decide the figure.
const rounds = Number(process.env["ROUNDS"] ?? 3);
const parseRuns: number[] = [];
const bothRuns: number[] = [];
const rulesRuns: number[] = [];
let decisions = 0;
let parsed: Observation[] = [];
for (let r = 0; r < rounds; r++) {
  let start = process.hrtime.bigint();
  parsed = [];
  for (const line of lines) parsed.push(parse(line));
  parseRuns.push(seconds(start));

  start = process.hrtime.bigint();
  rulesOver(parsed);
  rulesRuns.push(seconds(start));

  start = process.hrtime.bigint();
  decisions = rulesOver(parsing(lines));
  bothRuns.push(seconds(start));
}
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;
const parseS = median(parseRuns);
const bothS = median(bothRuns);
const rulesS = median(rulesRuns);

console.log(`node ${process.version}, ${rounds} rounds, medians`);
console.log(`(a) parse only        ${parseS.toFixed(2)} s  ${rate(total, parseS)}`);
console.log(`(b) parse + rules     ${bothS.toFixed(2)} s  ${rate(total, bothS)}  (${decisions.toLocaleString("en-US")} decisions)`);
console.log(`    rules alone       ${rulesS.toFixed(2)} s  ${rate(total, rulesS)}  (on pre-parsed observations)`);
console.log(`rules/parse cost ratio: ${((bothS - parseS) / parseS).toFixed(2)} from (b)−(a); ${(rulesS / parseS).toFixed(2)} measured directly`);
