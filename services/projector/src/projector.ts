/**
 * The projector's consumer: one consumer group on the five input topics (read_committed). Each batch
 * of one topic partition is decoded and written into the views with its offset in one database
 * transaction (views/writer.ts). The database's offsets are the truth: records below them are
 * skipped, and a consumer that is ahead of them (Kafka's committed offsets are only a hint, committed
 * after the database) seeks back. Several instances share the partitions through the group.
 */
import {
  type AccessFailure,
  accessFailureOf,
  type Admin,
  type Consumer,
  ConsumerRestart,
  createKafka,
  endOffsets,
  type Kafka,
  type KafkaMessage,
  processClientConfig,
} from "@a2a-ledger/kafka";
import { Serde } from "@a2a-ledger/schemas/serde";
import type { Batch } from "kafkajs";
import type { ProjectorConfig } from "./config.ts";
import { InputDecoder, type ProjectorInput, topicRoles } from "./inputs.ts";
import type { Logger } from "./logger.ts";
import type { ProjectorMetrics } from "./metrics.ts";
import { activeGeneration } from "./store/generations.ts";
import { tableNames } from "./store/schema.ts";
import type { Store } from "./store/store.ts";
import type { PartitionEnd } from "./views/lists.ts";
import { skipUnreadable, writeBatch } from "./views/writer.ts";

export interface ProjectorOptions {
  /** Write into this generation instead of the active one (a rebuild). */
  generation?: number;
  /** Consumer group; a rebuild uses a throwaway one. */
  groupId?: string;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export class Projector {
  private readonly kafka: Kafka;
  private readonly decoder: InputDecoder;
  private admin: Admin | undefined;
  private consumer: Consumer | undefined;
  private readonly lows = new Map<string, Map<number, number>>();
  /** Per topic/partition, the offset of a seek back whose first fetch has not been projected yet. */
  private readonly soughtTo = new Map<string, number>();
  private ends: { at: number; value: Promise<PartitionEnd[]> } | undefined;
  private gen: { value: number; at: number } | undefined;
  private running = false;
  private failure: Error | undefined;
  /** The consumer crashed and is being run again (ConsumerRestart). */
  private restarting = false;
  /** Why Kafka refuses this service, when it does (set at start, or by a crash kafkajs gives up on). */
  private refused: AccessFailure | undefined;

  constructor(
    private readonly config: ProjectorConfig,
    private readonly store: Store,
    private readonly log: Logger,
    private readonly metrics: ProjectorMetrics,
    private readonly options: ProjectorOptions = {},
  ) {
    this.kafka = createKafka({ brokers: config.brokers, clientId: `a2a-ledger-projector-${config.instanceId}` });
    this.decoder = new InputDecoder(
      new Serde(config.registryUrl, undefined, processClientConfig().registry),
      config.topics,
    );
    this.restart = new ConsumerRestart({
      crashed: () => this.consumer,
      run: () => this.runConsumer(),
      giveUp: (error) => !this.running || this.refusedOn(error),
      name: "the consumer",
      log: this.log,
      restarts: this.metrics.consumerRestarts,
    });
  }

  get isRunning(): boolean {
    return this.running;
  }

  /** Whether the views are being kept up to date: started, its consumer running (not crashed, not being run again). */
  consuming(): boolean {
    return this.running && this.failure === undefined && !this.restarting;
  }

  get topics(): string[] {
    return topicRoles.map((role) => this.config.topics[role]);
  }

  async start(): Promise<void> {
    this.admin = this.kafka.admin();
    await this.admin.connect();
    this.running = true;
    await this.runConsumer().catch((error: unknown) => {
      this.running = false;
      throw error;
    });
    this.log.info(
      {
        groupId: this.groupId,
        generation: this.options.generation ?? "active",
        topics: this.topics,
        store: this.store.location,
      },
      "projector consuming",
    );
  }

  private get groupId(): string {
    return this.options.groupId ?? this.config.groupId;
  }

  /**
   * A consumer kafkajs gave up on is run again (the offsets in the database make that safe) until it
   * joins its group; meanwhile the projector is not consuming (/readyz). Not after Kafka refused the service.
   */
  private readonly restart: ConsumerRestart;

  /** Whether Kafka refuses this service (no restart cures that): then the crash is final. */
  private refusedOn(error: unknown): boolean {
    this.refused ??= accessFailureOf(error, {
      topics: this.topics,
      groupId: this.groupId,
      client: processClientConfig(),
    });
    if (this.refused !== undefined) this.failure = error instanceof Error ? error : new Error(String(error));
    return this.refused !== undefined;
  }

  private async runConsumer(): Promise<void> {
    const groupId = this.groupId;
    const consumer = this.kafka.consumer({
      groupId,
      readUncommitted: false,
      allowAutoTopicCreation: false,
      maxWaitTimeInMs: 100,
      sessionTimeout: this.config.sessionTimeoutMs,
      heartbeatInterval: 1_000,
      rebalanceTimeout: 30_000,
      // A broker fault can end in an error kafkajs does not deem retriable: the offsets in the database make a restart safe.
      retry: { restartOnFailure: async () => true },
    });
    this.consumer = consumer;
    consumer.on(consumer.events.CRASH, ({ payload }) => {
      this.log.error({ err: payload.error, restart: payload.restart }, "consumer crashed");
      // kafkajs restarts the consumer after retriable errors; after any other, so does ConsumerRestart,
      // unless Kafka refused the service: only that crash is final.
      if (payload.restart) return;
      if (!this.running || this.refusedOn(payload.error)) {
        this.failure ??= payload.error;
        return;
      }
      this.restarting = true;
      this.restart.onCrash(payload);
    });
    consumer.on(consumer.events.GROUP_JOIN, ({ payload }) => {
      this.restarting = false;
      this.restart.settled();
      this.log.info({ assignment: payload.memberAssignment }, "partitions assigned");
      void this.seekBackToStored(consumer, payload.memberAssignment).catch((error: unknown) =>
        this.log.warn({ err: error }, "could not compare the committed offsets with the database's"),
      );
    });
    // A fetch of only transaction markers or aborted records never reaches eachBatch: move the stored offset over it.
    consumer.on(consumer.events.END_BATCH_PROCESS, ({ payload }) => {
      if (payload.batchSize !== 0 || payload.firstOffset === null) return;
      // A seek back that this fetch answered is spent (eachBatch, which otherwise spends it, is not called).
      this.soughtTo.delete(`${payload.topic}/${payload.partition}`);
      void this.generation()
        .then((gen) =>
          skipUnreadable(
            this.store,
            gen,
            payload.topic,
            payload.partition,
            Number(payload.firstOffset),
            Number(payload.lastOffset) + 1,
          ),
        )
        .catch((error: unknown) =>
          this.log.warn(
            { err: error, topic: payload.topic, partition: payload.partition },
            "could not move the offset over transaction markers",
          ),
        );
    });
    await consumer.connect();
    for (const topic of this.topics) await consumer.subscribe({ topic, fromBeginning: true });
    await consumer.run({
      autoCommit: true,
      autoCommitInterval: 1_000,
      eachBatchAutoResolve: false,
      partitionsConsumedConcurrently: this.config.concurrency,
      eachBatch: async ({ batch, resolveOffset, heartbeat, isRunning, isStale }) => {
        // What the fetch covered, control records (transaction markers) and aborted records included.
        let readFrom = Number(batch.firstOffset() ?? batch.messages[0]?.offset ?? 0);
        // The first fetch after a seek back read from the offset sought: offsets missing between it and the
        // first record are not on the broker (compacted away), not skipped by this consumer.
        const key = `${batch.topic}/${batch.partition}`;
        const sought = this.soughtTo.get(key);
        this.soughtTo.delete(key);
        if (sought !== undefined && sought < readFrom) readFrom = sought;
        for (let i = 0; i < batch.messages.length && isRunning() && !isStale(); i += this.config.maxBatch) {
          const chunk = batch.messages.slice(i, i + this.config.maxBatch);
          const final = i + this.config.maxBatch >= batch.messages.length;
          const resolved = await this.project(batch, chunk, {
            readFrom,
            batchEnd: final ? Number(batch.lastOffset()) + 1 : undefined,
          });
          if (resolved === "seeked") return;
          resolveOffset(resolved);
          readFrom = Number(resolved) + 1;
          await heartbeat();
        }
      },
    });
  }

  /**
   * At assignment, a partition whose committed offset is past the database's is sought back to the
   * database's. kafkajs itself resolves and commits a fetch of only transaction markers or aborted
   * records, before END_BATCH_PROCESS moves the stored offset over it: a process killed in between
   * restarts past offsets the database never stored as read, and with nothing new to fetch its stored
   * offset would stay behind the end (a lag that never clears). Read again from the database's offset,
   * the fetch moves it over them, or projects whatever it finds.
   */
  private async seekBackToStored(consumer: Consumer, assignment: Record<string, number[]>): Promise<void> {
    const topics = Object.keys(assignment);
    const admin = this.admin;
    if (topics.length === 0 || admin === undefined) return;
    // Kafka's committed offsets first: read after the database's, a commit in between would look like a gap.
    const committed = await admin.fetchOffsets({ groupId: this.groupId, topics });
    const stored = await this.storedOffsets(await this.generation());
    // A consumer restarted meanwhile has had its own assignment.
    if (this.consumer !== consumer) return;
    for (const { topic, partitions } of committed) {
      let refresh = true;
      for (const { partition, offset } of partitions) {
        if (!assignment[topic]?.includes(partition) || Number(offset) < 0) continue;
        // Where the writer expects the partition's next record (writer.ts): the database's offset, or the
        // log's start when none is stored or the log no longer holds it.
        const low = await this.lowWatermark(topic, partition, refresh);
        refresh = false;
        const next = Math.max(stored.get(`${topic}/${partition}`) ?? 0, low);
        if (Number(offset) <= next) continue;
        this.log.info(
          { topic, partition, committed: offset, stored: next },
          "seeking back to the offset the database holds",
        );
        this.soughtTo.set(`${topic}/${partition}`, next);
        consumer.seek({ topic, partition, offset: String(next) });
      }
    }
  }

  /** The database's next offset per "topic/partition" in a generation. */
  private async storedOffsets(gen: number): Promise<Map<string, number>> {
    const rows = await this.store.read((r) =>
      r.all(`SELECT topic, log_partition, next_offset FROM ${tableNames(gen).offset}`),
    );
    return new Map(rows.map((row) => [`${row.topic}/${row.log_partition}`, Number(row.next_offset)]));
  }

  private async generation(): Promise<number> {
    if (this.options.generation !== undefined) return this.options.generation;
    const now = Date.now();
    if (this.gen === undefined || now - this.gen.at > 1_000) {
      const value = await this.store.read(activeGeneration);
      if (value === undefined) throw new Error("the database has no active generation: run the migrations first");
      this.gen = { value, at: now };
    }
    return this.gen.value;
  }

  private async lowWatermark(topic: string, partition: number, refresh = false): Promise<number> {
    let lows = this.lows.get(topic);
    if (lows === undefined || refresh) {
      const offsets = await endOffsets(this.admin as Admin, topic);
      lows = new Map(offsets.map((o) => [o.partition, Number(o.low)]));
      this.lows.set(topic, lows);
    }
    return lows.get(partition) ?? 0;
  }

  /** Projects one chunk; the offset to resolve, or "seeked" after a seek back to the stored offset. */
  private async project(
    batch: Batch,
    chunk: KafkaMessage[],
    range: { readFrom: number; batchEnd: number | undefined },
  ): Promise<string | "seeked"> {
    const { batchEnd } = range;
    const { topic, partition } = batch;
    const inputs: ProjectorInput[] = [];
    for (const m of chunk) {
      const input = await this.decoder.decode(
        { topic, partition, offset: Number(m.offset), timestamp: Number(m.timestamp) },
        { key: m.key, value: m.value, headers: m.headers },
      );
      if (input.kind === "dead-letter" && input.deadLetter.recordedBy === "projector")
        this.metrics.poison.inc({ reason: input.deadLetter.reason });
      inputs.push(input);
    }
    const gen = await this.generation();
    const stop = this.metrics.batchSeconds.startTimer();
    let outcome = await writeBatch(this.store, gen, topic, partition, inputs, {
      lowWatermark: await this.lowWatermark(topic, partition),
      ...range,
    });
    if (outcome.kind === "gap")
      outcome = await writeBatch(this.store, gen, topic, partition, inputs, {
        lowWatermark: await this.lowWatermark(topic, partition, true),
        ...range,
      });
    stop();
    const last = batchEnd === undefined ? (chunk[chunk.length - 1] as KafkaMessage).offset : String(batchEnd - 1);
    switch (outcome.kind) {
      case "written":
        this.metrics.transactions.inc();
        this.metrics.records.inc({ topic }, outcome.projected);
        this.metrics.redeliveries.inc(inputs.length - outcome.projected);
        return last;
      case "already-projected":
        this.metrics.redeliveries.inc(inputs.length);
        return last;
      case "gap":
        this.metrics.seeks.inc();
        this.log.info(
          { topic, partition, from: chunk[0]?.offset, to: outcome.next },
          "seeking back to the offset the database holds",
        );
        this.soughtTo.set(`${topic}/${partition}`, outcome.next);
        (this.consumer as Consumer).seek({ topic, partition, offset: String(outcome.next) });
        return "seeked";
    }
  }

  /** Kafka's end offset of every input partition (cached for a second). */
  endOffsets(): Promise<PartitionEnd[]> {
    const now = Date.now();
    if (this.ends === undefined || now - this.ends.at > 1_000) {
      const admin = this.admin;
      const value =
        admin === undefined
          ? Promise.resolve([])
          : Promise.all(
              this.topics.map(async (topic) =>
                (await endOffsets(admin, topic)).map((o) => ({ topic, partition: o.partition, end: Number(o.high) })),
              ),
            ).then((all) => all.flat());
      value.catch(() => (this.ends = undefined));
      this.ends = { at: now, value };
    }
    return this.ends.value;
  }

  /** Records that Kafka refused this service at start. */
  refusedBy(failure: AccessFailure): void {
    this.refused = failure;
  }

  /** Why Kafka refuses this service, if it does (for /readyz). */
  accessFailure(): AccessFailure | undefined {
    return this.refused;
  }

  /** Whether Kafka answers (for /readyz). */
  async kafkaReachable(timeoutMs: number): Promise<boolean> {
    const admin = this.admin;
    if (admin === undefined) return false;
    const timer = new Promise<boolean>((resolve) => setTimeout(() => resolve(false), timeoutMs).unref());
    return Promise.race([
      admin.describeCluster().then(
        () => true,
        () => false,
      ),
      timer,
    ]);
  }

  /** Resolves once the generation holds every record each input partition had when called. */
  async caughtUp(timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    this.ends = undefined;
    const ends = await this.endOffsets();
    for (;;) {
      if (this.failure) throw this.failure;
      const stored = await this.storedOffsets(await this.generation());
      const behind = [];
      for (const e of ends) {
        if (e.end === undefined || e.end === 0) continue;
        const low = await this.lowWatermark(e.topic, e.partition);
        if (e.end > low && (stored.get(`${e.topic}/${e.partition}`) ?? low) < e.end) behind.push(e);
      }
      if (behind.length === 0) return;
      if (Date.now() > deadline)
        throw new Error(
          `the views did not catch up within ${timeoutMs} ms: ${behind.map((b) => `${b.topic}/${b.partition}`).join(", ")} behind`,
        );
      await sleep(100);
    }
  }

  async stop(): Promise<void> {
    if (!this.running && this.consumer === undefined) return;
    this.running = false;
    this.restart.cancel();
    await this.consumer?.disconnect().catch(() => undefined);
    await this.admin?.disconnect().catch(() => undefined);
    this.consumer = undefined;
    this.admin = undefined;
    this.log.info("projector stopped");
  }
}
