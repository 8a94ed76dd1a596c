/**
 * `replay --shards N` against `--shards 1`: the runs, and the check that every count printed the same,
 * byte for byte.
 */
import { expect } from "vitest";
import { run } from "./run.ts";

export type ShardRun = { shards: number; code: number; stdout: string; stderr: string };

/** Runs the replay with each shard count; the outputs of 2 and 3 shards must be the one of 1. */
export async function byShards(args: string[], counts = [1, 2, 3]): Promise<ShardRun[]> {
  const out = [];
  for (const shards of counts) out.push({ shards, ...(await run(["replay", ...args, "--shards", String(shards)])) });
  return out;
}

/** `atLeast`: the one-shard output is that long (the comparison is not of two empty outputs). */
export function expectSame(results: ShardRun[], atLeast = 1_000): void {
  const [one, ...others] = results;
  expect(one?.code).toBe(0);
  expect(one?.stdout.length).toBeGreaterThan(atLeast);
  for (const r of others) {
    expect({ shards: r.shards, code: r.code, stderr: r.stderr }).toEqual({
      shards: r.shards,
      code: one?.code,
      stderr: one?.stderr,
    });
    // toBe on the whole text: byte equality, and vitest shows the first line that differs.
    expect(r.stdout, `--shards ${r.shards}`).toBe(one?.stdout);
  }
}
