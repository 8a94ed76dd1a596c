/**
 * `npm run bench:losses -w @a2a-ledger/core`: what becomes of a lost task under each default rule set,
 * on one generated history with workers of both kinds (`generateLog(…, { kinds })`: durable workers that
 * rarely lose a task, ephemeral ones that lose 15 % on restart; cards refreshed and probed as the
 * dispatcher would). The policy trusts Vendor0 and Vendor2 (w-acme and w-gamma, both claiming a durable
 * store). Every TaskNotFound of the log is a loss of a task that was not terminal; its outcome is what
 * the decisions it caused say, and, for a block, whether a later decision of its correlation re-dispatched
 * it. A last row runs default/4 with a fallback for every skill (FALLBACK, default 5m, under the
 * reconciler's retention, whose stream time runs it): a block the fallback restarted counts apart.
 * OBSERVATIONS (default 200,000).
 */
import { parseDuration } from "@a2a-ledger/env";
import type { PolicyConfig } from "../src/policy.ts";
import { defaultRetention, type RetentionPolicy } from "../src/retention.ts";
import { defaultRuleSetV2, defaultRuleSetV3, defaultRuleSetV4 } from "../src/rules/rule-sets.ts";
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
  "blocked, then restarted by the fallback",
  "blocked",
  "failed (trusted)",
  "indeterminate, nothing commanded",
  "not decided",
] as const;
type Outcome = (typeof outcomes)[number];

/** Per rule set: the outcomes, over all losses and per kind of loser, and the re-dispatches sent back to a worker that had lost the task. */
function outcomesOf(
  ruleSet: RuleSet,
  policy: PolicyConfig,
  retention?: RetentionPolicy,
): {
  all: Map<Outcome, number>;
  byKind: Map<string, Map<Outcome, number>>;
  backToLoser: number;
} {
  const { decisions } = replayLog(log, ruleSet, { policy, ...(retention === undefined ? {} : { retention }) });
  const byCause = new Map<string, Decision[]>();
  const redispatchedLater = new Map<string, number>();
  decisions.forEach((d, i) => {
    const cause = d.causeEventIds[0] ?? "";
    // A fallback's restart names the loss as its cause, as R6's command would: it is told apart by its id.
    if (!d.decisionId.endsWith(":fallback")) byCause.set(cause, [...(byCause.get(cause) ?? []), d]);
    if (d.type === "RedispatchCommanded") redispatchedLater.set(d.correlationId, i);
  });
  const byId = new Map(decisions.map((d, i) => [i, d]));
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
    } else if (blocked !== undefined) {
      const later = redispatchedLater.get(o.correlationId) ?? -1;
      outcome =
        later <= (index.get(blocked) ?? 0)
          ? "blocked"
          : byId.get(later)?.decisionId.endsWith(":fallback") === true
            ? "blocked, then restarted by the fallback"
            : "blocked, then re-dispatched";
    } else if (caused.some((d) => d.type === "TaskIndeterminate")) outcome = "indeterminate, nothing commanded";
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
const fallbackMs = parseDuration(process.env["FALLBACK"] ?? "5m") ?? 300_000;
const runs: [string, RuleSet, PolicyConfig, RetentionPolicy?][] = [
  ...[defaultRuleSetV2, defaultRuleSetV3, defaultRuleSetV4].map((r): [string, RuleSet, PolicyConfig] => [
    r.rulesVersion,
    r,
    policy,
  ]),
  [
    `default/4, fallback *=${fallbackMs / 60_000}m`,
    defaultRuleSetV4,
    { ...policy, fallbacks: [{ skillId: "*", afterMs: fallbackMs }] },
    defaultRetention,
  ],
];
for (const [label, ruleSet, judgedBy, retention] of runs) {
  const { all, byKind, backToLoser } = outcomesOf(ruleSet, judgedBy, retention);
  for (const [kind, m] of [["all", all] as const, ...[...byKind.entries()].sort()]) {
    const whole = total(m);
    const back = kind === "all" ? pct(backToLoser, whole) : "";
    console.log(
      `| ${label} | ${kind} | ${whole.toLocaleString("en")} | ${outcomes.map((o) => pct(m.get(o) ?? 0, whole)).join(" | ")} | ${back} |`,
    );
  }
}
