/**
 * `npm run bench:losses -w @a2a-ledger/core`: what becomes of a lost task under each default rule set,
 * on one generated history with workers of both kinds (`generateLog(…, { kinds })`: durable workers that
 * rarely lose a task, ephemeral ones that lose 15 % on restart; cards refreshed and probed as the
 * dispatcher would). The policy trusts Vendor0 and Vendor2 (w-acme and w-gamma, both claiming a durable
 * store). Every TaskNotFound of the log is a loss of a task that was not terminal; its outcome is what
 * the decisions it caused say, and, for a block, whether a later decision of its correlation re-dispatched
 * it. OBSERVATIONS (default 200,000).
 */
import { defaultRuleSet, defaultRuleSetV3, defaultRuleSetV4 } from "../src/rules/rule-sets.ts";
import { parseObservation } from "../src/ingest-json.ts";
import { replayLog } from "../src/replay.ts";
import type { RuleSet } from "../src/rule-set.ts";
import type { Decision, Observation } from "@a2a-ledger/schemas";
import { generateLog } from "../test/generated-log.ts";

const n = Number(process.env["OBSERVATIONS"] ?? 200_000);
const log: Observation[] = generateLog(n, { refreshEvery: 3_000, probeRefreshes: true, kinds: {} }).map((line) => {
  const r = parseObservation(JSON.parse(line));
  if (!r.ok) throw new Error(JSON.stringify(r.issues));
  return r.observation;
});
const policy = { trustedVendors: ["Vendor0", "Vendor2"] };
const durable = new Set(["w-acme", "w-gamma", "w-eps"]);

const outcomes = [
  "re-dispatched (resumed)",
  "restarted from scratch",
  "blocked, then re-dispatched",
  "blocked",
  "failed (trusted)",
  "indeterminate, nothing commanded",
  "not decided",
] as const;
type Outcome = (typeof outcomes)[number];

/** Per rule set: the outcomes, over all losses and per kind of loser, and the re-dispatches sent back to a worker that had lost the task. */
function outcomesOf(ruleSet: RuleSet): {
  all: Map<Outcome, number>;
  byKind: Map<string, Map<Outcome, number>>;
  backToLoser: number;
} {
  const { decisions } = replayLog(log, ruleSet, { policy });
  const byCause = new Map<string, Decision[]>();
  const redispatchedLater = new Map<string, number>();
  decisions.forEach((d, i) => {
    const cause = d.causeEventIds[0] ?? "";
    byCause.set(cause, [...(byCause.get(cause) ?? []), d]);
    if (d.type === "RedispatchCommanded") redispatchedLater.set(d.correlationId, i);
  });
  const index = new Map(decisions.map((d, i) => [d, i]));
  const all = new Map<Outcome, number>();
  const byKind = new Map<string, Map<Outcome, number>>();
  const losers = new Map<string, Set<string>>();
  let backToLoser = 0;
  for (const o of log) {
    if (o.type !== "TaskNotFoundObserved") continue;
    const lost = losers.get(o.correlationId) ?? new Set<string>();
    lost.add(o.workerId);
    losers.set(o.correlationId, lost);
    const caused = byCause.get(o.eventId) ?? [];
    const redispatch = caused.find((d) => d.type === "RedispatchCommanded");
    const blocked = caused.find((d) => d.type === "ReconciliationBlocked");
    let outcome: Outcome;
    if (caused.some((d) => d.type === "TaskFailed")) outcome = "failed (trusted)";
    else if (redispatch?.type === "RedispatchCommanded") {
      outcome = redispatch.resumeState === null ? "restarted from scratch" : "re-dispatched (resumed)";
      if (lost.has(redispatch.targetWorkerId)) backToLoser++;
    } else if (blocked !== undefined)
      outcome =
        (redispatchedLater.get(o.correlationId) ?? -1) > (index.get(blocked) ?? 0)
          ? "blocked, then re-dispatched"
          : "blocked";
    else if (caused.some((d) => d.type === "TaskIndeterminate")) outcome = "indeterminate, nothing commanded";
    else outcome = "not decided";
    all.set(outcome, (all.get(outcome) ?? 0) + 1);
    const kind = durable.has(o.workerId) ? "durable" : "ephemeral";
    const k = byKind.get(kind) ?? new Map<Outcome, number>();
    k.set(outcome, (k.get(outcome) ?? 0) + 1);
    byKind.set(kind, k);
  }
  return { all, byKind, backToLoser };
}

const pct = (part: number, whole: number) => (whole === 0 ? "—" : `${((100 * part) / whole).toFixed(1)} %`);
const total = (m: Map<Outcome, number>) => [...m.values()].reduce((a, b) => a + b, 0);

console.log(
  `history: ${n.toLocaleString("en")} observations, ${log.filter((o) => o.type === "TaskNotFoundObserved").length.toLocaleString("en")} losses\n`,
);
console.log(`| rule set | losers | losses | ${outcomes.join(" | ")} | re-dispatched to a worker that lost the task |`);
console.log(`|---|---|---:|${outcomes.map(() => "---:").join("|")}|---:|`);
for (const ruleSet of [defaultRuleSet, defaultRuleSetV3, defaultRuleSetV4]) {
  const { all, byKind, backToLoser } = outcomesOf(ruleSet);
  for (const [kind, m] of [["all", all] as const, ...[...byKind.entries()].sort()]) {
    const whole = total(m);
    const back = kind === "all" ? pct(backToLoser, whole) : "";
    console.log(
      `| ${ruleSet.rulesVersion} | ${kind} | ${whole.toLocaleString("en")} | ${outcomes.map((o) => pct(m.get(o) ?? 0, whole)).join(" | ")} | ${back} |`,
    );
  }
}
