/**
 * a2a-ledger replay --input FILE.ndjson [--rules NAME|PATH] [--candidate NAME|PATH]
 *                   [--trusted-vendors a,b] [--json] [--fail-on-diff]
 */
import { parseArgs } from "node:util";
import { resolve } from "node:path";
import type { Decision } from "@a2a-ledger/schemas";
import { replay, type RuleSet } from "@a2a-ledger/core";
import type { Command } from "../command.ts";
import { diffDecisions } from "../decision-diff.ts";
import { describeDecision } from "../describe-decision.ts";
import { exitCodes, UsageError, type Io } from "../io.ts";
import { InputError, readObservations } from "../ndjson.ts";
import { loadRuleSet } from "../rules-loader.ts";

const usage = `usage: a2a-ledger replay --input FILE.ndjson [--rules NAME|PATH] [--candidate NAME|PATH]
                         [--trusted-vendors a,b] [--json] [--fail-on-diff]
  --input            observations in the ingest JSON shape, one per line
  --rules            baseline rule set: default, restart-from-scratch, or a module path (default: default)
  --candidate        a second rule set; prints the per-correlation differences
  --trusted-vendors  provider.organization values to trust (with a durable task store claim)
  --json             decisions (or differences) as JSON lines
  --fail-on-diff     exit 1 when the candidate decides differently
exit codes: 0 ok, 1 differences with --fail-on-diff, 2 bad usage or a malformed input line`;

function options(args: string[]) {
  try {
    return parseArgs({
      args,
      strict: true,
      allowPositionals: false,
      options: {
        input: { type: "string" },
        rules: { type: "string", default: "default" },
        candidate: { type: "string" },
        "trusted-vendors": { type: "string", default: "" },
        json: { type: "boolean", default: false },
        "fail-on-diff": { type: "boolean", default: false },
        help: { type: "boolean", default: false },
      },
    }).values;
  } catch (e) {
    throw new UsageError(`${(e as Error).message}\n${usage}`);
  }
}

function printDecisions(io: Io, decisions: readonly Decision[], json: boolean): void {
  if (json) {
    io.stdout(decisions.map((d) => `${JSON.stringify(d)}\n`).join(""));
    return;
  }
  let current: string | null = null;
  const lines: string[] = [];
  const byCorrelation = [...decisions].sort((a, b) => (a.correlationId < b.correlationId ? -1 : a.correlationId > b.correlationId ? 1 : 0));
  for (const d of byCorrelation) {
    if (d.correlationId !== current) {
      current = d.correlationId;
      lines.push(current);
    }
    lines.push(`  ${describeDecision(d)}`);
  }
  io.stdout(lines.length === 0 ? "" : `${lines.join("\n")}\n`);
}

async function run(args: string[], io: Io): Promise<number> {
  const o = options(args);
  if (o.help) {
    io.stdout(`${usage}\n`);
    return exitCodes.ok;
  }
  if (o.input === undefined) throw new UsageError(`--input is required\n${usage}`);
  if (o["fail-on-diff"] && o.candidate === undefined) throw new UsageError("--fail-on-diff needs --candidate");
  const baseline: RuleSet = await loadRuleSet(o.rules, io.cwd);
  const candidate: RuleSet | undefined = o.candidate === undefined ? undefined : await loadRuleSet(o.candidate, io.cwd);
  const policy = { trustedVendors: o["trusted-vendors"].split(",").map((v) => v.trim()).filter((v) => v !== "") };

  let observations;
  try {
    observations = await readObservations(resolve(io.cwd, o.input), o.input);
  } catch (e) {
    if (e instanceof InputError) throw new UsageError(`malformed input: ${e.message}`);
    if ((e as NodeJS.ErrnoException).code === "ENOENT") throw new UsageError(`no such file: ${o.input}`);
    throw e;
  }

  const decisions = replay(observations, baseline, { policy });
  if (candidate === undefined) {
    printDecisions(io, decisions, o.json);
    if (!o.json) io.stderr(`${observations.length} observations, ${decisions.length} decisions (rules ${baseline.rulesVersion})\n`);
    return exitCodes.ok;
  }

  const diffs = diffDecisions(decisions, replay(observations, candidate, { policy }));
  if (o.json) {
    io.stdout(diffs.map((d) => `${JSON.stringify(d)}\n`).join(""));
  } else {
    const lines = [`baseline ${baseline.rulesVersion} vs candidate ${candidate.rulesVersion}: ${diffs.length} correlation(s) differ`];
    for (const d of diffs) {
      lines.push(d.correlationId);
      for (const r of d.removed) lines.push(`  - ${describeDecision(r)}`);
      for (const a of d.added) lines.push(`  + ${describeDecision(a)}`);
    }
    io.stdout(`${lines.join("\n")}\n`);
  }
  return diffs.length > 0 && o["fail-on-diff"] ? exitCodes.checkFailed : exitCodes.ok;
}

export const command: Command = {
  name: "replay",
  summary: "replay observations (NDJSON) through the rules and print the decisions",
  usage,
  run,
};
