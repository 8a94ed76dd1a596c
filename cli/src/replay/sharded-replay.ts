/**
 * A sharded replay (`--shards N`, N > 1): N worker processes, each reading the whole source in the same
 * order and folding the correlations of its shard plus the shared ones (replay-shard.ts) through every
 * rule set; their decisions and rejections are merged by emission key (rule-set-run.ts) into the order
 * the one-shard run emits them. Processes rather than threads: each has its own heap and event loop,
 * and the same entry runs compiled (`dist/replay/shard-worker.js`) or from source under tsx.
 */
import { type ChildProcess, fork } from "node:child_process";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import type { PolicySource, RetentionPolicy, RuleSet } from "@a2a-ledger/core";
import type { Decision } from "@a2a-ledger/schemas";
import { UnavailableError, UsageError } from "../io.ts";
import type { SourceOptions } from "../sources/open-source.ts";
import type { ReplayScope } from "./replay-scope.ts";
import { shardOf } from "./replay-shard.ts";
import type { EmissionKey, Rejection } from "./rule-set-run.ts";

/** What a worker is asked to do. */
export interface ShardTask {
  source: SourceOptions;
  cwd: string;
  /** The shipped rule sets' versions, in the order of the runs. */
  rulesVersions: string[];
  policy: PolicySource;
  scope: ReplayScope;
  /** What chunks without a batch record evict by (replay-retention.ts); none: nothing. */
  retention?: RetentionPolicy;
  /**
   * The shard, the correlations every shard folds whole, and for a partial replay the ones in scope this
   * shard owns: folded whole too, so a partial replay is exact sharded as on one shard (replay-run.ts).
   */
  shard: { index: number; count: number; shared: string[]; scoped?: string[] };
}

export interface ShardRun {
  decisions: Decision[];
  keys: EmissionKey[];
  rejected: Rejection[];
  rejectedKeys: EmissionKey[];
}

/** What a worker answers: its runs, and how many observations it read (every shard reads the whole source). */
export type ShardAnswer =
  | {
      ok: true;
      read: number;
      runs: ShardRun[] /** CPU time of the shard's process, start-up included. */;
      cpuMs: number;
    }
  | { ok: false; kind: "usage" | "unavailable" | "crash"; message: string };

/** One rule set's merged result: what the one-shard `RuleSetRun` holds after the replay. */
export interface MergedRun {
  ruleSet: RuleSet;
  rulesVersion: string;
  decisions: Decision[];
  rejected: Rejection[];
}

export function compareKeys(a: EmissionKey, b: EmissionKey): number {
  for (let i = 0; i < 3; i++) {
    const d = (a[i] as number) - (b[i] as number);
    if (d !== 0) return d;
  }
  return a[3] < b[3] ? -1 : a[3] > b[3] ? 1 : 0;
}

/**
 * The shards' items in one-shard order. Items with equal keys are of one correlation, so of one shard:
 * a stable sort of the shards' lists, each already in its own emission order, keeps theirs.
 */
export function mergeByKey<T>(shards: readonly { items: readonly T[]; keys: readonly EmissionKey[] }[]): T[] {
  const all: { key: EmissionKey; item: T }[] = [];
  for (const s of shards) s.items.forEach((item, i) => all.push({ key: s.keys[i] as EmissionKey, item }));
  return all.sort((x, y) => compareKeys(x.key, y.key)).map((x) => x.item);
}

const here = fileURLToPath(import.meta.url);
const fromSource = here.endsWith(".ts");

/** The worker entry beside this module, and what node needs to run it (tsx and the source condition when run from source). */
function workerEntry(): { path: string; execArgv: string[] } {
  const path = join(dirname(here), fromSource ? "shard-worker.ts" : "shard-worker.js");
  if (!fromSource) return { path, execArgv: [] };
  const tsx = join(dirname(createRequire(import.meta.url).resolve("tsx/package.json")), "dist", "loader.mjs");
  return { path, execArgv: ["--conditions=development", "--import", pathToFileURL(tsx).href] };
}

function runShard(task: ShardTask, children: ChildProcess[]): Promise<ShardAnswer> {
  const { path, execArgv } = workerEntry();
  return new Promise((resolve, reject) => {
    const child = fork(path, [], { execArgv, serialization: "advanced", stdio: ["ignore", "ignore", "pipe", "ipc"] });
    children.push(child);
    let stderr = "";
    let answer: ShardAnswer | undefined;
    child.stderr?.on("data", (b: Buffer) => void (stderr += b.toString()));
    child.on("message", (m) => void (answer = m as ShardAnswer));
    child.on("error", reject);
    child.on("exit", (code, signal) => {
      if (answer !== undefined) resolve(answer);
      else
        reject(
          new Error(
            `replay shard ${task.shard.index} of ${task.shard.count} ended without an answer (${signal ?? `exit code ${code}`})${stderr === "" ? "" : `: ${stderr.trim()}`}`,
          ),
        );
    });
    child.send(task);
  });
}

/** Runs the shards side by side and merges their runs; `read` is what the caller's own pass read. */
export async function runSharded(
  task: Omit<ShardTask, "shard">,
  ruleSets: readonly RuleSet[],
  count: number,
  shared: ReadonlySet<string>,
  read: number,
  onShard?: (s: { index: number; cpuMs: number }) => void,
  scoped?: ReadonlySet<string>,
): Promise<MergedRun[]> {
  const sharedIds = [...shared];
  const scopedOf = (index: number) =>
    scoped === undefined ? {} : { scoped: [...scoped].filter((id) => shardOf(id, count) === index) };
  const children: ChildProcess[] = [];
  // The first shard that fails ends the replay with its error; the others are stopped, not left to finish unread.
  let failure: unknown;
  const fail = (e: unknown) => {
    failure ??= e;
    for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill();
  };
  const answers = await Promise.all(
    Array.from({ length: count }, (_, index) =>
      runShard({ ...task, shard: { index, count, shared: sharedIds, ...scopedOf(index) } }, children).then(
        (a) => {
          if (!a.ok)
            fail(
              a.kind === "usage"
                ? new UsageError(a.message)
                : a.kind === "unavailable"
                  ? new UnavailableError(a.message)
                  : new Error(a.message),
            );
          return a;
        },
        (e: unknown) => {
          fail(e);
          return undefined;
        },
      ),
    ),
  );
  if (failure !== undefined) throw failure;
  const runs: ShardRun[][] = [];
  for (const a of answers) {
    if (a === undefined || !a.ok) throw new Error("a replay shard gave no answer");
    if (a.read !== read)
      throw new UsageError(
        `the source changed during the replay: one pass read ${read} observations, a shard ${a.read} (a topic still written to: replay with --shards 1)`,
      );
    onShard?.({ index: runs.length, cpuMs: a.cpuMs });
    runs.push(a.runs);
  }
  return ruleSets.map((ruleSet, r) => {
    const of = runs.map((shardRuns) => shardRuns[r] as ShardRun);
    return {
      ruleSet,
      rulesVersion: ruleSet.rulesVersion,
      decisions: mergeByKey(of.map((s) => ({ items: s.decisions, keys: s.keys }))),
      rejected: mergeByKey(of.map((s) => ({ items: s.rejected, keys: s.rejectedKeys }))),
    };
  });
}
