/**
 * The reconciler: a consumer group on the observations running the rules per partition with
 * transactional read-process-write. Decisions, commands, capability snapshots, changelog updates,
 * dead letters and the consumed offsets of one batch commit in one Kafka transaction, under one
 * transactional id per input partition (kafkajs sends no group generation with the offsets, so the
 * transactional id is what fences a zombie that lost the partition).
 */
import { createDecider, type Decider, type LedgerState } from "@a2a-ledger/core";
import { accessFailureOf, type Admin, type Consumer, createKafka, type Kafka, type Producer, sendByPartition, topicSpecs, type Transaction } from "@a2a-ledger/kafka";
import { createLogger, type Logger } from "@a2a-ledger/logging";
import type { Decision, Observation } from "@a2a-ledger/schemas";
import { Serde } from "@a2a-ledger/schemas/serde";
import type { KafkaMessage, RetryOptions } from "kafkajs";
import { type BatchItem, processBatch } from "./batch.ts";
import { CapabilityFollower } from "./capability-follower.ts";
import { PolicyFollower } from "./policy-follower.ts";
import { type PartitionStates, restoreChangelog } from "./changelog.ts";
import type { ReconcilerConfig } from "./config.ts";
import { PoisonRecordError, RejoinGroupError, TransactionOutcomeUnknownError, withinDeadline } from "./errors.ts";
import { ReconcilerMetrics } from "./metrics.ts";
import { classifyDecodeError, deadLetter } from "./poison.ts";


/**
 * Retry settings of the transactional producers (merged over the client's). Right after a commit the
 * coordinator answers the next transaction's AddPartitionsToTxn with CONCURRENT_TRANSACTIONS until
 * its commit markers are written, a few milliseconds; kafkajs retries that with its general backoff,
 * which starts at 300 ms. Starting at 10 ms with ten attempts keeps about the same total patience (some 10 s).
 */
export const transactionalProducerRetry: RetryOptions = { initialRetryTime: 10, retries: 10, maxRetryTime: 30_000 };

/** Awaits `work`, calling `heartbeat` every `everyMs` meanwhile (its failures are left to the consumer). */
export async function whileBeating<T>(work: Promise<T>, heartbeat: () => Promise<void>, everyMs: number): Promise<T> {
  const timer = setInterval(() => void heartbeat().catch(() => undefined), everyMs);
  try {
    return await work;
  } finally {
    clearInterval(timer);
  }
}

export class Reconciler {
  readonly metrics = new ReconcilerMetrics();
  private readonly kafka: Kafka;
  private readonly serde: Serde;
  private readonly decider: Decider;
  private admin!: Admin;
  private consumer!: Consumer;
  private capabilities!: CapabilityFollower;
  private policies!: PolicyFollower;
  /** One transactional producer per input partition, created once even when batches race for it. */
  private readonly producers = new Map<number, Promise<Producer>>();
  private states: PartitionStates = new Map();
  /** The changelog restore in progress, if any: concurrent partitions wait for one restore. */
  private restoring: Promise<void> | undefined;
  private assigned = new Set<number>();
  /** Moves on every rebalance and assignment: work begun in an older one must not produce. */
  private membership = 0;
  /** Whether a producer may be initialised: only after an assignment, until a rebalance or a failed transaction. */
  private mayInitialise = false;
  private running = false;

  /** Blocked correlations per partition: re-examined whenever the capability table changes. */
  private readonly blocked = new Map<number, Set<string>>();
  /** The capability table version each partition's blocked correlations were last re-examined at. */
  private readonly recheckedAt = new Map<number, number>();
  /** One piece of work per partition at a time: a batch, or a re-examination. */
  private readonly locks = new Map<number, Promise<unknown>>();
  private recheckTimer: NodeJS.Timeout | undefined;
  /** Work in progress per partition: when it began and the last stage it finished, for the stall warning. */
  private readonly working = new Map<number, { since: number; after: string; warned: number }>();

  constructor(private readonly config: ReconcilerConfig, private readonly log: Logger = createLogger("reconciler")) {
    this.kafka = createKafka({ brokers: config.brokers, clientId: `a2a-ledger-reconciler-${config.instanceId}` });
    this.partitionCounts = new Map(topicSpecs(config.topics).map((t) => [t.name, t.partitions]));
    this.serde = new Serde(config.registryUrl);
    this.decider = createDecider(config.ruleSet);
  }

  /** Called when the consumer crashed for good (kafkajs will not restart it), e.g. Kafka refused an ACL. */
  onFatal: ((error: unknown) => void) | undefined;

  /** Partitions of each output topic, as the topics are created in code. */
  private readonly partitionCounts: Map<string, number>;

  private partitionsOf(topic: string): number {
    const count = this.partitionCounts.get(topic);
    if (count === undefined) throw new Error(`${topic} is not one of the ledger's topics`);
    return count;
  }

  get isRunning(): boolean {
    return this.running;
  }

  async start(): Promise<void> {
    const { topics, groupId } = this.config;
    this.admin = this.kafka.admin();
    await this.admin.connect();
    this.capabilities = new CapabilityFollower(this.kafka, this.admin, topics.capabilities, this.serde, groupId);
    await this.capabilities.start();
    this.policies = new PolicyFollower(this.kafka, this.admin, topics.policy, this.serde, groupId, this.log);
    await this.policies.start(this.config.policy.trustedVendors, this.config.instanceId);
    this.consumer = this.kafka.consumer({
      groupId, readUncommitted: false, allowAutoTopicCreation: false, maxWaitTimeInMs: 100, sessionTimeout: this.config.sessionTimeoutMs, heartbeatInterval: this.config.heartbeatMs, rebalanceTimeout: 30_000,
      // kafkajs gives up on a consumer after an error it does not deem retriable (a fenced producer, an
      // unknown commit outcome): the process would live on without consuming. Every failure restarts it
      // (rejoin, committed offsets, state restored), which is what the transaction's outcome needs.
      // Except when Kafka refuses this service (credentials, certificate, ACL): no restart cures that (main.ts exits 3 naming it).
      retry: { restartOnFailure: async (error: Error) => accessFailureOf(error) === undefined },
    });
    this.consumer.on(this.consumer.events.GROUP_JOIN, ({ payload }) => void this.onAssignment(payload.memberAssignment[topics.observations] ?? []));
    // A rebalance takes every partition away until the next assignment (kafkajs rebalances eagerly):
    // from this moment another instance may own them, and an idle re-examination must not fence it.
    this.consumer.on(this.consumer.events.REBALANCING, () => {
      this.membership++;
      this.mayInitialise = false;
      this.assigned = new Set();
    });
    this.consumer.on(this.consumer.events.CRASH, ({ payload }) => {
      if (payload.restart) this.metrics.consumerRestarts.inc();
      this.log.error({ err: payload.error, restart: payload.restart }, "consumer crashed");
      if (!payload.restart) this.onFatal?.(payload.error);
    });
    await this.consumer.connect();
    await this.consumer.subscribe({ topic: topics.observations, fromBeginning: true });
    await this.consumer.run({
      autoCommit: false,
      eachBatchAutoResolve: false,
      // Partitions are independent (state, producer, transaction): a batch need not wait behind another partition's commit.
      partitionsConsumedConcurrently: this.config.concurrency,
      eachBatch: async ({ batch, resolveOffset, heartbeat, isRunning, isStale }) => {
        for (let i = 0; i < batch.messages.length && isRunning() && !isStale(); i += this.config.maxBatch) {
          const chunk = batch.messages.slice(i, i + this.config.maxBatch);
          await this.exclusive(batch.partition, () => this.transact(batch.partition, chunk, heartbeat));
          resolveOffset((chunk[chunk.length - 1] as KafkaMessage).offset);
          await heartbeat();
        }
        this.metrics.lag.set({ partition: String(batch.partition) }, Number(batch.offsetLag()));
      },
    });
    this.running = true;
    this.recheckTimer = setInterval(() => {
      void this.recheckIdle();
      this.warnStalled();
    }, this.config.recheckMs);
    this.recheckTimer.unref();
    this.log.info({ groupId, instanceId: this.config.instanceId, rulesVersion: this.decider.rulesVersion, input: topics.observations }, "reconciler started");
  }

  /**
   * A new assignment: every partition starts afresh, its producer initialised again (which fences any
   * other instance that held it meanwhile) and its state restored from the changelog. A partition this
   * instance keeps may still have had another owner in between — after this instance was thrown out of
   * the group without noticing, for one — so nothing held from before the assignment is trusted.
   */
  private onAssignment(partitions: number[]): void {
    const now = new Set(partitions);
    for (const [partition, producer] of this.producers) {
      this.producers.delete(partition);
      // After the partition's work in hand, which may still commit with it (or be fenced).
      void this.exclusive(partition, async () => (await producer).disconnect()).catch(() => undefined);
    }
    for (const partition of [...this.states.keys()]) this.dropState(partition);
    this.assigned = now;
    this.membership++;
    this.mayInitialise = true;
    this.log.info({ partitions: [...now].sort((a, b) => a - b) }, "partitions assigned");
  }

  private producerFor(partition: number): Promise<Producer> {
    let producer = this.producers.get(partition);
    if (producer === undefined) {
      if (!this.mayInitialise || !this.assigned.has(partition)) return Promise.reject(new RejoinGroupError(`partition ${partition} has no producer and its assignment is not fresh`));
      const { groupId, topics } = this.config;
      const created = this.kafka.producer({ transactionalId: `${groupId}.${topics.observations}.${partition}`, idempotent: true, maxInFlightRequests: 1, retry: transactionalProducerRetry });
      // Connecting initialises the transactional id: a zombie's open transaction is aborted here.
      producer = withinDeadline(created.connect(), "producer initialisation", this.config.transactionStepTimeoutMs).then(() => created, (error: unknown) => {
        void created.disconnect().catch(() => undefined);
        throw error;
      });
      producer.catch(() => this.producers.delete(partition));
      this.producers.set(partition, producer);
    }
    return producer;
  }

  /**
   * State of a partition, restored from the changelog the first time after an assignment. A restore
   * takes as long as the changelog is large: `heartbeat` (the batch's) keeps the group membership
   * while it reads, so a large restore does not cost the partitions it is restoring.
   */
  private async statesOf(partition: number, heartbeat: () => Promise<void> = async () => undefined): Promise<Map<string, LedgerState>> {
    for (;;) {
      const known = this.states.get(partition);
      if (known !== undefined) return known;
      if (this.restoring === undefined) {
        this.restoring = this.restore(partition).finally(() => (this.restoring = undefined));
      }
      await whileBeating(this.restoring, heartbeat, this.config.heartbeatMs);
    }
  }

  /** Restores every assigned partition without state (at least `partition`) in one read of the changelog. */
  private async restore(partition: number): Promise<void> {
    const pending = new Set([...this.assigned].filter((p) => !this.states.has(p)));
    pending.add(partition);
    this.log.info({ partitions: [...pending].sort((a, b) => a - b) }, "restoring state from the changelog");
    // Fence every previous owner first, so its open transactions are resolved before the read.
    await Promise.all([...pending].map((p) => this.producerFor(p)));
    const { states: restored, upTo } = await restoreChangelog(this.kafka, this.admin, this.config.topics.changelog, pending, this.config.groupId, this.decider);
    for (const [p, states] of restored) {
      this.states.set(p, states);
      this.blocked.set(p, new Set([...states].filter(([, s]) => this.decider.isBlocked(s)).map(([id]) => id)));
      // Restored blocked correlations are re-examined against the table as it is now.
      this.recheckedAt.delete(p);
    }
    this.metrics.restores.inc();
    this.log.info({ partitions: [...pending], correlations: [...restored.values()].reduce((n, m) => n + m.size, 0), upTo }, "state restored from the changelog");
  }

  private async decode(message: KafkaMessage): Promise<Observation> {
    if (message.value === null) throw new PoisonRecordError("RECONCILER_UNDECODABLE", "tombstone (null value)");
    let decoded: Awaited<ReturnType<Serde["decode"]>>;
    try {
      decoded = await this.serde.decode(message.value);
    } catch (error) {
      const poison = classifyDecodeError(error);
      if (poison === undefined) throw error;
      throw poison;
    }
    if (decoded.group !== "observations") throw new PoisonRecordError("RECONCILER_NOT_AN_OBSERVATION", `a ${decoded.typeName} record`);
    const observation = decoded.record as Observation;
    if (message.key?.toString("utf8") !== observation.correlationId) {
      throw new PoisonRecordError("RECONCILER_KEY_MISMATCH", `key ${JSON.stringify(message.key?.toString("utf8") ?? null)}, correlationId ${JSON.stringify(observation.correlationId)}`);
    }
    return observation;
  }

  private dropState(partition: number): void {
    this.states.delete(partition);
    this.blocked.delete(partition);
    this.recheckedAt.delete(partition);
  }

  /** Runs `work` for a partition after the work already queued for it. */
  private exclusive<T>(partition: number, work: () => Promise<T>): Promise<T> {
    const previous = this.locks.get(partition) ?? Promise.resolve();
    const next = previous.catch(() => undefined).then(work).finally(() => this.working.delete(partition));
    this.locks.set(partition, next);
    void next.catch(() => undefined).finally(() => {
      if (this.locks.get(partition) === next) this.locks.delete(partition);
    });
    return next;
  }

  /**
   * Partitions without new observations still re-examine their blocked correlations when another
   * partition's probe changed the capability table: one transaction of decisions and changelog, no offsets.
   */
  private async recheckIdle(): Promise<void> {
    if (!this.running) return;
    const version = this.capabilities.version;
    const membership = this.membership;
    for (const partition of this.assigned) {
      if ((this.blocked.get(partition)?.size ?? 0) === 0 || this.recheckedAt.get(partition) === version) continue;
      await this.exclusive(partition, async () => {
        // Only the owner produces: the partition may have moved while this waited for the lock.
        // And nothing starts once the instance is stopping.
        if (!this.running || this.membership !== membership || !this.assigned.has(partition)) return;
        await this.transact(partition, []);
      }).catch((error: unknown) => this.log.error({ err: error, partition }, "re-examination failed; retried on the next tick"));
    }
  }

  /**
   * One transaction for a partition: `messages` folded (none for a re-examination only), blocked
   * correlations re-examined when the capability table changed since their last look.
   */
  private async transact(partition: number, messages: KafkaMessage[], heartbeat?: () => Promise<void>): Promise<void> {
    const { topics, groupId } = this.config;
    const stage = this.stageClock(partition);
    const states = await this.statesOf(partition, heartbeat);
    const producerPromise = this.producerFor(partition);
    const producer = await producerPromise;
    stage("restore");
    // Decoding needs no capabilities: it runs while the capability table catches up (a round trip).
    // The trust policy too: a version committed before this batch began governs its events (DESIGN §4).
    const caughtUp = Promise.all([this.capabilities.catchUp(), this.policies.catchUp()]);
    caughtUp.catch(() => undefined);
    const items: BatchItem[] = [];
    for (const message of messages) {
      try {
        items.push({ offset: message.offset, observation: await this.decode(message) });
      } catch (error) {
        if (!(error instanceof PoisonRecordError)) throw error;
        items.push({ offset: message.offset, poison: error });
      }
    }
    stage("decode");
    await caughtUp;
    stage("capabilities");
    const version = this.capabilities.version;
    const blocked = this.blocked.get(partition) ?? new Set<string>();
    const recheck = blocked.size > 0 && this.recheckedAt.get(partition) !== version;
    const outcome = processBatch(items, { decider: this.decider, policy: this.policies.history, capabilities: this.capabilities.table, stateOf: (id) => states.get(id), blocked, recheck });
    const byOffset = new Map(messages.map((m) => [m.offset, m]));
    const last = messages[messages.length - 1];
    stage("rules");

    // Decisions and snapshots come from the typed rules, so they fit their schemas: the direct encoder
    // (avsc still refuses a wrong type) saves the registry client's per-record work.
    const encoded = new Map<Decision, Buffer>();
    for (const d of outcome.decisions) encoded.set(d, await this.serde.encodeValidated(d));
    const decisions = outcome.decisions.map((d) => ({ key: d.correlationId, value: encoded.get(d) as Buffer }));
    const commands = outcome.commands.map((d) => ({ key: d.correlationId, value: encoded.get(d) as Buffer }));
    const snapshots: { key: string; value: Buffer }[] = [];
    for (const s of outcome.capabilityUpdates) snapshots.push({ key: s.workerId, value: await this.serde.encodeValidated({ type: "CapabilitySnapshot", ...s }) });
    const changelog = [...outcome.states].map(([correlationId, { serialized }]) => ({ key: correlationId, value: Buffer.from(serialized.buffer, serialized.byteOffset, serialized.byteLength), partition }));
    const dead = outcome.poison.map(({ offset, error }) => deadLetter({ topic: topics.observations, partition }, byOffset.get(offset) as KafkaMessage, error));
    stage("encode");

    if (last === undefined && outcome.decisions.length === 0) {
      this.recheckedAt.set(partition, version);
      return;
    }
    const deadlineMs = this.config.transactionStepTimeoutMs;
    let tx: Transaction | undefined;
    try {
      tx = await withinDeadline(producer.transaction(), "begin", deadlineMs);
      const sends = [
        { topic: topics.decisions, messages: decisions },
        { topic: topics.commands, messages: commands },
        { topic: topics.capabilities, messages: snapshots },
        { topic: topics.changelog, messages: changelog },
        { topic: topics.dlq, messages: dead },
      ].filter((s) => s.messages.length > 0);
      // One send per topic-partition, each acknowledgement checked: kafkajs's multi-partition send can
      // drop or duplicate a partition's records when a leader moves (see @a2a-ledger/kafka partition-send).
      const open = tx;
      const sendAll = async () => {
        for (const { topic, messages: records } of sends) await sendByPartition(open, topic, records, this.partitionsOf(topic), { parallel: false });
      };
      if (sends.length > 0) await withinDeadline(sendAll(), "send", deadlineMs);
      stage("send");
      if (last !== undefined) await withinDeadline(tx.sendOffsets({ consumerGroupId: groupId, topics: [{ topic: topics.observations, partitions: [{ partition, offset: (BigInt(last.offset) + 1n).toString() }] }] }), "offsets", deadlineMs);
      stage("offsets");
      await withinDeadline(tx.commit(), "commit", deadlineMs);
      stage("commit");
    } catch (error) {
      // Whatever failed, the outcome may be unknown (a commit that timed out may still complete): the
      // producer is never used again. The next try creates a new one under the same transactional id,
      // which fences this one (and completes or aborts what it left open), and restores the state from
      // the changelog as committed. An abort is attempted, but never waited for long.
      if (tx !== undefined) await withinDeadline(tx.abort(), "abort", 5_000).catch(() => undefined);
      this.metrics.aborts.inc();
      if (error instanceof TransactionOutcomeUnknownError) this.metrics.unknownOutcomes.inc({ step: error.step });
      if (this.producers.get(partition) === producerPromise) this.producers.delete(partition);
      this.dropState(partition);
      void withinDeadline(producer.disconnect(), "disconnect", 5_000).catch(() => undefined);
      this.log.error({ partition, firstOffset: messages[0]?.offset, err: error, code: (error as { code?: string }).code }, "transaction aborted");
      // No producer is initialised again before the group has assigned the partition afresh.
      this.mayInitialise = false;
      throw new RejoinGroupError(`a transaction of partition ${partition} failed`, error);
    }
    for (const [correlationId, { state }] of outcome.states) {
      states.set(correlationId, state);
      if (this.decider.isBlocked(state)) blocked.add(correlationId);
      else blocked.delete(correlationId);
    }
    this.blocked.set(partition, blocked);
    this.recheckedAt.set(partition, version);
    // What this transaction committed is visible to this partition's next batch at once: a read_committed
    // reader of the topic may not reach it yet (another partition's open transaction holds the stable
    // offset back). The follower skips it when it reads it.
    this.capabilities.applyCommitted(outcome.capabilityUpdates, outcome.cards);
    this.metrics.commits.inc();
    this.log.debug({ partition, from: messages[0]?.offset, to: last?.offset, decisions: decisions.length, changelog: changelog.length }, "transaction committed");
    this.metrics.observations.inc(items.length - outcome.poison.length);
    for (const d of outcome.decisions) this.metrics.decisions.inc({ kind: d.type === "ContractViolation" ? `ContractViolation:${d.kind}` : d.type });
    for (const p of outcome.poison) this.metrics.deadLetters.inc({ reason: p.error.reason });
  }

  /** A stopwatch adding the time since its previous lap to the stage counter named at each lap. */
  private stageClock(partition: number): (stage: string) => void {
    let last = performance.now();
    this.working.set(partition, { since: Date.now(), after: "start", warned: 0 });
    return (name) => {
      const now = performance.now();
      this.metrics.stageSeconds.inc({ stage: name }, (now - last) / 1_000);
      last = now;
      const work = this.working.get(partition);
      if (work !== undefined) work.after = name;
    };
  }

  /** A partition whose work has not finished for a minute is logged (once a minute) with the stage it is past. */
  private warnStalled(): void {
    const now = Date.now();
    for (const [partition, work] of this.working) {
      if (now - work.since < 60_000 || now - work.warned < 60_000) continue;
      work.warned = now;
      this.log.warn({ partition, seconds: Math.round((now - work.since) / 1000), after: work.after }, "partition work stalled");
    }
  }

  /** Finishes the batch in hand (or aborts it), leaves the group, closes every client. */
  async stop(): Promise<void> {
    if (!this.running) return;
    this.running = false;
    clearInterval(this.recheckTimer);
    await this.consumer.disconnect().catch(() => undefined);
    // A re-examination already in its transaction finishes before its producer goes.
    await Promise.allSettled([...this.locks.values()]);
    await Promise.all([...this.producers.values()].map((p) => p.then((producer) => producer.disconnect()).catch(() => undefined)));
    this.producers.clear();
    await this.capabilities.stop().catch(() => undefined);
    await this.policies?.stop().catch(() => undefined);
    await this.admin.disconnect().catch(() => undefined);
    this.log.info("reconciler stopped");
  }
}
