/**
 * The group lifecycle of the reconciler's partitions: which partitions this instance holds, the
 * transactional producer of each (its id fences a zombie that lost the partition: kafkajs sends no
 * group generation with the offsets), and one piece of work per partition at a time.
 */
import type { Kafka, Producer } from "@a2a-ledger/kafka";
import type { Logger } from "@a2a-ledger/logging";
import type { RetryOptions } from "kafkajs";
import type { ReconcilerConfig } from "./config.ts";
import { RejoinGroupError, withinDeadline } from "./errors.ts";

/**
 * Retry settings of the transactional producers (merged over the client's). Right after a commit the
 * coordinator answers the next transaction's AddPartitionsToTxn with CONCURRENT_TRANSACTIONS until
 * its commit markers are written, a few milliseconds; kafkajs retries that with its general backoff,
 * which starts at 300 ms. Starting at 10 ms with ten attempts keeps about the same total patience (some 10 s).
 */
export const transactionalProducerRetry: RetryOptions = { initialRetryTime: 10, retries: 10, maxRetryTime: 30_000 };

export class GroupMembership {
  /** One transactional producer per input partition, created once even when batches race for it. */
  readonly producers = new Map<number, Promise<Producer>>();
  assigned = new Set<number>();
  /** Moves on every rebalance and assignment: work begun in an older one must not produce. */
  membership = 0;
  /** Whether a producer may be initialised: only after an assignment, until a rebalance or a failed transaction. */
  mayInitialise = false;
  /** One piece of work per partition at a time: a batch, or a re-examination. */
  readonly locks = new Map<number, Promise<unknown>>();

  /** `settled` is told when a partition's piece of work has finished, before the next one begins. */
  constructor(
    private readonly kafka: Kafka,
    private readonly config: ReconcilerConfig,
    private readonly log: Logger,
    private readonly settled: (partition: number) => void,
  ) {}

  /**
   * A rebalance takes every partition away until the next assignment (kafkajs rebalances eagerly):
   * from this moment another instance may own them, and an idle re-examination must not fence it.
   */
  onRebalancing(): void {
    this.membership++;
    this.mayInitialise = false;
    this.assigned = new Set();
  }

  /**
   * A new assignment: every partition's producer is initialised again (which fences any other instance
   * that held it meanwhile). States are handed to `assigned` (the store): those of partitions revoked
   * are dropped; those of partitions kept are kept, and checked before their next use — a partition this
   * instance keeps may still have had another owner in between (after this instance was thrown out of
   * the group without noticing, for one), whose commits the changelog shows.
   */
  onAssignment(partitions: number[], assigned: (partitions: ReadonlySet<number>) => void): void {
    const now = new Set(partitions);
    for (const [partition, producer] of this.producers) {
      this.producers.delete(partition);
      // After the partition's work in hand, which may still commit with it (or be fenced).
      void this.exclusive(partition, async () => (await producer).disconnect()).catch(() => undefined);
    }
    assigned(now);
    this.assigned = now;
    this.membership++;
    this.mayInitialise = true;
    this.log.info({ partitions: [...now].sort((a, b) => a - b) }, "partitions assigned");
  }

  producerFor(partition: number): Promise<Producer> {
    let producer = this.producers.get(partition);
    if (producer === undefined) {
      if (!this.mayInitialise || !this.assigned.has(partition))
        return Promise.reject(
          new RejoinGroupError(`partition ${partition} has no producer and its assignment is not fresh`),
        );
      const { groupId, topics } = this.config;
      const created = this.kafka.producer({
        transactionalId: `${groupId}.${topics.observations}.${partition}`,
        idempotent: true,
        maxInFlightRequests: 1,
        retry: transactionalProducerRetry,
      });
      // kafkajs's connect() initialises only an idempotent producer id; the transactional id is initialised
      // (InitProducerId: a zombie's open transaction aborted, or its commit in flight completed, and its
      // epoch fenced) at the first transaction(). So one is begun and aborted here, before anything reads
      // the changelog: restored before that, a zombie's commit landing in between would be missing from
      // the state and its batch decided a second time. (Aborting a transaction that holds nothing sends nothing.)
      const fenced = async (): Promise<void> => {
        await created.connect();
        await (await created.transaction()).abort();
      };
      producer = withinDeadline(fenced(), "producer initialisation", this.config.transactionStepTimeoutMs).then(
        () => created,
        (error: unknown) => {
          void created.disconnect().catch(() => undefined);
          throw error;
        },
      );
      producer.catch(() => this.producers.delete(partition));
      this.producers.set(partition, producer);
    }
    return producer;
  }

  /** Runs `work` for a partition after the work already queued for it. */
  exclusive<T>(partition: number, work: () => Promise<T>): Promise<T> {
    const previous = this.locks.get(partition) ?? Promise.resolve();
    const next = previous
      .catch(() => undefined)
      .then(work)
      .finally(() => this.settled(partition));
    this.locks.set(partition, next);
    void next
      .catch(() => undefined)
      .finally(() => {
        if (this.locks.get(partition) === next) this.locks.delete(partition);
      });
    return next;
  }

  /** After a failed transaction: `producer` is never used again, and none is initialised before a fresh assignment. */
  abandon(partition: number, producer: Promise<Producer>): void {
    if (this.producers.get(partition) === producer) this.producers.delete(partition);
    this.mayInitialise = false;
  }

  /** Waits for the work in hand (a re-examination already in its transaction finishes), then closes every producer. */
  async stop(): Promise<void> {
    await Promise.allSettled([...this.locks.values()]);
    await Promise.all(
      [...this.producers.values()].map((p) => p.then((producer) => producer.disconnect()).catch(() => undefined)),
    );
    this.producers.clear();
  }
}
