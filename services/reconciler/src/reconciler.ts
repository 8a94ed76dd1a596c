/**
 * The reconciler: a consumer group on the observations running the rules per partition with
 * transactional read-process-write. Its parts: the group lifecycle (group-membership.ts), the state
 * restored from the changelog (restore.ts), one Kafka transaction per batch (transaction.ts) and the
 * re-examination of blocked correlations when the capability table changes (re-examination.ts).
 */
import { createDecider, type Decider } from "@a2a-ledger/core";
import {
  accessFailureOf,
  type Admin,
  agreedPartitions,
  type Consumer,
  ConsumerRestart,
  correlationKeyedTopics,
  createKafka,
  type Kafka,
  partitionCounts,
  processClientConfig,
} from "@a2a-ledger/kafka";
import { createLogger, type Logger } from "@a2a-ledger/logging";
import { Serde } from "@a2a-ledger/schemas/serde";
import type { Batch, KafkaMessage } from "kafkajs";
import { CapabilityFollower } from "./capability-follower.ts";
import { PolicyFollower } from "./policy-follower.ts";
import type { ReconcilerConfig } from "./config.ts";
import { ProbeCardWait } from "./card-wait.ts";
import { CorrelationBudget, waitForRoomMs } from "./correlation-budget.ts";
import { GroupMembership } from "./group-membership.ts";
import { ReconcilerMetrics } from "./metrics.ts";
import { recheckIdle } from "./re-examination.ts";
import { PartitionStore, type RestoreHooks, whileBeating } from "./restore.ts";
import { StageClocks } from "./stage-clock.ts";
import { PartitionTransactions } from "./transaction.ts";

export { transactionalProducerRetry } from "./group-membership.ts";
export { whileBeating } from "./restore.ts";

export class Reconciler {
  readonly metrics = new ReconcilerMetrics();
  private readonly kafka: Kafka;
  private readonly serde: Serde;
  private readonly decider: Decider;
  private readonly clocks: StageClocks;
  private readonly group: GroupMembership;
  private admin!: Admin;
  private consumer!: Consumer;
  private capabilities!: CapabilityFollower;
  private policies!: PolicyFollower;
  private store!: PartitionStore;
  private budget!: CorrelationBudget;
  private cardWait!: ProbeCardWait;
  private transactions!: PartitionTransactions;
  private running = false;
  private recheckTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly config: ReconcilerConfig,
    private readonly log: Logger = createLogger("reconciler"),
    /** None in a deployment (main.ts passes none); tests reach into a restore with them. */
    private readonly hooks: RestoreHooks = {},
  ) {
    this.kafka = createKafka({ brokers: config.brokers, clientId: `a2a-ledger-reconciler-${config.instanceId}` });
    this.serde = new Serde(config.registryUrl, undefined, processClientConfig().registry);
    this.decider = createDecider(config.ruleSet);
    this.clocks = new StageClocks(this.metrics, log);
    this.group = new GroupMembership(this.kafka, config, log, (partition) => this.clocks.settled(partition));
    this.restart = new ConsumerRestart({
      crashed: () => this.consumer,
      run: () => this.runConsumer(),
      giveUp: (error) => !this.running || accessFailureOf(error) !== undefined,
      name: "the consumer",
      log: this.log,
      restarts: this.metrics.consumerRestarts,
    });
  }

  /** Called when the consumer crashed for good (kafkajs will not restart it), e.g. Kafka refused an ACL. */
  onFatal: ((error: unknown) => void) | undefined;

  /** Partitions of each of the ledger's topics, as the cluster's metadata gave them at start. */
  private partitionCounts = new Map<string, number>();
  /** The installed partition count of the correlation-keyed topics (they agree, or the start refused). */
  private correlationPartitions = 0;

  private partitionsOf(topic: string): number {
    const count = this.partitionCounts.get(topic);
    if (count === undefined) throw new Error(`${topic} is not one of the ledger's topics`);
    return count;
  }

  /** Every topic's partition count from the metadata, never from a constant: topics may be created with any count. */
  private async readPartitionCounts(): Promise<void> {
    const { topics } = this.config;
    const counts = await partitionCounts(this.admin, Object.values(topics));
    const keyed = new Set(correlationKeyedTopics(topics));
    this.correlationPartitions = agreedPartitions(counts.filter((c) => keyed.has(c.topic))) as number;
    this.partitionCounts = new Map(counts.map((c) => [c.topic, c.partitions]));
  }

  get isRunning(): boolean {
    return this.running;
  }

  async start(): Promise<void> {
    const { topics, groupId } = this.config;
    this.admin = this.kafka.admin();
    await this.admin.connect();
    await this.readPartitionCounts().catch(async (error: unknown) => {
      await this.admin.disconnect().catch(() => undefined);
      throw error;
    });
    this.capabilities = new CapabilityFollower(this.kafka, this.admin, topics.capabilities, this.serde, groupId);
    await this.capabilities.start();
    this.policies = new PolicyFollower(this.kafka, this.admin, topics.policy, this.serde, groupId, this.log);
    await this.policies.start(this.config.policy.trustedVendors, this.config.instanceId);
    this.store = new PartitionStore(
      this.kafka,
      this.admin,
      this.config,
      this.decider,
      this.group,
      this.metrics,
      this.log,
      this.hooks,
    );
    const store = this.store;
    this.budget = new CorrelationBudget(this.config.maxCorrelations, () => store.liveCorrelations(), this.log);
    this.metrics.watchCorrelations(() => store.liveByPartition(), this.config.maxCorrelations);
    const budget = this.budget;
    this.metrics.watchReadiness(() =>
      budget.waiting.size === 0
        ? { ready: true }
        : {
            ready: false,
            status: "correlation budget reached",
            detail: {
              live: budget.used(),
              max: budget.max,
              waitingPartitions: [...budget.waiting.keys()].sort((a, b) => a - b),
            },
          },
    );
    this.cardWait = new ProbeCardWait(this.log, (outcome) => this.metrics.probesAwaitingCard.inc({ outcome }));
    this.transactions = new PartitionTransactions({
      config: this.config,
      serde: this.serde,
      decider: this.decider,
      capabilities: this.capabilities,
      policies: this.policies,
      group: this.group,
      store: this.store,
      clocks: this.clocks,
      metrics: this.metrics,
      log: this.log,
      budget: this.budget,
      cardWait: this.cardWait,
      partitionsOf: (topic) => this.partitionsOf(topic),
    });
    this.running = true;
    await this.runConsumer().catch((error: unknown) => {
      this.running = false;
      throw error;
    });
    const reExamination = {
      capabilities: this.capabilities,
      group: this.group,
      store: this.store,
      transactions: this.transactions,
      log: this.log,
      isRunning: () => this.running,
      // An idle partition's failed transaction: no batch will make kafkajs rejoin, so the consumer is run again (a fresh assignment).
      rejoin: (error: unknown) => {
        // Its partitions are given up until the new assignment: nothing re-examines or restores meanwhile.
        this.group.onRebalancing();
        this.restart.onCrash({ error, restart: false });
      },
    };
    // One re-examination at a time: a tick while the last one still runs (a slow restore or transaction)
    // would queue another behind the partitions' locks, ahead of the batches that wait for them.
    let rechecking = false;
    this.recheckTimer = setInterval(() => {
      this.clocks.warnStalled();
      if (rechecking) return;
      rechecking = true;
      void recheckIdle(reExamination).finally(() => {
        rechecking = false;
      });
    }, this.config.recheckMs);
    this.recheckTimer.unref();
    this.log.info(
      {
        groupId,
        instanceId: this.config.instanceId,
        rulesVersion: this.decider.rulesVersion,
        input: topics.observations,
        partitions: this.correlationPartitions,
        maxCorrelations: this.config.maxCorrelations,
      },
      "reconciler started",
    );
  }

  /** A consumer kafkajs gave up on is run again, from the committed offsets; not after Kafka refused the service. */
  private readonly restart: ConsumerRestart;

  private async runConsumer(): Promise<void> {
    const { topics, groupId } = this.config;
    this.consumer = this.kafka.consumer({
      groupId,
      readUncommitted: false,
      allowAutoTopicCreation: false,
      maxWaitTimeInMs: 100,
      sessionTimeout: this.config.sessionTimeoutMs,
      heartbeatInterval: this.config.heartbeatMs,
      rebalanceTimeout: 30_000,
      // A failure restarts the consumer (rejoin, committed offsets, state restored), which is what the
      // transaction's outcome needs: kafkajs after the errors it deems retriable, ConsumerRestart after
      // the others. Except when Kafka refuses this service (credentials, certificate, ACL): no restart
      // cures that (main.ts exits 3 naming it).
      retry: { restartOnFailure: async (error: Error) => accessFailureOf(error) === undefined },
    });
    this.consumer.on(this.consumer.events.GROUP_JOIN, ({ payload }) => {
      this.restart.settled();
      void this.group.onAssignment(payload.memberAssignment[topics.observations] ?? [], (assigned) =>
        this.store.onAssignment(assigned),
      );
    });
    this.consumer.on(this.consumer.events.REBALANCING, () => {
      this.group.onRebalancing();
      this.budget.waiting.clear();
      this.cardWait.clear();
    });
    this.consumer.on(this.consumer.events.CRASH, ({ payload }) => {
      if (payload.restart) this.metrics.consumerRestarts.inc();
      this.log.error({ err: payload.error, restart: payload.restart }, "consumer crashed");
      if (payload.restart) return;
      if (!this.running || accessFailureOf(payload.error) !== undefined) this.onFatal?.(payload.error);
      else this.restart.onCrash(payload);
    });
    await this.consumer.connect();
    await this.consumer.subscribe({ topic: topics.observations, fromBeginning: true });
    await this.consumer.run({
      autoCommit: false,
      eachBatchAutoResolve: false,
      // Partitions are independent (state, producer, transaction): a batch need not wait behind another partition's commit.
      partitionsConsumedConcurrently: this.config.concurrency ?? this.correlationPartitions,
      eachBatch: async ({ batch, resolveOffset, heartbeat, isRunning, isStale }) => {
        try {
          await this.batch(batch, resolveOffset, heartbeat, isRunning, isStale);
        } catch (error) {
          // kafkajs retries the batch, rejoins the group or restarts the consumer, and says nothing of it
          // below its own warnings: the reason is logged here, once per failed try.
          this.log.warn(
            {
              partition: batch.partition,
              firstOffset: batch.firstOffset(),
              err: error,
              code: (error as { code?: string }).code,
            },
            "batch failed: kafkajs tries it again, after a rejoin or a restart of the consumer when the error asks for one",
          );
          throw error;
        }
      },
    });
  }

  /** One fetched batch of a partition, in chunks of `maxBatch`: each chunk one transaction (transaction.ts). */
  private async batch(
    batch: Batch,
    resolveOffset: (offset: string) => void,
    heartbeat: () => Promise<void>,
    isRunning: () => boolean,
    isStale: () => boolean,
  ): Promise<void> {
    for (let i = 0; i < batch.messages.length && isRunning() && !isStale(); i += this.config.maxBatch) {
      const chunk = batch.messages.slice(i, i + this.config.maxBatch);
      // The group membership is kept while the chunk waits for its partition's lock (a re-examination in
      // its transaction) and through every step of its own: each may take up to the step timeout, far
      // longer than the session.
      const taken = await whileBeating(
        this.group.exclusive(batch.partition, () => this.transactions.transact(batch.partition, chunk, heartbeat)),
        heartbeat,
        this.config.heartbeatMs,
      );
      if (taken > 0) resolveOffset((chunk[taken - 1] as KafkaMessage).offset);
      await heartbeat();
      if (taken < chunk.length) {
        // The memory budget is reached, or a probe waits for its card: the rest waits, unresolved, and
        // is fetched again after a pause.
        await whileBeating(
          new Promise((resolve) => setTimeout(resolve, waitForRoomMs)),
          heartbeat,
          this.config.heartbeatMs,
        );
        break;
      }
    }
    this.metrics.lag.set({ partition: String(batch.partition) }, Number(batch.offsetLag()));
  }

  /** Finishes the batch in hand (or aborts it), leaves the group, closes every client. */
  async stop(): Promise<void> {
    if (!this.running) return;
    this.running = false;
    this.restart.cancel();
    clearInterval(this.recheckTimer);
    await this.consumer.disconnect().catch(() => undefined);
    await this.group.stop();
    // Every batch in hand committed or aborted (an abort dropped its partition's state): what is left
    // is the changelog as committed, and a local snapshot lets the next restore read only what follows.
    try {
      const written = this.store?.writeSnapshots() ?? [];
      if (written.length > 0)
        this.log.info({ partitions: written, dir: this.config.stateDir }, "local state snapshots written");
    } catch (error) {
      this.log.warn({ err: error }, "local state snapshots not written: the next restore reads the changelog whole");
    }
    await this.capabilities.stop().catch(() => undefined);
    await this.policies?.stop().catch(() => undefined);
    await this.admin.disconnect().catch(() => undefined);
    this.log.info("reconciler stopped");
  }
}
