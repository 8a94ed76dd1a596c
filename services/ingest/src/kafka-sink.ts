/**
 * Where accepted batches go: the observations topic, through one idempotent kafkajs producer
 * (acks=-1). Concurrent batches are group-committed: while one produce request is in flight, the
 * batches that arrive queue up and leave together in the next request, in arrival order, so order per
 * key holds and throughput does not depend on one round trip per HTTP request (kafkajs serializes
 * idempotent requests per broker anyway).
 *
 * A batch resolves only when Kafka acknowledged every one of its records. It is rejected with a 503
 * IngestError when Kafka fails or does not answer within the produce timeout; its records that were
 * not yet sent are then dropped, so a retry with the same eventIds is the only way they land.
 *
 * After a failed request the producer is replaced: a fresh producer id means the broker's sequence
 * de-duplication can never mistake a new request for the replay of one whose answer was lost.
 */
import {
  type AccessFailure,
  accessFailureOf,
  createKafka,
  logLevel,
  partitionCounts,
  processClientConfig,
  sendAcknowledged,
  type Admin,
  type Kafka,
  type Producer,
} from "@a2a-ledger/kafka";
import { ChunkBudget, defaultChunkLimits, type ChunkLimits, type OutgoingRecord } from "./chunk-budget.ts";
import { IngestError } from "./errors.ts";

export type { OutgoingRecord } from "./chunk-budget.ts";

export interface SinkLogger {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

/** What the HTTP layer needs from Kafka; tests may substitute it. */
export interface ObservationSink {
  /** Resolves when Kafka acknowledged every record; rejects with a 503 IngestError otherwise. */
  publish(records: readonly OutgoingRecord[]): Promise<void>;
  /** True when the broker answers metadata for the topic within the bound. */
  kafkaReachable(timeoutMs: number): Promise<boolean>;
  /** Why Kafka refuses this service (credentials, certificate, ACL), while it does; for /readyz. */
  readonly accessFailure?: AccessFailure | undefined;
  /** Stops taking batches, waits up to graceMs for queued ones, then disconnects. */
  close(graceMs: number): Promise<void>;
  readonly queuedRecords: number;
}

export interface KafkaSinkOptions {
  brokers: string;
  topic: string;
  produceTimeoutMs: number;
  maxQueuedRecords: number;
  retryAfterSeconds: number;
  clientId?: string;
  logger?: SinkLogger;
  chunkLimits?: ChunkLimits;
  /** Silences kafkajs's own logging (its connection errors while Kafka is down are expected). */
  quietClient?: boolean;
}

interface Pending {
  records: readonly OutgoingRecord[];
  /** Index of the next record to send. */
  next: number;
  /** Chunks holding records of this batch that are in flight. */
  inFlight: number;
  settled: boolean;
  resolve(): void;
  reject(e: IngestError): void;
  timer: NodeJS.Timeout | undefined;
}

interface ChunkPart {
  pending: Pending;
  count: number;
}

const silent: SinkLogger = { info() {}, warn() {}, error() {} };

export class KafkaSink implements ObservationSink {
  private readonly kafka: Kafka;
  private readonly logger: SinkLogger;
  private producer: Promise<Producer> | undefined;
  private admin: Promise<Admin> | undefined;
  private partitions = 1;
  /** The topic's partition count as read from the cluster; unknown until a metadata request answered. */
  private knownPartitions: number | undefined;
  private readonly queue: Pending[] = [];
  private queued = 0;
  private pumping: Promise<void> | undefined;
  private closing = false;
  /** Set while Kafka refuses this service's credentials, certificate or ACLs. */
  accessFailure: AccessFailure | undefined;

  constructor(private readonly options: KafkaSinkOptions) {
    this.logger = options.logger ?? silent;
    this.kafka = createKafka({
      brokers: options.brokers,
      clientId: options.clientId ?? "a2a-ledger-ingest",
      connectionTimeoutMs: Math.min(3_000, options.produceTimeoutMs),
      requestTimeoutMs: Math.max(1_000, Math.min(30_000, options.produceTimeoutMs)),
      retries: 2,
      ...(options.quietClient ? { logLevel: logLevel.NOTHING } : {}),
    });
  }

  get queuedRecords(): number {
    return this.queued;
  }

  publish(records: readonly OutgoingRecord[]): Promise<void> {
    const retryAfter = this.options.retryAfterSeconds;
    if (this.closing) return Promise.reject(new IngestError("INGEST_SHUTTING_DOWN", undefined, undefined, retryAfter));
    if (records.length === 0) return Promise.resolve();
    if (this.queued + records.length > this.options.maxQueuedRecords) {
      return Promise.reject(
        new IngestError(
          "INGEST_OVERLOADED",
          `${this.queued} records are waiting for Kafka; the limit is ${this.options.maxQueuedRecords}`,
          undefined,
          retryAfter,
        ),
      );
    }
    return new Promise<void>((resolve, reject) => {
      const pending: Pending = { records, next: 0, inFlight: 0, settled: false, resolve, reject, timer: undefined };
      pending.timer = setTimeout(() => {
        this.fail(
          pending,
          new IngestError(
            "INGEST_KAFKA_UNAVAILABLE",
            `Kafka did not acknowledge the batch within ${this.options.produceTimeoutMs} ms`,
            undefined,
            retryAfter,
          ),
        );
      }, this.options.produceTimeoutMs);
      this.queue.push(pending);
      this.queued += records.length;
      this.pump();
    });
  }

  /** Rejects a batch once and drops its records that were not sent yet. */
  private fail(pending: Pending, error: IngestError): void {
    const at = this.queue.indexOf(pending);
    if (at >= 0) {
      this.queue.splice(at, 1);
      this.queued -= pending.records.length - pending.next;
      pending.next = pending.records.length;
    }
    if (pending.settled) return;
    pending.settled = true;
    clearTimeout(pending.timer);
    pending.reject(error);
  }

  private pump(): void {
    if (this.pumping !== undefined) return;
    this.pumping = (async () => {
      try {
        while (this.queue.length > 0) await this.sendChunk(this.takeChunk());
      } finally {
        this.pumping = undefined;
      }
    })();
  }

  private takeChunk(): { parts: ChunkPart[]; records: OutgoingRecord[] } {
    const budget = new ChunkBudget(this.partitions, this.options.chunkLimits ?? defaultChunkLimits);
    const parts: ChunkPart[] = [];
    const records: OutgoingRecord[] = [];
    while (this.queue.length > 0) {
      const pending = this.queue[0]!;
      const start = pending.next;
      while (pending.next < pending.records.length && budget.tryAdd(pending.records[pending.next]!)) {
        records.push(pending.records[pending.next]!);
        pending.next += 1;
      }
      if (pending.next > start) {
        pending.inFlight += 1;
        parts.push({ pending, count: pending.next - start });
      }
      if (pending.next < pending.records.length) break; // the budget is spent
      this.queue.shift();
    }
    return { parts, records };
  }

  private async sendChunk(chunk: { parts: ChunkPart[]; records: OutgoingRecord[] }): Promise<void> {
    try {
      const producer = await this.connectedProducer();
      if (this.knownPartitions === undefined) await this.refreshPartitions();
      if (this.knownPartitions === undefined)
        throw new Error(`the partition count of ${this.options.topic} is unknown: records are not sent without it`);
      // One produce request per broker, every partition's acknowledgement checked: a leader move during
      // kafkajs's retry may write a partition's records twice (readers de-duplicate by eventId, as after a
      // client's resend), never report one written that was not (@a2a-ledger/kafka partition-send).
      await sendAcknowledged(producer, this.options.topic, chunk.records, this.knownPartitions);
      this.accessFailure = undefined;
      for (const { pending } of chunk.parts) {
        pending.inFlight -= 1;
        if (!pending.settled && pending.inFlight === 0 && pending.next === pending.records.length) {
          pending.settled = true;
          clearTimeout(pending.timer);
          pending.resolve();
        }
      }
    } catch (e) {
      const refused = this.noteAccess(e);
      this.logger.warn(
        {
          err: e,
          records: chunk.records.length,
          ...(refused === undefined ? {} : { code: refused.code, resource: refused.resource }),
        },
        refused === undefined ? "Kafka did not acknowledge a produce request; replacing the producer" : refused.message,
      );
      this.resetProducer();
      const error =
        refused === undefined
          ? new IngestError(
              "INGEST_KAFKA_UNAVAILABLE",
              `Kafka did not acknowledge the batch: ${e instanceof Error ? e.message : String(e)}`,
              undefined,
              this.options.retryAfterSeconds,
            )
          : new IngestError("INGEST_KAFKA_REFUSED", refused.message, undefined, this.options.retryAfterSeconds);
      for (const { pending } of chunk.parts) {
        pending.inFlight -= 1;
        this.fail(pending, error);
      }
    } finally {
      this.queued -= chunk.records.length;
    }
  }

  private connectedProducer(): Promise<Producer> {
    if (this.producer === undefined) {
      const producer = this.kafka.producer({
        idempotent: true,
        // Bounded so that a dead broker fails the request instead of retrying forever; the producer is
        // replaced after a failure, which keeps the broker's sequence checks sound.
        retry: { retries: 3, initialRetryTime: 200, maxRetryTime: 2_000 },
        allowAutoTopicCreation: false,
      });
      const connecting = (async () => {
        await producer.connect();
        await this.refreshPartitions();
        return producer;
      })();
      connecting.catch(() => {
        if (this.producer === connecting) this.producer = undefined;
        void producer.disconnect().catch(() => undefined);
      });
      this.producer = connecting;
    }
    return this.producer;
  }

  private resetProducer(): void {
    const old = this.producer;
    this.producer = undefined;
    void old?.then((p) => p.disconnect()).catch(() => undefined);
  }

  private connectedAdmin(): Promise<Admin> {
    if (this.admin === undefined) {
      const admin = this.kafka.admin();
      const connecting = admin.connect().then(() => admin);
      connecting.catch(() => {
        if (this.admin === connecting) this.admin = undefined;
      });
      this.admin = connecting;
    }
    return this.admin;
  }

  private async refreshPartitions(): Promise<void> {
    try {
      const admin = await this.connectedAdmin();
      const [count] = await partitionCounts(admin, [this.options.topic]);
      this.partitions = count?.partitions ?? 1;
      this.knownPartitions = count?.partitions;
    } catch (e) {
      this.logger.warn(
        { err: e },
        "could not read the topic's partition count; sizing requests as if it had one partition",
      );
      this.partitions = 1;
    }
  }

  async kafkaReachable(timeoutMs: number): Promise<boolean> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<boolean>((resolve) => {
      timer = setTimeout(() => resolve(false), timeoutMs);
    });
    const probe = (async () => {
      const admin = await this.connectedAdmin();
      const metadata = await admin.fetchTopicMetadata({ topics: [this.options.topic] });
      return (metadata.topics[0]?.partitions.length ?? 0) > 0;
    })().catch((e: unknown) => {
      this.noteAccess(e);
      const old = this.admin;
      this.admin = undefined;
      void old?.then((a) => a.disconnect()).catch(() => undefined);
      return false;
    });
    try {
      const reachable = await Promise.race([probe, timeout]);
      // Connected and described: credentials and certificates are good again (a missing Write ACL clears on the next acknowledged batch).
      if (reachable && this.accessFailure?.cause !== "authorization") this.accessFailure = undefined;
      return reachable;
    } finally {
      clearTimeout(timer);
    }
  }

  /** Records (or clears) why Kafka refuses this service; the failure behind `error`, if it is one. */
  private noteAccess(error: unknown): AccessFailure | undefined {
    const failure = accessFailureOf(error, { topics: [this.options.topic], client: processClientConfig() });
    if (failure !== undefined) this.accessFailure = failure;
    return failure;
  }

  async close(graceMs: number): Promise<void> {
    this.closing = true;
    const deadline = Date.now() + graceMs;
    while ((this.queue.length > 0 || this.pumping !== undefined) && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    for (const pending of [...this.queue])
      this.fail(pending, new IngestError("INGEST_SHUTTING_DOWN", undefined, undefined, this.options.retryAfterSeconds));
    const producer = this.producer;
    const admin = this.admin;
    this.producer = undefined;
    this.admin = undefined;
    await Promise.allSettled([producer?.then((p) => p.disconnect()), admin?.then((a) => a.disconnect())]);
  }
}
