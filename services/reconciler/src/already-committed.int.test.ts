/**
 * A batch the previous owner commits after kafkajs fetched the new owner's position (at the assignment)
 * and before the new owner's producer fences it is fetched again by the new owner. The reconciler reads
 * the committed offset again after the fence and skips what lies below it: taken, counted, not folded
 * twice. The previous owner's commit is run exactly there, by the restore's hook, with the partition's
 * own transactional id, as a zombie's would be.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { correlationPartitions, partitionOf } from "@a2a-ledger/kafka";
import type { ReconcilerBatch } from "@a2a-ledger/schemas";
import {
  fixture,
  kafka,
  kafkaSuite,
  parseLines,
  produce,
  quietLog,
  readAll,
  serde,
  waitForGroupAtEnd,
} from "../test/harness.ts";
import { loadReconcilerConfig } from "./config.ts";
import { transactionalProducerRetry } from "./group-membership.ts";
import { Reconciler } from "./reconciler.ts";

const { admin, fixtures, running } = kafkaSuite({ beforeAll, afterAll });

it("skips, after the fence, the records a previous owner committed meanwhile, and folds the rest once", async () => {
  const f = await fixture(admin, "already-committed");
  fixtures.push(f);
  const partition = 0;
  const ids: string[] = [];
  for (let i = 0; ids.length < 10; i++)
    if (partitionOf(`ac-${i}`, correlationPartitions) === partition) ids.push(`ac-${i}`);
  await produce(
    f.topics.observations,
    parseLines(
      ids.map((id, i) =>
        JSON.stringify({
          type: "TaskDispatched",
          eventId: `${id}-d`,
          correlationId: id,
          occurredAt: 1_000 + i,
          observer: "orchestrator",
          workerId: "w1",
          skillId: "summarize",
          messageId: `m-${id}`,
          acceptedOutputModes: ["text/plain"],
        }),
      ),
    ),
  );

  const committedMeanwhile = 4;
  let zombieCommitted = false;
  const reconciler = new Reconciler(loadReconcilerConfig(f.env), quietLog, {
    // The assignment is done and kafkajs has the partitions' positions (none committed: from 0). Before
    // the fence, a previous owner of the partition commits its offsets up to `committedMeanwhile`.
    async beforeFence(partitions) {
      if (zombieCommitted || !partitions.includes(partition)) return;
      zombieCommitted = true;
      const zombie = kafka.producer({
        transactionalId: `${f.groupId}.${f.topics.observations}.${partition}`,
        idempotent: true,
        maxInFlightRequests: 1,
        retry: transactionalProducerRetry,
      });
      await zombie.connect();
      try {
        const tx = await zombie.transaction();
        await tx.sendOffsets({
          consumerGroupId: f.groupId,
          topics: [{ topic: f.topics.observations, partitions: [{ partition, offset: String(committedMeanwhile) }] }],
        });
        await tx.commit();
      } finally {
        await zombie.disconnect();
      }
    },
  });
  running.push(reconciler);
  await reconciler.start();
  await waitForGroupAtEnd(admin, f, 60_000);
  expect(zombieCommitted).toBe(true);

  const skipped = (await reconciler.metrics.alreadyCommitted.get()).values.find(
    (v) => v.labels.partition === String(partition),
  );
  expect(skipped?.value).toBe(committedMeanwhile);
  const batches = await Promise.all(
    (await readAll(f.topics.batches)).map(
      async (r) => (await serde.decode(r.value as Buffer)).record as ReconcilerBatch,
    ),
  );
  const folded = batches.filter((b) => b.partition === partition && b.fromOffset !== null);
  // No batch folded what the previous owner had committed; the rest was folded, each record once.
  expect(Math.min(...folded.map((b) => b.fromOffset as number))).toBe(committedMeanwhile);
  expect(folded.reduce((n, b) => n + ((b.toOffset as number) - (b.fromOffset as number) + 1), 0)).toBe(
    ids.length - committedMeanwhile,
  );
}, 120_000);
