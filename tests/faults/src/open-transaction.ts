/**
 * The moment a transaction is open: a read_uncommitted consumer of the reconcilers' outputs receives
 * records written less than a moment ago, before (in the usual case) their commit marker. A fault
 * injected then lands inside that transaction.
 */
import { randomUUID } from "node:crypto";
import { createKafka, logLevel } from "@a2a-ledger/kafka";

export interface OpenTransaction {
  topic: string;
  partition: number;
  offset: string;
  ageMs: number;
}

export async function whenTransactionOpen(
  brokers: string,
  topics: readonly string[],
  timeoutMs = 60_000,
  freshMs = 50,
): Promise<OpenTransaction> {
  const consumer = createKafka({ brokers, clientId: "fault-open-tx", logLevel: logLevel.NOTHING }).consumer({
    groupId: `fault-open-tx-${randomUUID()}`,
    readUncommitted: true,
    maxWaitTimeInMs: 20,
  });
  await consumer.connect();
  try {
    for (const topic of topics) await consumer.subscribe({ topic, fromBeginning: false });
    return await new Promise<OpenTransaction>((resolve, reject) => {
      const timer = setTimeout(
        () =>
          reject(new Error(`no freshly written transactional record on ${topics.join(", ")} within ${timeoutMs} ms`)),
        timeoutMs,
      );
      void consumer.run({
        eachBatch: async ({ batch }) => {
          const last = batch.messages[batch.messages.length - 1];
          if (last === undefined) return;
          const ageMs = Date.now() - Number(last.timestamp);
          if (ageMs <= freshMs) {
            clearTimeout(timer);
            resolve({ topic: batch.topic, partition: batch.partition, offset: last.offset, ageMs });
          }
        },
      });
    });
  } finally {
    void consumer.disconnect().catch(() => undefined);
  }
}
