/**
 * The dispatcher: a consumer group on the commands topic (read_committed, offsets committed by hand)
 * that carries out each command once, keyed by its decision id in the journal.
 *
 * Per record: decode (poison is kept in the journal, logged, counted and skipped) → the journal row is
 * begun *before* anything is sent → the command is carried out through the worker's proxy → the
 * dispatcher's observations are written into the row (status `dispatched`) → they are sent to the ledger
 * through the ingest API → the row is `done` → only then is the record's offset committed. What a
 * redelivery (a crash, a rebalance, a replay) finds in the journal decides what happens:
 *
 * | row found     | re-dispatch                                         | probe                           |
 * |---------------|-----------------------------------------------------|---------------------------------|
 * | none          | carried out                                         | carried out                     |
 * | `started`     | carried out (nothing had been sent)                 | carried out                     |
 * | `sending`     | `abandoned`, alert DISPATCHER_OUTCOME_UNKNOWN: never sent twice | run again (canaries are the dispatcher's own tasks) |
 * | `dispatched`  | its observations are sent again (same eventIds), then `done` | same                   |
 * | final         | nothing (counted as duplicate)                      | nothing                         |
 */
import {
  type AccessFailure,
  accessFailureOf,
  ConsumerRestart,
  createKafka,
  processClientConfig,
  type Consumer,
  type KafkaMessage,
} from "@a2a-ledger/kafka";
import { IngestClient, IngestRejectedError, type ObservationInput } from "@a2a-ledger/ingest-client";
import type { Logger } from "@a2a-ledger/logging";
import { Serde } from "@a2a-ledger/schemas/serde";
import { CanaryWatch } from "./canary-watch.ts";
import { decodeCommand, type Command, type ProbeCommand, type RedispatchCommand } from "./command-record.ts";
import type { DispatcherConfig } from "./config.ts";
import { DispatchAlert, errorCatalogue, PoisonCommandError, type AlertCode } from "./errors.ts";
import { finalStatuses, Journal, type CommandRow } from "./journal.ts";
import type { DispatcherMetrics } from "./metrics.ts";
import { cardObserved, probeCompleted, probeCorrelationOf } from "./observations.ts";
import { runProbe } from "./probe.ts";
import { runRedispatch } from "./redispatch.ts";
import { workerBaseOf } from "./worker-client.ts";
import type { WorkerConfig } from "./worker-config.ts";

class StoppingError extends Error {
  override name = "StoppingError";
}

const blockingAlerts: ReadonlySet<AlertCode> = new Set([
  "DISPATCHER_WORKER_NOT_CONFIGURED",
  "DISPATCHER_SKILL_NOT_CONFIGURED",
]);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export interface Source {
  topic: string;
  partition: number;
  offset: string;
}

/** The points of a command's dispatch a hook sees: after "sending" is journaled, after the worker answered, after "dispatched" is journaled. */
export const dispatchPoints = ["before-send", "after-send", "after-dispatched"] as const;
export type DispatchPoint = (typeof dispatchPoints)[number];

/**
 * What a caller may run at the points of a command's dispatch. The service's entry point passes none;
 * the crash tests' entry point (`test/held-dispatcher.ts`) holds the process at one point so that a test
 * kills it exactly there. Not configuration: no setting of a deployment reaches it.
 */
export interface DispatchHooks {
  reached?(point: DispatchPoint, at: { decisionId: string; status: string | undefined }): Promise<void>;
}

/** Thrown before anything is sent when a later delivery of the command owns it (journal.claimSending). */
class SupersededDelivery extends Error {
  override name = "SupersededDelivery";
}

export class Dispatcher {
  readonly journal: Journal;
  readonly canaries: CanaryWatch;
  private readonly serde: Serde;
  private readonly ingest: IngestClient;
  private consumer: Consumer | undefined;
  private running = false;
  private stopping = false;
  private flushing: Promise<void> = Promise.resolve();
  /** The operator's retries and the journal's retention, on timers of their own. */
  private housekeeping: NodeJS.Timeout[] = [];
  private retrying: Promise<void> = Promise.resolve();
  /** Workers' own base URLs: configured, or learned from the card URLs of probe commands. */
  private readonly workerUrls = new Map<string, string>();

  constructor(
    private readonly config: DispatcherConfig,
    private readonly log: Logger,
    private readonly metrics: DispatcherMetrics,
    private readonly hooks: DispatchHooks = {},
  ) {
    this.journal = new Journal(config.journalPath);
    this.serde = new Serde(config.registryUrl, undefined, processClientConfig().registry);
    this.ingest = new IngestClient({
      baseUrl: config.ingestUrl,
      token: config.ingestToken ?? undefined,
      maxRetries: 3,
      maxBackoffMs: 2_000,
    });
    for (const worker of config.workers.workers.values())
      if (worker.workerUrl !== null) this.workerUrls.set(worker.workerId, worker.workerUrl);
    this.restart = new ConsumerRestart({
      crashed: () => this.consumer,
      run: () => this.runConsumer(),
      giveUp: (error) => this.stopping || this.accessFailure !== undefined || this.refusedBy(error) !== undefined,
      name: "the command consumer",
      log: this.log,
      restarts: this.metrics.consumerRestarts,
    });
    this.canaries = new CanaryWatch({
      journal: this.journal,
      ingest: this.ingest,
      workers: config.workers,
      metrics,
      log,
      intervalMs: config.canaryPollMs,
      workerUrlOf: (id) => this.workerUrls.get(id) ?? null,
    });
  }

  get isRunning(): boolean {
    return this.running;
  }

  /** Why Kafka refuses this service (credentials, certificate, ACL), when it does; /healthz says so. */
  accessFailure: AccessFailure | undefined;

  /** The access failure behind `error`, recorded; undefined when it is another error. */
  refusedBy(error: unknown): AccessFailure | undefined {
    const failure = accessFailureOf(error, {
      topics: [this.config.topics.commands],
      groupId: this.config.groupId,
      client: processClientConfig(),
    });
    if (failure !== undefined) {
      this.accessFailure = failure;
      this.log.error({ code: failure.code, resource: failure.resource }, failure.message);
    }
    return failure;
  }

  async start(): Promise<void> {
    // Observations a crash left unrecorded: their commands may never be delivered again. Sent beside the
    // consumer, so a ledger that is still down does not keep the dispatcher from starting.
    this.flushing = this.recordAwaiting().catch((error: unknown) =>
      this.log.error({ err: error }, "could not record the observations a previous run left"),
    );
    this.prune();
    await this.runConsumer();
    this.canaries.start();
    // After the rows a previous run left `dispatched` are recorded, so that none is sent twice at start.
    this.retrying = this.flushing.then(() => this.retryRequested());
    this.housekeeping.push(
      setInterval(() => {
        this.retrying = this.retrying.then(() => this.retryRequested());
      }, this.config.retryPollMs),
      setInterval(
        () => this.prune(),
        Math.min(3_600_000, Math.max(1_000, Math.floor(this.config.journalRetentionMs / 10))),
      ),
    );
    for (const timer of this.housekeeping) timer.unref();
    this.log.info(
      {
        groupId: this.config.groupId,
        topic: this.config.topics.commands,
        workers: [...this.config.workers.workers.keys()],
        journal: this.journal.path,
      },
      "dispatcher started",
    );
  }

  /** A consumer kafkajs gave up on is run again (the journal makes a redelivery safe); not after Kafka refused the service. */
  private readonly restart: ConsumerRestart;

  private async runConsumer(): Promise<void> {
    const consumer = createKafka({
      brokers: this.config.brokers,
      clientId: `a2a-ledger-dispatcher-${this.config.instanceId}`,
    }).consumer({
      groupId: this.config.groupId,
      readUncommitted: false,
      sessionTimeout: this.config.sessionTimeoutMs,
      maxWaitTimeInMs: 250,
      // A broker fault can end in an error kafkajs does not deem retriable; the journal makes a restart safe.
      retry: { restartOnFailure: async () => true },
    });
    this.consumer = consumer;
    consumer.on(consumer.events.GROUP_JOIN, ({ payload }) => {
      this.restart.settled();
      const partitions = payload.memberAssignment[this.config.topics.commands] ?? [];
      this.log.info(
        { groupId: this.config.groupId, topic: this.config.topics.commands, partitions },
        "partitions assigned",
      );
    });
    // Lag per partition, from the batches kafkajs fetches: what waits from a batch's first record on while
    // it is handled, what is left behind its last one once it is done.
    consumer.on(consumer.events.START_BATCH_PROCESS, ({ payload }) =>
      this.metrics.lag.set({ partition: String(payload.partition) }, Number(payload.offsetLagLow) + 1),
    );
    consumer.on(consumer.events.END_BATCH_PROCESS, ({ payload }) =>
      this.metrics.lag.set({ partition: String(payload.partition) }, Math.max(0, Number(payload.offsetLag))),
    );
    consumer.on(consumer.events.CRASH, ({ payload }) => {
      this.running = payload.restart;
      if (!payload.restart && this.refusedBy(payload.error) !== undefined) return;
      this.log.error({ err: payload.error, restart: payload.restart }, "command consumer crashed");
      this.restart.onCrash(payload);
    });
    await consumer.connect();
    await consumer.subscribe({ topic: this.config.topics.commands, fromBeginning: this.config.fromBeginning });
    await consumer.run({
      autoCommit: false,
      partitionsConsumedConcurrently: this.config.concurrency,
      eachMessage: async ({ topic, partition, message, heartbeat }) => {
        const beat = setInterval(() => void heartbeat().catch(() => undefined), 3_000);
        try {
          await this.handleRecord({ topic, partition, offset: message.offset }, message);
        } finally {
          clearInterval(beat);
        }
        await consumer.commitOffsets([{ topic, partition, offset: (BigInt(message.offset) + 1n).toString() }]);
      },
    });
    this.running = true;
  }

  async stop(): Promise<void> {
    this.stopping = true;
    this.running = false;
    this.restart.cancel();
    for (const timer of this.housekeeping.splice(0)) clearInterval(timer);
    await this.canaries.stop();
    await this.flushing;
    await this.retrying;
    await this.consumer
      ?.disconnect()
      .catch((error: unknown) => this.log.warn({ err: error }, "consumer did not disconnect cleanly"));
    this.journal.close();
    this.log.info("dispatcher stopped");
  }

  /** One record of the commands topic: poison is kept and skipped; a command is carried out at most once. */
  async handleRecord(source: Source, message: Pick<KafkaMessage, "key" | "value">): Promise<void> {
    let command: Command;
    try {
      command = await decodeCommand(this.serde, message);
    } catch (error) {
      if (!(error instanceof PoisonCommandError)) throw error;
      this.journal.reject(source, error.reason, error.message, message.value);
      this.metrics.poison.inc({ reason: error.reason });
      this.log.error({ code: error.reason, ...source, detail: error.message }, errorCatalogue[error.reason].message);
      return;
    }
    await this.execute(command, source);
  }

  async execute(command: Command, source: Source): Promise<void> {
    const workerId = command.type === "RedispatchCommanded" ? command.targetWorkerId : command.workerId;
    const { row, isNew } = this.journal.begin(
      { decisionId: command.decisionId, kind: command.type, correlationId: command.correlationId, workerId },
      `${source.topic}/${source.partition}@${source.offset}`,
      command,
    );
    if (!isNew) {
      const next = this.onRedelivery(command, row);
      if (next === "record") await this.record(command.decisionId, command.type, row.observations);
      if (next !== "run") return;
    }
    const stopTimer = this.metrics.commandSeconds.startTimer({ kind: command.type });
    try {
      const worker = workerId === null ? undefined : this.config.workers.workers.get(workerId);
      if (worker === undefined)
        throw new DispatchAlert(
          "DISPATCHER_WORKER_NOT_CONFIGURED",
          `worker ${workerId ?? "(none)"} is not in the workers file${this.config.workersFile === null ? " (A2A_LEDGER_DISPATCHER_WORKERS_FILE is not set)" : ` ${this.config.workersFile}`}`,
        );
      const claim = () => {
        if (!this.journal.claimSending(command.decisionId, row.deliveries)) throw new SupersededDelivery();
      };
      const { observations, serverTaskIds } = await this.whileUnreachable(command, () =>
        command.type === "RedispatchCommanded"
          ? this.redispatch(command, worker, claim)
          : this.probe(command, worker, claim),
      );
      await this.holdForTest("after-send", command);
      this.journal.mark(command.decisionId, "dispatched", { observations, serverTaskIds });
      await this.holdForTest("after-dispatched", command);
      await this.record(command.decisionId, command.type, observations);
    } catch (error) {
      if (error instanceof SupersededDelivery) {
        // A later delivery of the same command (another dispatcher sharing the journal) carries it out.
        this.metrics.commands.inc({ kind: command.type, outcome: "duplicate" });
        this.log.info(
          { decisionId: command.decisionId, delivery: row.deliveries },
          "a later delivery of this command carries it out: not sent by this one",
        );
        return;
      }
      if (!(error instanceof DispatchAlert)) throw error;
      const status = blockingAlerts.has(error.code)
        ? "blocked"
        : error.code === "DISPATCHER_OUTCOME_UNKNOWN"
          ? "abandoned"
          : "failed";
      this.journal.mark(command.decisionId, status, { detail: `${error.code}: ${error.message}` });
      this.alert(error.code, command, error.message);
      this.metrics.commands.inc({ kind: command.type, outcome: status });
      if (command.type === "ProbeRequested") this.metrics.probes.inc({ worker: workerId ?? "", outcome: status });
    } finally {
      stopTimer();
    }
  }

  /**
   * Runs `attempt` again, with backoff up to 5 s, while it fails before anything was sent for a cause that
   * may pass (a `transient` alert: the worker's proxy restarting, a 5xx), for at most `unavailableRetryMs`.
   * At-most-once holds: nothing reached the worker. A stop meanwhile leaves the command unfinished in the
   * journal (not failed), so the next start carries it out.
   */
  private async whileUnreachable<T>(command: Command, attempt: () => Promise<T>): Promise<T> {
    const deadline = Date.now() + this.config.unavailableRetryMs;
    for (let tries = 1; ; tries++) {
      try {
        return await attempt();
      } catch (error) {
        if (!(error instanceof DispatchAlert) || !error.transient || Date.now() >= deadline) throw error;
        if (this.stopping)
          throw new Error(`stopping while ${command.decisionId} waits for its worker: ${error.message}`);
        const waitMs = Math.min(5_000, 250 * 2 ** Math.min(tries - 1, 5), Math.max(0, deadline - Date.now()));
        this.log.warn(
          { decisionId: command.decisionId, code: error.code, detail: error.message, tries, waitMs },
          "the worker could not be reached before anything was sent: trying again",
        );
        this.metrics.unreachableRetries.inc({ kind: command.type });
        await new Promise((r) => setTimeout(r, waitMs));
        if (this.stopping)
          throw new Error(`stopping while ${command.decisionId} waits for its worker: ${error.message}`);
      }
    }
  }

  /** What a redelivered command's journal row allows (see the table above). */
  private onRedelivery(command: Command, row: CommandRow): "run" | "record" | "skip" {
    if (finalStatuses.has(row.status)) {
      this.metrics.commands.inc({ kind: command.type, outcome: "duplicate" });
      this.log.info(
        { decisionId: command.decisionId, status: row.status, deliveries: row.deliveries },
        "command already handled: not carried out again",
      );
      return "skip";
    }
    if (row.status === "dispatched") return "record";
    if (row.status === "sending" && command.type === "RedispatchCommanded") {
      const detail = `a previous delivery was sending message to ${row.workerId ?? "?"} when the dispatcher stopped; whether the worker got it is unknown, so it is not sent again`;
      this.journal.mark(command.decisionId, "abandoned", { detail: `DISPATCHER_OUTCOME_UNKNOWN: ${detail}` });
      this.alert("DISPATCHER_OUTCOME_UNKNOWN", command, detail);
      this.metrics.commands.inc({ kind: command.type, outcome: "abandoned" });
      return "skip";
    }
    this.log.info(
      { decisionId: command.decisionId, status: row.status, deliveries: row.deliveries },
      "command interrupted before it completed: carrying it out again",
    );
    return "run";
  }

  private workerUrlOf(worker: WorkerConfig): string | null {
    return worker.workerUrl ?? this.workerUrls.get(worker.workerId) ?? null;
  }

  private async redispatch(
    command: RedispatchCommand,
    worker: WorkerConfig,
    claim: () => void,
  ): Promise<{ observations: ObservationInput[]; serverTaskIds: string[] }> {
    const outcome = await runRedispatch(
      command,
      worker,
      this.workerUrlOf(worker),
      this.config.dispatchTimeoutMs,
      async () => {
        claim();
        await this.holdForTest("before-send", command);
      },
    );
    this.metrics.dispatches.inc({ worker: worker.workerId });
    this.log.info(
      {
        decisionId: command.decisionId,
        correlationId: command.correlationId,
        workerId: worker.workerId,
        attempt: command.attempt,
        messageId: outcome.messageId,
        serverTaskId: outcome.serverTaskId,
      },
      "re-dispatched",
    );
    return {
      observations: outcome.observations,
      serverTaskIds: outcome.serverTaskId === null ? [] : [outcome.serverTaskId],
    };
  }

  private async probe(
    command: ProbeCommand,
    worker: WorkerConfig,
    claim: () => void,
  ): Promise<{ observations: ObservationInput[]; serverTaskIds: string[] }> {
    const learned = workerBaseOf(command.cardUrl);
    if (worker.workerUrl === null && learned !== null) this.workerUrls.set(worker.workerId, learned);
    claim();
    const outcome = await runProbe(command, worker, this.workerUrlOf(worker), {
      canaryTimeoutMs: this.config.probeTimeoutMs,
      log: this.log,
    });
    this.canaries.remember(worker.workerId, outcome.card);
    const correlationId = probeCorrelationOf(worker.workerId);
    const observations: ObservationInput[] = [];
    const { card } = outcome;
    if (card.worker !== null && card.hash !== null)
      observations.push(
        cardObserved(command.decisionId, worker.workerId, correlationId, {
          ...card,
          worker: card.worker,
          hash: card.hash,
        }),
      );
    for (const result of outcome.results) {
      observations.push(probeCompleted(command, worker.workerId, outcome.probedHash, result));
      if (result.parked !== null) {
        this.journal.park({
          workerId: worker.workerId,
          serverTaskId: result.parked.serverTaskId,
          skillId: result.skillId,
          state: result.parked.state,
          cardHash: outcome.probedHash,
          correlationId,
          decisionId: command.decisionId,
          parkedAt: result.endedAt,
        });
      }
    }
    this.metrics.parkedCanaries.set(this.journal.parkedCanaries().length);
    this.metrics.probes.inc({ worker: worker.workerId, outcome: "done" });
    this.log.info(
      {
        decisionId: command.decisionId,
        workerId: worker.workerId,
        cardHash: outcome.probedHash,
        cardChanged: outcome.cardChanged,
        skills: outcome.results.map((r) => ({
          skillId: r.skillId,
          states: r.statesObserved,
          reobservable: r.reobservable,
          modes: r.emittedModes,
          parked: r.parked,
        })),
        skipped: outcome.skipped,
      },
      "probe completed",
    );
    return {
      observations,
      serverTaskIds: outcome.results.flatMap((r) => (r.parked === null ? [] : [r.parked.serverTaskId])),
    };
  }

  /**
   * Carries out what an operator asked to retry (`npm run retry`): a failed recording is sent again (the
   * row went back to `dispatched`), a command blocked by the configuration is carried out again from the
   * command kept in its row, against the workers file this process read at start.
   */
  async retryRequested(): Promise<void> {
    try {
      for (const row of this.journal.awaitingRecording()) {
        if (this.stopping) return;
        if (!row.detail?.startsWith("retry requested")) continue;
        this.log.info(
          { decisionId: row.decisionId, observations: row.observations.length },
          "recording again at the operator's request",
        );
        await this.record(row.decisionId, row.kind, row.observations);
      }
      for (const row of this.journal.retryRequested()) {
        if (this.stopping) return;
        if (!this.journal.claimRetry(row.decisionId)) continue;
        this.log.info(
          { decisionId: row.decisionId, kind: row.kind, workerId: row.workerId },
          "carrying out again at the operator's request",
        );
        await this.execute(row.command as Command, { topic: "retry", partition: -1, offset: "-1" });
      }
    } catch (error) {
      if (error instanceof StoppingError) return;
      this.log.error({ err: error }, "could not carry out the retries an operator asked for");
    }
  }

  /** Removes the journal's finished rows older than the retention. */
  prune(): void {
    try {
      const removed = this.journal.prune(this.config.journalRetentionMs);
      if (removed.commands + removed.canaries + removed.rejected > 0)
        this.log.info(
          { ...removed, retentionMs: this.config.journalRetentionMs },
          "removed finished journal rows older than the retention",
        );
    } catch (error) {
      this.log.error({ err: error }, "could not prune the journal");
    }
  }

  private async recordAwaiting(): Promise<void> {
    for (const row of this.journal.awaitingRecording()) {
      try {
        await this.record(row.decisionId, row.kind, row.observations);
      } catch (error) {
        if (!(error instanceof StoppingError)) throw error;
        return;
      }
    }
  }

  /**
   * Sends the observations until the ledger acknowledges them (the same objects, so the same eventIds),
   * then marks the command done. Stopping leaves the row `dispatched`: the next start sends them again.
   */
  private async record(decisionId: string, kind: Command["type"], observations: ObservationInput[]): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      try {
        if (observations.length > 0) await this.ingest.send(observations);
        this.journal.mark(decisionId, "done");
        this.metrics.observationsRecorded.inc(observations.length);
        this.metrics.commands.inc({ kind, outcome: "done" });
        return;
      } catch (error) {
        if (error instanceof IngestRejectedError) {
          this.journal.mark(decisionId, "failed", { detail: `DISPATCHER_RECORDING_REJECTED: ${error.message}` });
          this.metrics.alerts.inc({ code: "DISPATCHER_RECORDING_REJECTED" });
          this.metrics.commands.inc({ kind, outcome: "failed" });
          this.log.error(
            { alert: "DISPATCHER_RECORDING_REJECTED", decisionId, details: error.details },
            errorCatalogue.DISPATCHER_RECORDING_REJECTED.message,
          );
          return;
        }
        this.metrics.recordingFailures.inc();
        if (this.stopping)
          throw new StoppingError(
            `stopping with the observations of ${decisionId} unrecorded; they are sent at the next start`,
          );
        this.log.warn({ err: error, decisionId, attempt }, "the ledger did not acknowledge the observations: retrying");
        await sleep(Math.min(10_000, 500 * 2 ** Math.min(attempt, 5)));
      }
    }
  }

  /** A hook at `point` of a command's dispatch (none in a deployment: see DispatchHooks). */
  private async holdForTest(point: DispatchPoint, command: Command): Promise<void> {
    await this.hooks.reached?.(point, {
      decisionId: command.decisionId,
      status: this.journal.get(command.decisionId)?.status,
    });
  }

  private alert(code: AlertCode, command: Command, detail: string): void {
    this.metrics.alerts.inc({ code });
    const workerId = command.type === "RedispatchCommanded" ? command.targetWorkerId : command.workerId;
    this.log.error(
      {
        alert: code,
        kind: command.type,
        decisionId: command.decisionId,
        correlationId: command.correlationId,
        workerId,
        detail,
      },
      errorCatalogue[code].message,
    );
  }
}
