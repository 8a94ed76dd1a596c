/**
 * a2a-ledger replay: recorded observations through rule sets. One source (an NDJSON or Avro file, or
 * the observations topic), optionally a window and one correlation; a baseline (a rule set, or the
 * decisions the reconciler recorded) and a candidate rule set. Without a candidate and with a rule-set
 * baseline it lists the decisions; otherwise it compares the two per correlation.
 */
import { rename, writeFile } from "node:fs/promises";
import { resolve } from "node:path";
import { type PolicySource, ruleSetByName, type RuleSet } from "@a2a-ledger/core";
import { accessFailureOf, endpointsFromEnv, processClientConfig } from "@a2a-ledger/kafka";
import type { Decision } from "@a2a-ledger/schemas";
import type { Command } from "../command.ts";
import { withRecordedPolicyVersions } from "../decision-diff.ts";
import { describeDecision } from "../describe-decision.ts";
import { parseOptions } from "../parse-options.ts";
import { exitCodes, UnavailableError, UsageError, type Io } from "../io.ts";
import { clusterFromEnv, type Cluster } from "../kafka/cluster.ts";
import { readPolicyHistory } from "../kafka/policy-topic.ts";
import { readRecordedDecisions } from "../kafka/recorded-decisions.ts";
import { TopicUnavailableError } from "../kafka/topic-stream.ts";
import { checkWritable } from "../output-file.ts";
import { progressBar } from "../progress.ts";
import { renderHtml } from "../render/html.ts";
import { renderTerminal } from "../render/terminal.ts";
import { rejectionLines, rejectionSummary } from "../replay/rejections.ts";
import { buildReport, type ReplayReport } from "../replay/replay-report.ts";
import { type ReplayCounts, runReplay } from "../replay/replay-run.ts";
import { isPartial, scopeFromOptions, type ReplayScope } from "../replay/replay-scope.ts";
import { retentionFromOptions } from "../replay/replay-retention.ts";
import { shardsFromOption } from "../replay/replay-shard.ts";
import { type MergedRun, runSharded } from "../replay/sharded-replay.ts";
import { RulesError, RuleSetRun } from "../replay/rule-set-run.ts";
import { loadRuleSet } from "../rules-loader.ts";
import { InputError, type ObservationSource } from "../sources/observation-source.ts";
import { openSource } from "../sources/open-source.ts";

const usage = `usage: a2a-ledger replay (--input FILE | --kafka) [--since TIME] [--until TIME] [--correlation ID]
                         [--baseline NAME|PATH|recorded[:VERSION]] [--candidate NAME|PATH]
                         [--trusted-vendors a,b] [--order recorded|event-time] [--json]
                         [--report FILE.html] [--fail-on-diff] [--shards N]
                         [--retention DURATION|off] [--stale-after DURATION]
  --input            observations: NDJSON in the ingest JSON shape, or an Avro object container file
                     (as \`a2a-ledger export\` writes; recognised by its magic bytes, or --format ndjson|avro)
  --kafka            read the observations topic instead (all partitions, read_committed, from the
                     beginning; KAFKA_BROKERS, SCHEMA_REGISTRY_URL, A2A_LEDGER_TOPIC_SUFFIX; --topic NAME),
                     in the order the reconciler read it: batch by batch as a2a.reconciler.batches.v1
                     recorded them, each judged by the capability table it was judged by live, then what
                     it has not read yet by event time. Without batch records covering the topic (or with
                     --order event-time) the partitions are merged by event time, and the summary says so
  --since, --until   only observations with since <= occurredAt < until (ISO-8601 with offset, or epoch
                     ms); cards, probes and lost canaries before the window still build the capabilities
  --correlation      only this correlation's observations and decisions
  --baseline         a rule set (default, restart-from-scratch, default/1, …, or a module path; default:
                     default), or \`recorded\`: the decisions on a2a.decisions.v1 (--decisions-topic NAME),
                     of the one rulesVersion they hold or of \`recorded:VERSION\`. --rules is the same option
  --candidate        the rule set to compare; with a recorded baseline it defaults to the recorded version
  --trusted-vendors  a fixed list of provider.organization values to trust (a what-if: decisions name no
                     policy version). Without it, --kafka judges each event by the trust policy recorded
                     on a2a.policy.v1 (--policy-topic NAME) in force at its time, as the reconciler did,
                     whatever A2A_LEDGER_TRUSTED_VENDORS says (so does a file against --baseline
                     recorded); a file replay otherwise uses A2A_LEDGER_TRUSTED_VENDORS
  --json             decisions as JSON lines; when comparing, one JSON line per changed correlation and
                     a last line {"summary": …}
  --report           when comparing, also write a self-contained HTML report to FILE.html
  --fail-on-diff     exit 1 when the candidate decides differently from the baseline
  --shards           fold in N worker processes (1 to 6; default 1), each owning the correlations of
                     whole hash buckets (murmur2 over 6, % N); the output is the same as with 1.
                     Shipped rule sets only
  --retention        evict as the reconciler does (the architecture's "Retention"): a finished
                     correlation leaves the state this long after its last event by stream time, so a
                     later observation opens it anew; \`off\` keeps every correlation. Default: the
                     reconciler's A2A_LEDGER_RECONCILER_RETENTION, else 7d. Batches recorded on
                     a2a.reconciler.batches.v1 are replayed with the retention their records name
  --stale-after      a correlation without an outcome leaves after this long, with CorrelationExpired
                     (default: A2A_LEDGER_RECONCILER_STALE_AFTER, else 30d)
exit codes: 0 ok, 1 differences with --fail-on-diff, 2 bad usage, a malformed input or a failing rules
module (named by file and line or byte offset), 3 Kafka or the registry cannot be reached`;

function options(args: string[]) {
  return parseOptions(
    args,
    {
      input: { type: "string" },
      kafka: { type: "boolean", default: false },
      topic: { type: "string" },
      "decisions-topic": { type: "string" },
      format: { type: "string" },
      since: { type: "string" },
      until: { type: "string" },
      correlation: { type: "string" },
      baseline: { type: "string" },
      rules: { type: "string" },
      candidate: { type: "string" },
      "trusted-vendors": { type: "string" },
      "policy-topic": { type: "string" },
      order: { type: "string" },
      json: { type: "boolean", default: false },
      report: { type: "string" },
      "fail-on-diff": { type: "boolean", default: false },
      shards: { type: "string" },
      retention: { type: "string" },
      "stale-after": { type: "string" },
      help: { type: "boolean", default: false },
    },
    usage,
  );
}

type Options = ReturnType<typeof options>;

function printDecisions(io: Io, decisions: readonly Decision[], json: boolean): void {
  if (json) {
    io.stdout(decisions.map((d) => `${JSON.stringify(d)}\n`).join(""));
    return;
  }
  let current: string | null = null;
  const lines: string[] = [];
  const byCorrelation = [...decisions].sort((a, b) =>
    a.correlationId < b.correlationId ? -1 : a.correlationId > b.correlationId ? 1 : 0,
  );
  for (const d of byCorrelation) {
    if (d.correlationId !== current) {
      current = d.correlationId;
      lines.push(current);
    }
    lines.push(`  ${describeDecision(d)}`);
  }
  io.stdout(lines.length === 0 ? "" : `${lines.join("\n")}\n`);
}

/** The recorded baseline: `recorded` or `recorded:VERSION`; undefined for a rule-set baseline. */
function recordedSpec(baseline: string): { version: string | undefined } | undefined {
  if (baseline === "recorded") return { version: undefined };
  if (baseline.startsWith("recorded:") && baseline.length > "recorded:".length)
    return { version: baseline.slice("recorded:".length) };
  return undefined;
}

interface Baseline {
  label: string;
  rulesVersion: string;
  recorded: boolean;
  /** Recorded decisions, or the rule set to run. */
  decisions?: Decision[];
  ruleSet?: RuleSet;
}

async function recordedBaseline(
  o: Options,
  cluster: Cluster,
  version: string | undefined,
  scope: ReplayScope,
  io: Io,
): Promise<Baseline> {
  const topic = o["decisions-topic"] ?? cluster.topics.decisions;
  const recorded = await readRecordedDecisions(cluster.kafka, cluster.serde, topic, scope);
  if (recorded.skipped.length > 0)
    io.stderr(
      `a2a-ledger replay: ${recorded.skipped.length} record(s) of ${topic} are not decisions and were skipped (first: ${recorded.skipped[0]?.where}: ${recorded.skipped[0]?.reason})\n`,
    );
  const versions = [...recorded.byVersion.keys()].sort();
  let chosen = version;
  if (chosen === undefined) {
    if (versions.length > 1)
      throw new UsageError(
        `${topic} holds decisions of several rules versions in this scope (${versions.join(", ")}): name one with --baseline recorded:VERSION`,
      );
    chosen = versions[0];
    if (chosen === undefined)
      throw new UsageError(
        `${topic} holds no decisions in this scope: name the version to compare with --baseline recorded:VERSION`,
      );
  }
  return {
    label: `recorded ${chosen}`,
    rulesVersion: chosen,
    recorded: true,
    decisions: recorded.byVersion.get(chosen) ?? [],
  };
}

const vendorsOf = (raw: string) =>
  raw
    .split(",")
    .map((v) => v.trim())
    .filter((v) => v !== "");

/**
 * The policy a replay judges by. From Kafka: the versions recorded on the policy topic, each event by the
 * one in force at its time, as the reconciler judged it (A2A_LEDGER_TRUSTED_VENDORS plays no part) — also
 * for a file compared with the recorded decisions;
 * `--trusted-vendors` instead is a what-if, one fixed list whose decisions name no version. From a file:
 * `--trusted-vendors`, else A2A_LEDGER_TRUSTED_VENDORS, as one fixed list.
 */
async function policyFrom(o: Options, fromKafka: boolean, connect: () => Cluster, io: Io): Promise<PolicySource> {
  const flag = o["trusted-vendors"];
  if (flag !== undefined) return { trustedVendors: vendorsOf(flag) };
  if (!fromKafka) return { trustedVendors: vendorsOf(process.env["A2A_LEDGER_TRUSTED_VENDORS"] ?? "") };
  const cluster = connect();
  const recorded = await readPolicyHistory(cluster, o["policy-topic"] ?? cluster.topics.policy);
  if (recorded.skipped.length > 0)
    io.stderr(
      `a2a-ledger replay: ${recorded.skipped.length} record(s) of the policy topic are not trust policies and were skipped (first: ${recorded.skipped[0]?.where}: ${recorded.skipped[0]?.reason})\n`,
    );
  return { versions: recorded.versions };
}

/** Writes the report next to its final name first, so a failed run never leaves a report that looks complete. */
async function writeReport(path: string, html: string): Promise<void> {
  const partial = `${path}.partial`;
  await writeFile(partial, html);
  await rename(partial, path);
}

async function run(args: string[], io: Io): Promise<number> {
  const o = options(args);
  if (o.help) {
    io.stdout(`${usage}\n`);
    return exitCodes.ok;
  }
  if (o.input === undefined && !o.kafka)
    throw new UsageError(`--input is required (or --kafka to read the observations topic)\n${usage}`);
  if (o.baseline !== undefined && o.rules !== undefined)
    throw new UsageError("--rules and --baseline name the same thing: give one");
  if (o.order !== undefined && o.order !== "recorded" && o.order !== "event-time")
    throw new UsageError(`--order ${o.order}: expected recorded or event-time`);
  const baselineSpec = o.baseline ?? o.rules ?? "default";
  const recorded = recordedSpec(baselineSpec);
  const comparing = o.candidate !== undefined || recorded !== undefined;
  if (o["fail-on-diff"] && !comparing)
    throw new UsageError("--fail-on-diff needs --candidate (or --baseline recorded)");
  if (o.report !== undefined && !comparing)
    throw new UsageError("--report needs a comparison: --candidate, or --baseline recorded");
  const scope = scopeFromOptions(o);
  const shards = shardsFromOption(o.shards);
  const retention = retentionFromOptions(o);
  if (o.report !== undefined) checkWritable(resolve(io.cwd, o.report), o.report);

  let cluster: Cluster | undefined;
  const connect = () => (cluster ??= clusterFromEnv("a2a-ledger-replay"));
  try {
    const baseline: Baseline =
      recorded === undefined
        ? await ruleSetBaseline(baselineSpec, io)
        : await recordedBaseline(o, connect(), recorded.version, scope, io);
    let candidate: RuleSet | undefined;
    if (o.candidate !== undefined) candidate = await loadRuleSet(o.candidate, io.cwd);
    else if (baseline.recorded) {
      candidate = ruleSetByName(baseline.rulesVersion);
      if (candidate === undefined)
        throw new UsageError(
          `the recorded decisions are of ${baseline.rulesVersion}, which is not a shipped rule set: name the rules that made them with --candidate PATH`,
        );
    }
    const policy = await policyFrom(o, o.kafka === true || recorded !== undefined, connect, io);
    const ruleSets = [...(baseline.ruleSet ? [baseline.ruleSet] : []), ...(candidate ? [candidate] : [])];
    if (shards > 1) {
      const module = ruleSets.find((r) => ruleSetByName(r.rulesVersion) !== r);
      // A module may derive capabilities from any observation: the shards' tables could part from the one-shard table.
      if (module !== undefined)
        throw new UsageError(
          `--shards ${shards} needs shipped rule sets: ${module.name} (${module.rulesVersion}) is a rules module; replay it with --shards 1`,
        );
    }
    const sourceOptions = {
      input: o.input,
      kafka: o.kafka,
      topic: o.topic,
      format: o.format,
      recordedOrder: o.kafka && o.order !== "event-time",
    };
    let opened = await openSource(sourceOptions, io, connect);
    if (opened.order.kind === "event-time" && opened.order.reason !== null)
      io.stderr(
        `a2a-ledger replay: partitions merged by event time, not in the order the reconciler read them: ${opened.order.reason}\n`,
      );
    const single = shards === 1 ? ruleSets.map((r) => new RuleSetRun(r, policy, scope, undefined, retention)) : [];
    // A partial replay on one shard reads the source twice: a first pass names the correlations in scope
    // and the shared ones, the second folds those whole (replay-run.ts), so its decisions in scope are
    // the whole-log replay's.
    const exact = shards === 1 && isPartial(scope);
    let counts = exact ? await countPass(opened.source, scope, io) : undefined;
    if (exact) opened = await openSource(sourceOptions, io, connect);
    const whole = counts === undefined ? undefined : new Set([...counts.scoped, ...counts.shared]);
    const bar = progressBar(io, "replay", opened.source.unit);
    try {
      // Sharded: this pass only counts and names the shared correlations (the bar shows it); the shards fold.
      counts = await runReplay(
        opened.source,
        single,
        scope,
        (p) => bar.update(p.done, p.total, p.observations),
        undefined,
        whole,
      );
    } finally {
      bar.stop();
    }
    const runs: readonly (RuleSetRun | MergedRun)[] =
      shards === 1
        ? single
        : await runSharded(
            {
              source: sourceOptions,
              cwd: io.cwd,
              rulesVersions: ruleSets.map((r) => r.rulesVersion),
              policy,
              scope,
              ...(retention === undefined ? {} : { retention }),
            },
            ruleSets,
            shards,
            counts.shared,
            counts.read,
            undefined,
            isPartial(scope) ? counts.scoped : undefined,
          );
    if (opened.skipped.length > 0 && !comparing)
      io.stderr(
        `a2a-ledger replay: ${opened.skipped.length} record(s) of ${opened.source.label} are not observations and were skipped, as the reconciler dead-letters them (first: ${opened.skipped[0]?.where}: ${opened.skipped[0]?.reason})\n`,
      );

    if (!comparing) {
      const only = runs[0] as RuleSetRun | MergedRun;
      printDecisions(io, only.decisions, o.json);
      // stdout stays the decisions alone; the rejections go to stderr, as one JSON line with --json.
      const rejected = rejectionSummary(only.rulesVersion, only.rejected);
      if (rejected.count > 0)
        io.stderr(
          o.json
            ? `${JSON.stringify({ rejected })}\n`
            : rejectionLines(rejected)
                .map((l) => `a2a-ledger replay: ${l}\n`)
                .join(""),
        );
      if (!o.json)
        io.stderr(
          `${counts.events} observations, ${only.decisions.length} decisions${rejected.count > 0 ? `, ${rejected.count} rejected` : ""} (rules ${only.rulesVersion})\n`,
        );
      return exitCodes.ok;
    }
    const candidateRun = runs[runs.length - 1] as RuleSetRun | MergedRun;
    const report: ReplayReport = buildReport({
      source: opened.source.label,
      scope,
      events: counts.events,
      correlations: counts.correlations,
      baseline: {
        label: baseline.label,
        rulesVersion: baseline.rulesVersion,
        recorded: baseline.recorded,
        decisions: baseline.decisions ?? (runs[0] as RuleSetRun | MergedRun).decisions,
      },
      candidate: {
        label:
          candidateRun.ruleSet.name === candidateRun.rulesVersion
            ? candidateRun.rulesVersion
            : `${candidateRun.ruleSet.name} (${candidateRun.rulesVersion})`,
        rulesVersion: candidateRun.rulesVersion,
        decisions:
          baseline.decisions === undefined
            ? candidateRun.decisions
            : withRecordedPolicyVersions(baseline.decisions, candidateRun.decisions),
      },
      startedBefore: counts.startedBefore,
      skipped: opened.skipped,
      order: opened.order,
      rejected: {
        baseline: baseline.recorded
          ? null
          : rejectionSummary(
              (runs[0] as RuleSetRun | MergedRun).rulesVersion,
              (runs[0] as RuleSetRun | MergedRun).rejected,
            ),
        candidate: rejectionSummary(candidateRun.rulesVersion, candidateRun.rejected),
      },
    });
    if (o.report !== undefined) await writeReport(resolve(io.cwd, o.report), renderHtml(report));
    if (o.json) {
      io.stdout(
        report.diffs.map((d) => `${JSON.stringify(d)}\n`).join("") + `${JSON.stringify({ summary: report.summary })}\n`,
      );
    } else {
      io.stdout(renderTerminal(report, io.color === true));
    }
    return report.diffs.length > 0 && o["fail-on-diff"] ? exitCodes.checkFailed : exitCodes.ok;
  } catch (e) {
    throw asCliError(e);
  }
}

async function ruleSetBaseline(spec: string, io: Io): Promise<Baseline> {
  const ruleSet = await loadRuleSet(spec, io.cwd);
  return {
    label: ruleSet.name === ruleSet.rulesVersion ? ruleSet.rulesVersion : `${ruleSet.name} (${ruleSet.rulesVersion})`,
    rulesVersion: ruleSet.rulesVersion,
    recorded: false,
    ruleSet,
  };
}

/** Errors the user can act on, as the CLI reports them (exit 2 or 3); anything else stays a crash. */
export function asCliError(e: unknown): unknown {
  if (e instanceof InputError) return new UsageError(`malformed input: ${e.message}`);
  if (e instanceof RulesError) return new UsageError(e.message);
  if (e instanceof TopicUnavailableError)
    return new UnavailableError(`${e.message} (brokers ${endpointsFromEnv().brokers})`);
  const refused = accessFailureOf(e, { client: processClientConfig() });
  if (refused !== undefined) return new UnavailableError(refused.message);
  const name = (e as { name?: unknown } | null)?.name;
  if (typeof name === "string" && name.startsWith("KafkaJS"))
    return new UnavailableError(`Kafka cannot be reached: ${(e as Error).message}`);
  return e;
}

/** The first pass of a partial replay or export: counts, and names the correlations in scope and the shared ones. */
export async function countPass(source: ObservationSource, scope: ReplayScope, io: Io): Promise<ReplayCounts> {
  const bar = progressBar(io, "scope", source.unit);
  try {
    return await runReplay(source, [], scope, (p) => bar.update(p.done, p.total, p.observations));
  } finally {
    bar.stop();
  }
}

export const command: Command = {
  name: "replay",
  summary: "replay observations (a file or the topic) through rule sets; compare per correlation",
  usage,
  run,
};
