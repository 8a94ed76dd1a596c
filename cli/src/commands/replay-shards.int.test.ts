/**
 * `replay --kafka --shards N` prints what `--shards 1` prints, byte for byte, from the topic a real
 * reconciler read, in its recorded order.
 */
import { generateLog } from "@a2a-ledger/core/testing";
import type { Admin } from "@a2a-ledger/kafka";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { byShards, expectSame } from "../../test/by-shards.ts";
import {
  createStack,
  deleteStack,
  kafka,
  produce,
  serde,
  type Stack,
  startReconciler,
  stopReconciler,
  waitForReconciler,
} from "../../test/ledger-stack.ts";
import { parseLines } from "../../test/observations.ts";

const savedEnv = { ...process.env };
process.env["A2A_LEDGER_TRUSTED_VENDORS"] = "";

afterAll(() => {
  process.env = { ...savedEnv };
});

describe("replay --kafka --shards N", () => {
  let admin: Admin;
  let stack: Stack;
  const log = parseLines(generateLog(3_000));

  beforeAll(async () => {
    admin = kafka.admin();
    await admin.connect();
    await serde.registerAll();
    stack = await createStack(admin, "cli-shards");
    await startReconciler(stack);
    const half = Math.floor(log.length / 2);
    await produce(stack.topics.observations, log.slice(0, half));
    await waitForReconciler(admin, stack);
    await produce(stack.topics.observations, log.slice(half));
    await waitForReconciler(admin, stack);
    // The record is frozen before the runs: an idle reconciler may still commit a re-examination (a
    // blocked correlation rescued by a snapshot it read late), which would change it between two runs.
    await stopReconciler(stack);
    process.env["A2A_LEDGER_TOPIC_SUFFIX"] = stack.suffix;
  }, 300_000);

  afterAll(async () => {
    if (stack) await deleteStack(admin, stack);
    await admin?.disconnect();
  });

  it("prints the comparison with the recorded decisions, in the recorded order, as one shard does", async () => {
    const results = await byShards([
      "--kafka",
      "--baseline",
      "recorded",
      "--candidate",
      "restart-from-scratch",
      "--json",
    ]);
    expectSame(results);
    const summary = (
      JSON.parse(results[0]?.stdout.trim().split("\n").at(-1) as string) as {
        summary: { events: number; order: { kind: string } };
      }
    ).summary;
    expect(summary).toMatchObject({ events: log.length, order: { kind: "recorded" } });
    // And the decisions of default/2 themselves, folded batch by batch.
    expectSame(await byShards(["--kafka", "--rules", "default/2", "--json"]));
  }, 600_000);
});
