/**
 * The one way to read a topic to its end: a throwaway consumer group (never committed) reads every
 * partition read_committed and knows how far each was read. kafkajs reads partitions only inside a
 * group, and it hands over records, not positions: offsets without a record (transaction markers,
 * aborted records, what compaction removed) are accounted for through the end of each fetched batch,
 * so a partition whose last offsets are such gaps still counts as read to its end.
 *
 * A reader follows its topic for as long as it runs (the reconciler's capability table);
 * `caughtUp` resolves once every partition was read up to the end offsets it had when called (a
 * changelog restore, a bounded read). `from: "end"` starts at the topic's current end instead (a
 * feed of what happens from now on).
 */
import { randomUUID } from "node:crypto";
import type { Admin, Consumer, Kafka, KafkaMessage } from "kafkajs";
import { endOffsets } from "./end-offsets.ts";

export type RecordHandler = (partition: number, message: KafkaMessage) => Promise<void> | void;

export interface TopicReaderOptions {
  /** Where to start: the beginning (default) or the end offsets when `start` is called. */
  from?: "beginning" | "end";
  /** Partitions handled at once (kafkajs's partitionsConsumedConcurrently); one by default. */
  concurrency?: number;
  /**
   * What a crash that kafkajs restarts after does: `restart` (default) reads on; `fail` ends the read
   * with it, as a bounded read that should report the cause at once wants.
   */
  crash?: "restart" | "fail";
  /** Called whenever a partition's position moves (a record handled, a batch's gap passed) or the read fails. */
  onProgress?: () => void;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export class TopicReader {
  private readonly consumer: Consumer;
  /** Next offset to read, per partition, after everything before it was handled. */
  private readonly positions = new Map<number, bigint>();
  private failure: Error | undefined;
  /** The throwaway group's id (for messages about access to it). */
  readonly groupId: string;

  constructor(kafka: Kafka, private readonly admin: Admin, readonly topic: string, private readonly onRecord: RecordHandler, groupPrefix: string, private readonly options: TopicReaderOptions = {}) {
    this.groupId = `${groupPrefix}-${randomUUID()}`;
    this.consumer = kafka.consumer({ groupId: this.groupId, readUncommitted: false, maxWaitTimeInMs: 100, allowAutoTopicCreation: false });
  }

  /** Why the read stopped for good (kafkajs gave up, or the handler threw), if it did. */
  get failed(): Error | undefined {
    return this.failure;
  }

  async start(): Promise<void> {
    const starts = this.options.from === "end" ? await endOffsets(this.admin, this.topic) : [];
    for (const s of starts) this.positions.set(s.partition, BigInt(s.high));
    await this.consumer.connect();
    await this.consumer.subscribe({ topic: this.topic, fromBeginning: true });
    this.consumer.on(this.consumer.events.END_BATCH_PROCESS, ({ payload }) => {
      this.advance(payload.partition, BigInt(payload.lastOffset) + 1n);
    });
    // A crash kafkajs gives up on (e.g. Kafka refused an ACL) ends the wait of caughtUp with its error.
    this.consumer.on(this.consumer.events.CRASH, ({ payload }) => {
      if (!payload.restart || this.options.crash === "fail") this.failure ??= payload.error;
      this.options.onProgress?.();
    });
    await this.consumer.run({
      autoCommit: false,
      ...(this.options.concurrency === undefined ? {} : { partitionsConsumedConcurrently: this.options.concurrency }),
      eachBatch: async ({ batch }) => {
        try {
          for (const message of batch.messages) {
            // After a seek to the end, a fetch may still hand over what lies before it.
            if (BigInt(message.offset) < (this.positions.get(batch.partition) ?? 0n)) continue;
            await this.onRecord(batch.partition, message);
            this.advance(batch.partition, BigInt(message.offset) + 1n);
          }
        } catch (error) {
          this.failure = error as Error;
          this.options.onProgress?.();
          throw error;
        }
      },
    });
    for (const s of starts) this.consumer.seek({ topic: this.topic, partition: s.partition, offset: s.high });
  }

  private advance(partition: number, next: bigint): void {
    if (next > (this.positions.get(partition) ?? 0n)) {
      this.positions.set(partition, next);
      this.options.onProgress?.();
    }
  }

  /** The next offset of `partition` to be handled (everything before it was), if any was read. */
  position(partition: number): bigint | undefined {
    return this.positions.get(partition);
  }

  /** Stops fetching `partitions` until `resume` (records already fetched are still handled). */
  pause(partitions: number[]): void {
    this.consumer.pause([{ topic: this.topic, partitions }]);
  }

  resume(partitions: number[]): void {
    this.consumer.resume([{ topic: this.topic, partitions }]);
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
