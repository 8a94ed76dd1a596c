/**
 * The entry of one shard's process in a sharded replay (sharded-replay.ts): takes its task from the
 * parent, opens the source itself, folds its shard through the rule sets and answers with their keyed
 * decisions and rejections, or with the error the CLI would report.
 */
import { ruleSetByName, type RuleSet } from "@a2a-ledger/core";
import { asCliError } from "../commands/replay.ts";
import { UnavailableError, UsageError, type Io } from "../io.ts";
import { clusterFromEnv, type Cluster } from "../kafka/cluster.ts";
import { openSource } from "../sources/open-source.ts";
import { runReplay } from "./replay-run.ts";
import { ownedBy } from "./replay-shard.ts";
import { RuleSetRun } from "./rule-set-run.ts";
import type { ShardAnswer, ShardTask } from "./sharded-replay.ts";

async function work(task: ShardTask): Promise<ShardAnswer> {
  const shard = { index: task.shard.index, count: task.shard.count, shared: new Set(task.shard.shared) };
  const io: Io = { stdout: () => {}, stderr: () => {}, cwd: task.cwd };
  let cluster: Cluster | undefined;
  const opened = await openSource(
    task.source,
    io,
    () => (cluster ??= clusterFromEnv(`a2a-ledger-replay-shard-${shard.index}`)),
  );
  const runs = task.rulesVersions.map((version) => {
    const ruleSet = ruleSetByName(version) as RuleSet | undefined;
    if (ruleSet === undefined) throw new UsageError(`${version} is not a shipped rule set`);
    // Shared correlations are folded by every shard; each keeps the decisions of its own only.
    return new RuleSetRun(ruleSet, task.policy, task.scope, (id) => ownedBy(shard, id), task.retention);
  });
  const whole = task.shard.scoped === undefined ? undefined : new Set([...task.shard.shared, ...task.shard.scoped]);
  const counts = await runReplay(opened.source, runs, task.scope, undefined, shard, whole);
  return {
    ok: true,
    read: counts.read,
    runs: runs.map((r) => ({
      decisions: r.decisions,
      keys: r.keys,
      rejected: r.rejected,
      rejectedKeys: r.rejectedKeys,
    })),
    cpuMs: cpuMs(),
  };
}

function cpuMs(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
}

function failure(e: unknown): ShardAnswer {
  const error = asCliError(e);
  const message = error instanceof Error ? error.message : String(error);
  if (error instanceof UsageError) return { ok: false, kind: "usage", message };
  if (error instanceof UnavailableError) return { ok: false, kind: "unavailable", message };
  return { ok: false, kind: "crash", message: error instanceof Error ? (error.stack ?? message) : message };
}

// The replay that started this shard is gone (interrupted, or another shard failed): nobody waits for the answer.
process.once("disconnect", () => process.exit(1));

process.once("message", (task: ShardTask) => {
  work(task)
    .catch(failure)
    .then((answer) => process.send?.(answer, () => process.exit(0)));
});
