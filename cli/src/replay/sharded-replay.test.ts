import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { defaultRuleSet } from "@a2a-ledger/core";
import { describe, expect, it } from "vitest";
import { exampleFile } from "../../test/observations.ts";
import { UsageError } from "../io.ts";
import { wholeLog } from "./replay-scope.ts";
import type { EmissionKey } from "./rule-set-run.ts";
import { mergeByKey, runSharded } from "./sharded-replay.ts";

const task = (input: string) => ({
  source: { input, kafka: false, topic: undefined, format: undefined },
  cwd: process.cwd(),
  rulesVersions: [defaultRuleSet.rulesVersion],
  policy: { trustedVendors: [] },
  scope: wholeLog,
});

describe("merging the shards", () => {
  it("orders by chunk, position, step before sweep, then the sweep's correlation order, keeping each shard's order on equal keys", () => {
    // Given two shards' items with their keys, each list in its own emission order
    const a = {
      items: ["a1", "a2", "a3", "a4"],
      keys: [
        [0, 3, 0, ""],
        [0, 3, 0, ""],
        [0, 5, 1, "task-b"],
        [1, -1, 1, "task-a"],
      ] as EmissionKey[],
    };
    const b = {
      items: ["b1", "b2", "b3"],
      keys: [
        [0, 1, 0, ""],
        [0, 5, 1, "task-a"],
        [0, 5, 0, ""],
      ] as EmissionKey[],
    };
    // When merged, then the one-shard order
    expect(mergeByKey([a, b])).toEqual(["b1", "a1", "a2", "b3", "b2", "a3", "a4"]);
  });
});

describe("a shard that fails, or", () => {
  it("ends the replay with its error (exit 2 for a file that is not there)", async () => {
    const missing = join(mkdtempSync(join(tmpdir(), "a2a-ledger-shard-")), "gone.ndjson");
    const error = await runSharded(task(missing), [defaultRuleSet], 2, new Set(), 0).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UsageError);
    expect((error as Error).message).toBe(`no such file: ${missing}`);
  }, 60_000);

  it("that read another number of observations than the counting pass stops the replay (a topic still written to)", async () => {
    await expect(runSharded(task(exampleFile), [defaultRuleSet], 2, new Set(), 1_000_000)).rejects.toThrow(
      /the source changed during the replay: one pass read 1000000 observations, a shard \d+/,
    );
  }, 60_000);
});
