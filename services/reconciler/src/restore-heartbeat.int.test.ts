/**
 * A changelog restore longer than the session timeout keeps the group membership: the instance goes on
 * heartbeating while it reads, so it is not thrown out of the group (and its partitions handed round
 * again) in the middle of restoring them.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CapabilityTable, createDecider, defaultRuleSet, foldBatch } from "@a2a-ledger/core";
import { correlationPartitions, partitionOf } from "@a2a-ledger/kafka";
import { stopChild } from "@a2a-ledger/env/testing";
import {
  fixture,
  kafka,
  kafkaSuite,
  logLines,
  parseLines,
  produce,
  startChildService,
  waitForGroupAtEnd,
} from "../test/harness.ts";

const { admin, fixtures } = kafkaSuite({ beforeAll, afterAll });

/** One real correlation state, serialized as the reconciler writes it. */
function stateBytes(): Buffer {
  const decider = createDecider(defaultRuleSet);
  const log = parseLines([
    JSON.stringify({
      type: "TaskDispatched",
      eventId: "e1",
      correlationId: "c",
      occurredAt: 1_000,
      observer: "orchestrator",
      workerId: "w",
      skillId: "s",
      messageId: "m",
      acceptedOutputModes: ["text/plain"],
    }),
    JSON.stringify({
      type: "TaskStateObserved",
      eventId: "e2",
      correlationId: "c",
      occurredAt: 1_001,
      observer: "proxy",
      workerId: "w",
      serverTaskId: "t",
      state: "TASK_STATE_WORKING",
      via: "get",
    }),
  ]);
  const folded = foldBatch(
    { decider, policy: { trustedVendors: [] }, capabilities: new CapabilityTable(), stateOf: () => undefined },
    log,
  );
  return Buffer.from(decider.serialize(folded.states.get("c") as never));
}

/** Prefills a fresh fixture's changelog with `perPartition` states per partition, then runs one reconciler until it is at the end. */
async function restoreRun(perPartition: number) {
  // The changelog is sized to outlast the session timeout on this machine, not to the memory budget: a
  // budget below it would (rightly) hold the new correlations that end the run.
  const f = await fixture(admin, "restore-heartbeat", { A2A_LEDGER_RECONCILER_MAX_CORRELATIONS: "100000000" });
  fixtures.push(f);
  const value = stateBytes();
  const producer = kafka.producer({ idempotent: true });
  await producer.connect();
  const started = Date.now();
  for (let p = 0; p < correlationPartitions; p++) {
    for (let i = 0; i < perPartition; i += 5_000) {
      const messages = Array.from({ length: Math.min(5_000, perPartition - i) }, (_, k) => ({
        key: `prefill-${p}-${i + k}`,
        value,
        partition: p,
      }));
      await producer.send({ topic: f.topics.changelog, acks: -1, messages });
    }
  }
  await producer.disconnect();
  console.log(
    `changelog prefilled with ${perPartition * correlationPartitions} records in ${((Date.now() - started) / 1000).toFixed(1)} s`,
  );

  // One observation per partition, so each partition's first batch restores.
  const keys: string[] = [];
  for (let c = 0; keys.length < correlationPartitions && c < 10_000; c++) {
    const key = `after-restore-${c}`;
    if (!keys.some((k) => partitionOf(k, correlationPartitions) === partitionOf(key, correlationPartitions)))
      keys.push(key);
  }
  await produce(
    f.topics.observations,
    parseLines(
      keys.map((k, i) =>
        JSON.stringify({
          type: "TaskDispatched",
          eventId: `ev-${i}`,
          correlationId: k,
          occurredAt: 2_000 + i,
          observer: "orchestrator",
          workerId: "w",
          skillId: "s",
          messageId: `m-${i}`,
          acceptedOutputModes: [],
        }),
      ),
    ),
  );

  const service = await startChildService(f, "restorer");
  try {
    await waitForGroupAtEnd(admin, f, 600_000);
  } finally {
    await stopChild(service.child);
  }
  const output = service.output();
  const time = (e: Record<string, unknown> | undefined) => Date.parse(String(e?.time));
  const restored = logLines(output, "state restored from the changelog");
  const tookMs = time(restored[0]) - time(logLines(output, "restoring state from the changelog")[0]);
  return { output, restored, tookMs, sessionTimeoutMs: Number(f.env.A2A_LEDGER_RECONCILER_SESSION_TIMEOUT_MS) };
}

describe("a changelog restore longer than the session timeout", () => {
  it("keeps the member in the group: one assignment, one restore, the partitions processed after it", {
    timeout: 1_500_000,
  }, async () => {
    // The restore must outlast the session timeout, or the run proves nothing. How fast a restore is
    // depends on the machine: a run that was too quick is repeated with a changelog scaled to outlast
    // the timeout twice over (at most three runs, at most 16 times the records).
    const initial = Number(process.env.RESTORE_TEST_RECORDS ?? 40_000);
    let perPartition = initial;
    let run = await restoreRun(perPartition);
    for (let attempt = 1; attempt < 3 && run.restored.length === 1 && run.tookMs <= run.sessionTimeoutMs; attempt++) {
      perPartition = Math.min(
        16 * initial,
        perPartition * Math.ceil((2 * run.sessionTimeoutMs) / Math.max(run.tookMs, 250)),
      );
      console.log(
        `the restore took ${run.tookMs} ms, not longer than the session timeout; again with ${perPartition} records per partition`,
      );
      run = await restoreRun(perPartition);
    }
    expect(
      run.tookMs,
      `the restore took ${run.tookMs} ms; RESTORE_TEST_RECORDS must make it longer than the session timeout`,
    ).toBeGreaterThan(run.sessionTimeoutMs);
    expect(
      logLines(run.output, "partitions assigned"),
      "assignments: the member was never thrown out of the group",
    ).toHaveLength(1);
    expect(run.restored, "restores").toHaveLength(1);
    expect(run.restored[0]?.correlations).toBe(perPartition * correlationPartitions);
    // Progress per partition: one line each when it is read to its end.
    const partitionLines = logLines(run.output, "partition restored from the changelog");
    expect(
      partitionLines.map((e) => Number(e.partition)).sort((a, b) => a - b),
      "one line per partition",
    ).toEqual(Array.from({ length: correlationPartitions }, (_, p) => p));
    for (const line of partitionLines)
      expect(line).toMatchObject({ records: perPartition, correlations: perPartition, offset: String(perPartition) });
  });
});
