/**
 * Reads a whole topic, every partition, read_committed, up to the end offsets it had when the read
 * began, and hands the records over in one deterministic order: partitions merged by record timestamp
 * (then partition, then offset), each partition in its own order. Records of one correlation share a
 * partition, so their order is the log's; the merge by timestamp puts card and probe observations of
 * other partitions where the reconciler, which follows them as they are committed, saw them.
 *
 * Memory stays flat: a partition with more than `highWater` records waiting is paused until the
 * merge has taken them. The reading is @a2a-ledger/kafka's TopicReader (a throwaway group, never
 * committed, that counts transaction markers and compaction gaps as read).
 *
 * A retriable Kafka error (a leader that moved after a broker restart, a broker not back yet) is retried
 * within the CLI's bound (kafka-retries.ts), each retry said on stderr: the look-up of the topic and its
 * end offsets, the start of the reader, and a read that failed half-way, which goes on with a new reader
 * from where it was (the records already taken are not handed over twice).
 */
import {
  accessFailureOf,
  isRetriableKafkaError,
  type Kafka,
  type KafkaMessage,
  processClientConfig,
  TopicReader,
} from "@a2a-ledger/kafka";
import { withKafkaRetries } from "./kafka-retries.ts";

export interface TopicRecord {
  partition: number;
  offset: string;
  timestamp: number;
  key: Buffer | null;
  value: Buffer | null;
}

export interface TopicStreamOptions {
  /** Prefix of the throwaway consumer group. */
  groupPrefix: string;
  /** Records per yielded slice. */
  sliceSize?: number;
  /** Records waiting per partition before it is paused. */
  highWater?: number;
  /** How long the read may make no progress before it gives up. */
  stallTimeoutMs?: number;
  /** Called when the read starts: records in the whole read (for the progress bar). */
  onStart?(total: number): void;
}

/** The topic does not exist or the cluster cannot be reached: nothing was read. */
export class TopicUnavailableError extends Error {
  override name = "TopicUnavailableError";
}

interface PartitionQueue {
  partition: number;
  start: bigint;
  end: bigint;
  records: TopicRecord[];
  head: number;
  paused: boolean;
  /** The next offset to be queued: below it, a record was taken already (by this reader or one before). */
  next: bigint;
  /** How far an earlier reader had read (records, transaction markers and gaps). */
  reached: bigint;
}

/** What went wrong, in the words of an access failure (credentials, certificate, ACL) when it is one. */
function why(error: unknown, topic: string, groupId?: string): string {
  return (
    accessFailureOf(error, {
      topics: [topic],
      ...(groupId === undefined ? {} : { groupId }),
      client: processClientConfig(),
    })?.message ?? (error as Error).message
  );
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Records of `topic` in merged order, in slices. */
export async function* streamTopic(
  kafka: Kafka,
  topic: string,
  options: TopicStreamOptions,
): AsyncGenerator<TopicRecord[]> {
  const sliceSize = options.sliceSize ?? 10_000;
  const highWater = options.highWater ?? 5_000;
  const stallTimeoutMs = options.stallTimeoutMs ?? 60_000;
  const admin = kafka.admin();
  let offsets: { partition: number; high: string; low: string }[];
  try {
    offsets = await withKafkaRetries(`reading ${topic}`, async () => {
      try {
        await admin.connect();
        const topics = await admin.listTopics();
        if (!topics.includes(topic)) {
          // On a secured cluster a topic the principal may not Describe is not listed either.
          const client = processClientConfig();
          throw new TopicUnavailableError(
            `topic ${topic} does not exist${client.protocol === "PLAINTEXT" ? "" : ` or ${client.principal ?? "this client"} may not Describe it (see a2a-ledger acls --service cli)`}`,
          );
        }
        return await admin.fetchTopicOffsets(topic);
      } catch (e) {
        // Disconnecting drops kafkajs's cached metadata: the next try asks where the leaders are now.
        await admin.disconnect().catch(() => undefined);
        throw e;
      }
    });
  } catch (e) {
    if (e instanceof TopicUnavailableError) throw e;
    throw new TopicUnavailableError(`cannot read ${topic}: ${why(e, topic)}`, { cause: e });
  }

  const queues = new Map<number, PartitionQueue>();
  for (const p of offsets) {
    const start = BigInt(p.low);
    if (BigInt(p.high) > start)
      queues.set(p.partition, {
        partition: p.partition,
        start,
        end: BigInt(p.high),
        records: [],
        head: 0,
        paused: false,
        next: start,
        reached: start,
      });
  }
  options.onStart?.(Number([...queues.values()].reduce((n, q) => n + (q.end - q.start), 0n)));
  if (queues.size === 0) {
    await admin.disconnect().catch(() => undefined);
    return;
  }

  let wake: (() => void) | undefined;
  const notify = () => {
    const w = wake;
    wake = undefined;
    w?.();
  };
  /** A reader of the partitions not read to their end yet. */
  const newReader = (): TopicReader => {
    const unread = [...queues.values()].filter((q) => q.reached < q.end).map((q) => q.partition);
    const fresh: TopicReader = new TopicReader(
      kafka,
      admin,
      topic,
      (partition, m: KafkaMessage) => {
        const q = queues.get(partition);
        if (q === undefined) return;
        const offset = BigInt(m.offset);
        if (offset >= q.end || offset < q.next) return;
        q.records.push({ partition, offset: m.offset, timestamp: Number(m.timestamp), key: m.key, value: m.value });
        q.next = offset + 1n;
        if (q.records.length - q.head >= highWater && !q.paused) {
          q.paused = true;
          fresh.pause([q.partition]);
        }
      },
      options.groupPrefix,
      {
        concurrency: unread.length,
        crash: "fail",
        onProgress: notify,
        ...(unread.length < queues.size ? { partitions: unread } : {}),
      },
    );
    return fresh;
  };
  /** A started reader; one that fails to start is stopped and, when the error is retriable, made anew. */
  const startReader = (firstFailure?: Error): Promise<TopicReader> =>
    withKafkaRetries(`reading ${topic}`, async (attempt) => {
      if (attempt === 0 && firstFailure !== undefined) throw firstFailure;
      const fresh = newReader();
      try {
        await fresh.start();
        return fresh;
      } catch (e) {
        await fresh.stop().catch(() => undefined);
        if (e !== null && typeof e === "object") Object.assign(e, { groupId: fresh.groupId });
        throw e;
      }
    });
  const groupOf = (e: unknown) =>
    (e as { groupId?: string }).groupId ?? (e as { cause?: { groupId?: string } }).cause?.groupId;
  let reader: TopicReader | undefined;
  const close = async () => {
    await reader?.stop().catch(() => undefined);
    await admin.disconnect().catch(() => undefined);
  };
  try {
    reader = await startReader();
  } catch (e) {
    await close();
    throw new TopicUnavailableError(`cannot read ${topic}: ${why(e, topic, groupOf(e))}`, { cause: e });
  }

  /** How far partition `q` was read, by this reader or one before it. */
  const position = (q: PartitionQueue) => {
    const now = reader?.position(q.partition);
    return now !== undefined && now > q.reached ? now : q.reached;
  };
  /** A partition is drained when it has nothing queued and was read to its end. */
  const drained = (q: PartitionQueue) => q.head >= q.records.length && position(q) >= q.end;
  try {
    let lastProgress = Date.now();
    let slice: TopicRecord[] = [];
    for (;;) {
      const failure = [...queues.values()].every(drained) ? undefined : reader.failed;
      if (failure) {
        const { groupId } = reader;
        if (!isRetriableKafkaError(failure))
          throw new TopicUnavailableError(`reading ${topic} failed: ${why(failure, topic, groupId)}`, {
            cause: failure,
          });
        // Read on with a new reader from where this one was; it is retried within the bound, said on stderr.
        for (const q of queues.values()) {
          q.reached = position(q);
          q.paused = false;
        }
        await reader.stop().catch(() => undefined);
        reader = undefined;
        try {
          reader = await startReader(failure);
        } catch (e) {
          throw new TopicUnavailableError(`reading ${topic} failed: ${why(e, topic, groupOf(e) ?? groupId)}`, {
            cause: e,
          });
        }
        lastProgress = Date.now();
        continue;
      }
      for (const q of queues.values()) {
        if (q.paused && q.records.length - q.head < highWater / 2) {
          q.paused = false;
          reader.resume([q.partition]);
        }
      }
      const live = [...queues.values()].filter((q) => !drained(q));
      if (live.length === 0) break;
      const waiting = live.filter((q) => q.head >= q.records.length);
      if (waiting.length > 0) {
        if (slice.length > 0) {
          yield slice;
          slice = [];
        }
        if (Date.now() - lastProgress > stallTimeoutMs) {
          throw new TopicUnavailableError(
            `reading ${topic} made no progress for ${stallTimeoutMs / 1000} s on partition(s) ${waiting.map((q) => q.partition).join(", ")} before their end offsets`,
          );
        }
        await Promise.race([new Promise<void>((r) => (wake = r)), sleep(200)]);
        continue;
      }
      lastProgress = Date.now();
      // Every live partition has a head: take the earliest, as long as that stays true.
      for (;;) {
        let best: PartitionQueue | undefined;
        let bestRecord: TopicRecord | undefined;
        for (const q of live) {
          const r = q.records[q.head] as TopicRecord;
          if (
            bestRecord === undefined ||
            r.timestamp < bestRecord.timestamp ||
            (r.timestamp === bestRecord.timestamp && r.partition < bestRecord.partition)
          ) {
            best = q;
            bestRecord = r;
          }
        }
        const q = best as PartitionQueue;
        slice.push(bestRecord as TopicRecord);
        q.head++;
        if (q.head >= q.records.length) {
          q.records = [];
          q.head = 0;
          break;
        }
        if (q.head >= 4096 && q.head * 2 >= q.records.length) {
          q.records = q.records.slice(q.head);
          q.head = 0;
        }
        if (slice.length >= sliceSize) {
          yield slice;
          slice = [];
        }
      }
      if (slice.length >= sliceSize) {
        yield slice;
        slice = [];
      }
    }
    if (slice.length > 0) yield slice;
  } finally {
    await close();
  }
}
