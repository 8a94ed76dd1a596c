/**
 * Which correlations a shard of a sharded replay (`--shards N`) owns: shard k of N owns those whose
 * bucket (`partitionOf(correlationId, 6)`, the partitioner's murmur2 hash over six buckets) is k modulo
 * N. The buckets are the shards' own, not the topic's partitions: every shard reads the whole source,
 * so the cut holds whatever partition count the topics were created with, and a file is cut the same
 * way. Every shard also folds the
 * shared correlations whole: those that carry a card fetch, a probe or a TaskNotFound (the ones whose
 * steps can change the capability table, under every shipped rule set), so that each shard's table is
 * the one-shard table; it keeps only the decisions and rejections of the correlations it owns.
 */
import { partitionOf } from "@a2a-ledger/kafka";
import type { Observation } from "@a2a-ledger/schemas";
import { UsageError } from "../io.ts";

/** The hash buckets correlations are cut into; more shards than buckets would leave some with nothing of their own. */
export const maxShards = 6;

export interface ReplayShard {
  index: number;
  count: number;
  /** Correlations every shard folds whole (see `sharesCapabilities`). */
  shared: ReadonlySet<string>;
}

export const shardOf = (correlationId: string, count: number): number => partitionOf(correlationId, maxShards) % count;

export const ownedBy = (shard: ReplayShard, correlationId: string): boolean =>
  shardOf(correlationId, shard.count) === shard.index;

/** Whether the observation makes its correlation one that every shard folds whole. */
export function sharesCapabilities(o: Observation): boolean {
  return o.type === "AgentCardObserved" || o.type === "ProbeCompleted" || o.type === "TaskNotFoundObserved";
}

/** `--shards N`: a whole number from 1 to `maxShards`. */
export function shardsFromOption(raw: string | undefined): number {
  if (raw === undefined) return 1;
  const n = /^\s*\d+\s*$/.test(raw) ? Number(raw) : Number.NaN;
  if (!Number.isSafeInteger(n) || n < 1 || n > maxShards)
    throw new UsageError(
      `--shards ${JSON.stringify(raw)}: expected a whole number from 1 to ${maxShards} (the hash buckets a shard is made of)`,
    );
  return n;
}
