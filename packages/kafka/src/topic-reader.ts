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
 * feed of what happens from now on). `partitions` reads only those: the throwaway group's assignor
 * gives its one member nothing else, so the other partitions are never fetched.
 *
 * `caughtUp` waits either for a total time or, for a read that takes as long as the topic is large (a
 * changelog restore), for as long as it makes progress: it fails only when no position moved for
 * `stallMs`.
 *
 * A record whose handler throws ends the waits in progress with that error, and kafkajs hands the record
 * over again. Once a record is handled after it, the read is whole again and later waits succeed: a
 * handler that failed once (a registry that did not answer) does not fail every wait for the reader's
 * life. Only a read that stopped for good (kafkajs gave up, or `crash: "fail"`) keeps its error.
 */
import { randomUUID } from "node:crypto";
import type { Admin, Consumer, Kafka, KafkaMessage, PartitionAssigner } from "kafkajs";
import { AssignerProtocol } from "./client.ts";
import { endOffsets, type PartitionOffsets } from "./end-offsets.ts";

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
  /** Reads only these partitions (every partition by default); the others are never assigned nor fetched. */
  partitions?: readonly number[];
  /**
   * Where to start, per partition (the others start as `from` says): a read that resumes where a
   * snapshot of the partition left off. An offset below the partition's start reads from its start.
   */
  startAt?: ReadonlyMap<number, bigint>;
}

/** How `caughtUp` waits when it is not given a total time: for as long as the read moves. */
export interface CaughtUpWatch {
  /** Fails when no partition's position moved for this long (and the end was not reached). */
  stallMs: number;
  /** Called about every `progressEveryMs` (1 s by default) while waiting, and once at the end, with each partition's end and position. */
  progress?: (partitions: readonly PartitionProgress[]) => void;
  progressEveryMs?: number;
  /** Called once per partition, when it was read to its end. */
  reached?: (partition: number, end: string) => void;
}

export interface PartitionProgress {
  partition: number;
  /** The end offset `caughtUp` waits for. */
  end: bigint;
  /** The next offset to be handled. */
  position: bigint;
}

/**
 * An assignor for a group of one member that gives it `partitions` of `topic` and nothing else
 * (kafkajs reads only inside a group; its own assignors hand out every partition).
 */
export function onlyPartitions(topic: string, partitions: readonly number[]): PartitionAssigner {
  const { MemberAssignment, MemberMetadata } = AssignerProtocol;
  const sorted = [...new Set(partitions)].sort((a, b) => a - b);
  return () => ({
    name: "OnlyPartitionsAssigner",
    version: 0,
    async assign({ members }) {
      // Every member of a throwaway group is this reader; should there be more, the first gets the partitions.
      const [first, ...others] = members.map((m) => m.memberId).sort();
      return [
        ...(first === undefined
          ? []
          : [
              {
                memberId: first,
                memberAssignment: MemberAssignment.encode({
                  version: 0,
                  assignment: { [topic]: sorted },
                  userData: Buffer.alloc(0),
                }),
              },
            ]),
        ...others.map((memberId) => ({
          memberId,
          memberAssignment: MemberAssignment.encode({ version: 0, assignment: {}, userData: Buffer.alloc(0) }),
        })),
      ];
    },
    protocol({ topics }) {
      return {
        name: "OnlyPartitionsAssigner",
        metadata: MemberMetadata.encode({ version: 0, topics, userData: Buffer.alloc(0) }),
      };
    },
  });
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export class TopicReader {
  private readonly consumer: Consumer;
  /** Next offset to read, per partition, after everything before it was handled. */
  private readonly positions = new Map<number, bigint>();
  private failure: Error | undefined;
  /** Whether `failure` is a handler's error that kafkajs retries: the next record handled clears it. */
  private failureRetried = false;
  /** When a position last moved (for `caughtUp`'s stall guard). */
  private movedAt = Date.now();
  /** The partitions read, if not every one. */
  private readonly only: ReadonlySet<number> | undefined;
  /** The throwaway group's id (for messages about access to it). */
  readonly groupId: string;

  constructor(
    kafka: Kafka,
    private readonly admin: Admin,
    readonly topic: string,
    private readonly onRecord: RecordHandler,
    groupPrefix: string,
    private readonly options: TopicReaderOptions = {},
  ) {
    this.groupId = `${groupPrefix}-${randomUUID()}`;
    this.only = options.partitions === undefined ? undefined : new Set(options.partitions);
    this.consumer = kafka.consumer({
      groupId: this.groupId,
      readUncommitted: false,
      maxWaitTimeInMs: 100,
      allowAutoTopicCreation: false,
      ...(options.partitions === undefined ? {} : { partitionAssigners: [onlyPartitions(topic, options.partitions)] }),
    });
  }

  /** The offsets of the partitions this reader reads (all of the topic's unless `partitions` was given). */
  private async ends(deadline: number): Promise<PartitionOffsets[]> {
    return (await endOffsets(this.admin, this.topic, deadline)).filter(
      (p) => this.only === undefined || this.only.has(p.partition),
    );
  }

  /** Why the read stopped for good (kafkajs gave up), or the handler's error while kafkajs retries its record. */
  get failed(): Error | undefined {
    return this.failure;
  }

  async start(): Promise<void> {
    const starts = (this.options.from === "end" ? await this.ends(Date.now() + 30_000) : []).map((s) => ({
      partition: s.partition,
      offset: BigInt(s.high),
    }));
    for (const [partition, offset] of this.options.startAt ?? []) {
      if (this.only !== undefined && !this.only.has(partition)) continue;
      const at = starts.findIndex((s) => s.partition === partition);
      if (at >= 0) starts.splice(at, 1);
      starts.push({ partition, offset });
    }
    for (const s of starts) this.positions.set(s.partition, s.offset);
    await this.consumer.connect();
    await this.consumer.subscribe({ topic: this.topic, fromBeginning: true });
    this.consumer.on(this.consumer.events.END_BATCH_PROCESS, ({ payload }) => {
      this.advance(payload.partition, BigInt(payload.lastOffset) + 1n);
    });
    // A crash kafkajs gives up on (e.g. Kafka refused an ACL) ends the wait of caughtUp with its error.
    this.consumer.on(this.consumer.events.CRASH, ({ payload }) => {
      if (!payload.restart || this.options.crash === "fail") {
        this.failure ??= payload.error;
        this.failureRetried = false;
      }
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
          this.failureRetried = this.options.crash !== "fail";
          this.options.onProgress?.();
          throw error;
        }
      },
    });
    for (const s of starts)
      this.consumer.seek({ topic: this.topic, partition: s.partition, offset: s.offset.toString() });
  }

  private advance(partition: number, next: bigint): void {
    if (next > (this.positions.get(partition) ?? 0n)) {
      this.positions.set(partition, next);
      this.movedAt = Date.now();
      if (this.failureRetried) {
        this.failure = undefined;
        this.failureRetried = false;
      }
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

  /**
   * Resolves, with those offsets, once every partition read (or each of `partitions`) was read up to the
   * end offsets it had when called. `limit` is a total time in milliseconds, or a `CaughtUpWatch`: then
   * it waits for as long as the read makes progress, however long the topic, and fails only when no
   * position moved for `stallMs`.
   */
  async caughtUp(
    limit: number | CaughtUpWatch = 30_000,
    partitions?: ReadonlySet<number>,
  ): Promise<Record<number, string>> {
    const watch = typeof limit === "number" ? undefined : limit;
    const waitMs = typeof limit === "number" ? limit : limit.stallMs;
    const deadline = Date.now() + waitMs;
    const ends = (await this.ends(deadline)).filter((p) => partitions === undefined || partitions.has(p.partition));
    const unread =
      partitions === undefined ? [] : [...partitions].filter((p) => this.only !== undefined && !this.only.has(p));
    if (unread.length > 0)
      throw new Error(
        `reading ${this.topic}: partitions ${unread.join(", ")} are not among the partitions this reader reads`,
      );
    const positionOf = (p: PartitionOffsets) => this.positions.get(p.partition) ?? BigInt(p.low);
    const isBehind = (p: PartitionOffsets) => BigInt(p.high) > BigInt(p.low) && positionOf(p) < BigInt(p.high);
    const progress = () =>
      watch?.progress?.(
        ends.map((p) => ({
          partition: p.partition,
          end: BigInt(p.high),
          position: positionOf(p) > BigInt(p.high) ? BigInt(p.high) : positionOf(p),
        })),
      );
    const reached = new Set<number>();
    const progressEveryMs = watch?.progressEveryMs ?? 1_000;
    let reportedAt = Date.now();
    // The stall clock starts now: a reader started long ago may have been idle at the end.
    this.movedAt = Math.max(this.movedAt, Date.now());
    for (;;) {
      if (this.failure) throw this.failure;
      const behind = ends.filter(isBehind);
      for (const p of ends) {
        if (!reached.has(p.partition) && !behind.includes(p)) {
          reached.add(p.partition);
          watch?.reached?.(p.partition, p.high);
        }
      }
      if (behind.length === 0) {
        progress();
        return Object.fromEntries(ends.map((p) => [p.partition, p.high]));
      }
      if (watch === undefined && Date.now() > deadline) {
        throw new Error(
          `reading ${this.topic} did not reach the end of partitions ${behind.map((p) => p.partition).join(", ")} within ${waitMs} ms`,
        );
      }
      if (watch !== undefined && Date.now() - this.movedAt > watch.stallMs) {
        const where = behind.map((p) => `${p.partition} (at ${positionOf(p)} of ${p.high})`).join(", ");
        throw new Error(
          `reading ${this.topic} made no progress for ${watch.stallMs} ms: partitions ${where} did not reach their end`,
        );
      }
      if (Date.now() - reportedAt >= progressEveryMs) {
        reportedAt = Date.now();
        progress();
      }
      await sleep(10);
    }
  }

  async stop(): Promise<void> {
    await this.consumer.disconnect();
  }
}
