/**
 * Reads a whole topic from the beginning (read_committed) with a throwaway consumer group, and knows
 * when it has caught up with the end of every partition. The capability table follows its topic this
 * way for as long as the service runs; a changelog restore reads up to the end once and stops.
 */
import { randomUUID } from "node:crypto";
import { type Admin, type Consumer, endOffsets, type Kafka, type KafkaMessage } from "@a2a-ledger/kafka";

export type RecordHandler = (partition: number, message: KafkaMessage) => Promise<void> | void;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export { endOffsets } from "@a2a-ledger/kafka";

export class TopicReader {
  private readonly consumer: Consumer;
  /** Next offset to read, per partition, after everything before it was handled. */
  private readonly positions = new Map<number, bigint>();
  private failure: Error | undefined;

  constructor(private readonly kafka: Kafka, private readonly admin: Admin, readonly topic: string, private readonly onRecord: RecordHandler, groupPrefix: string) {
    this.consumer = kafka.consumer({ groupId: `${groupPrefix}-${randomUUID()}`, readUncommitted: false, maxWaitTimeInMs: 100, allowAutoTopicCreation: false });
  }

  async start(): Promise<void> {
    await this.consumer.connect();
    await this.consumer.subscribe({ topic: this.topic, fromBeginning: true });
    this.consumer.on(this.consumer.events.END_BATCH_PROCESS, ({ payload }) => {
      this.advance(payload.partition, BigInt(payload.lastOffset) + 1n);
    });
    // A crash kafkajs gives up on (e.g. Kafka refused an ACL) ends the wait of caughtUp with its error.
    this.consumer.on(this.consumer.events.CRASH, ({ payload }) => {
      if (!payload.restart) this.failure ??= payload.error;
    });
    await this.consumer.run({
      autoCommit: false,
      eachBatch: async ({ batch }) => {
        try {
          for (const message of batch.messages) {
            await this.onRecord(batch.partition, message);
            this.advance(batch.partition, BigInt(message.offset) + 1n);
          }
        } catch (error) {
          this.failure = error as Error;
          throw error;
        }
      },
    });
  }

  private advance(partition: number, next: bigint): void {
    if (next > (this.positions.get(partition) ?? 0n)) this.positions.set(partition, next);
  }

  /** Resolves, with those offsets, once every partition was read up to the end offsets it had when called. */
  async caughtUp(timeoutMs = 30_000, partitions?: ReadonlySet<number>): Promise<Record<number, string>> {
    const deadline = Date.now() + timeoutMs;
    const ends = (await endOffsets(this.admin, this.topic, deadline)).filter((p) => partitions === undefined || partitions.has(p.partition));
    for (;;) {
      if (this.failure) throw this.failure;
      const behind = ends.filter((p) => BigInt(p.high) > BigInt(p.low) && (this.positions.get(p.partition) ?? BigInt(p.low)) < BigInt(p.high));
      if (behind.length === 0) return Object.fromEntries(ends.map((p) => [p.partition, p.high]));
      if (Date.now() > deadline) {
        throw new Error(`reading ${this.topic} did not reach the end of partitions ${behind.map((p) => p.partition).join(", ")} within ${timeoutMs} ms`);
      }
      await sleep(10);
    }
  }

  async stop(): Promise<void> {
    await this.consumer.disconnect();
  }
}
