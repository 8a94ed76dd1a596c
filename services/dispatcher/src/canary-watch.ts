/**
 * The parked canaries, re-polled on an interval with GetTask from a fresh client, through the worker's
 * proxy under the canary's probe correlation. A canary that answers TaskNotFound was lost by the worker
 * (a restart of a worker that keeps tasks in memory): `TaskNotFoundObserved` is recorded for it, which
 * is how the ledger learns that a card claiming a durable store was wrong (R9). A canary seen in a
 * terminal state (someone ended it) is no longer parked. Anything else — the worker or proxy down, a
 * timeout — is tried again next round. The parked set lives in the journal, so it survives a restart.
 */
import { taskStateToJSON } from "@a2a-js/sdk";
import { TaskNotFoundError } from "@a2a-js/sdk/errors";
import { isTerminal, normalizeTaskState } from "@a2a-ledger/core";
import type { IngestClient } from "@a2a-ledger/ingest-client";
import type { Logger } from "@a2a-ledger/logging";
import type { Journal, ParkedCanaryRow } from "./journal.ts";
import type { DispatcherMetrics } from "./metrics.ts";
import { canaryLost } from "./observations.ts";
import { callOptions, clientOf, fetchCard, type FetchedCard, type LedgerNames } from "./worker-client.ts";
import type { WorkersConfig } from "./worker-config.ts";

export interface CanaryWatchDeps {
  journal: Journal;
  ingest: IngestClient;
  workers: WorkersConfig;
  metrics: DispatcherMetrics;
  log: Logger;
  intervalMs: number;
  /** The worker's own base URL as learned so far (for recording the card the worker serves). */
  workerUrlOf: (workerId: string) => string | null;
}

export class CanaryWatch {
  private timer: NodeJS.Timeout | undefined;
  private stopping = false;
  private round: Promise<void> | undefined;
  /** Cards per worker: polling builds fresh clients from them without fetching the card every round. */
  private readonly cards = new Map<string, FetchedCard>();

  constructor(private readonly deps: CanaryWatchDeps) {}

  /** A card just fetched for this worker (by a probe): used for the next polls. */
  remember(workerId: string, card: FetchedCard): void {
    this.cards.set(workerId, card);
  }

  start(): void {
    this.deps.metrics.parkedCanaries.set(this.deps.journal.parkedCanaries().length);
    const tick = () => {
      this.round = this.pollAll().finally(() => {
        if (!this.stopping) this.timer = setTimeout(tick, this.deps.intervalMs);
      });
    };
    this.timer = setTimeout(tick, this.deps.intervalMs);
  }

  async stop(): Promise<void> {
    this.stopping = true;
    clearTimeout(this.timer);
    await this.round;
  }

  /** One round over every parked canary (sequential: a handful of GetTasks). */
  async pollAll(): Promise<void> {
    const parked = this.deps.journal.parkedCanaries();
    for (const canary of parked) {
      if (this.stopping) break;
      await this.poll(canary);
    }
    this.deps.metrics.parkedCanaries.set(this.deps.journal.parkedCanaries().length);
  }

  private async cardOf(canary: ParkedCanaryRow, url: string, names: LedgerNames): Promise<FetchedCard> {
    const known = this.cards.get(canary.workerId);
    if (known !== undefined) return known;
    const card = await fetchCard(url, this.deps.workerUrlOf(canary.workerId), names, 10_000);
    this.cards.set(canary.workerId, card);
    return card;
  }

  private async poll(canary: ParkedCanaryRow): Promise<void> {
    const { journal, metrics, log } = this.deps;
    const worker = this.deps.workers.workers.get(canary.workerId);
    if (worker === undefined) {
      metrics.canaryPolls.inc({ outcome: "worker_not_configured" });
      return;
    }
    const names: LedgerNames = { correlationId: canary.correlationId, skillId: canary.skillId };
    let client;
    try {
      client = await clientOf(await this.cardOf(canary, worker.url, names), worker.transport);
    } catch (error) {
      this.cards.delete(canary.workerId);
      metrics.canaryPolls.inc({ outcome: "unreachable" });
      log.debug({ err: error, workerId: canary.workerId }, "canary poll: no client");
      return;
    }
    try {
      const task = await client.getTask(
        { tenant: "", id: canary.serverTaskId, historyLength: 0 },
        callOptions(names, 10_000),
      );
      const state = normalizeTaskState(taskStateToJSON(task.status?.state ?? 0));
      const ended = state !== null && isTerminal(state);
      journal.canaryPolled(
        canary.workerId,
        canary.serverTaskId,
        state ?? "TASK_STATE_UNSPECIFIED",
        ended ? "ended" : "parked",
      );
      metrics.canaryPolls.inc({ outcome: ended ? "ended" : "parked" });
      if (ended)
        log.info(
          { workerId: canary.workerId, serverTaskId: canary.serverTaskId, state },
          "parked canary ended: no longer polled",
        );
    } catch (error) {
      if (!(error instanceof TaskNotFoundError)) {
        // The worker restarting, its proxy down, a timeout: not evidence of anything; next round.
        this.cards.delete(canary.workerId);
        metrics.canaryPolls.inc({ outcome: "unreachable" });
        log.debug({ err: error, workerId: canary.workerId }, "canary poll failed");
        return;
      }
      const errorCode = client.transport.protocolName === "HTTP+JSON" ? "404" : "-32001";
      try {
        await this.deps.ingest.send([canaryLost(canary, errorCode, Date.now())]);
      } catch (recordError) {
        metrics.recordingFailures.inc();
        log.warn(
          { err: recordError, workerId: canary.workerId, serverTaskId: canary.serverTaskId },
          "canary lost, but the ledger did not take the observation yet: next round",
        );
        return;
      }
      journal.canaryPolled(canary.workerId, canary.serverTaskId, `TaskNotFound ${errorCode}`, "lost");
      metrics.canaryPolls.inc({ outcome: "lost" });
      metrics.canariesLost.inc({ worker: canary.workerId });
      metrics.observationsRecorded.inc();
      log.warn(
        {
          workerId: canary.workerId,
          serverTaskId: canary.serverTaskId,
          parkedIn: canary.state,
          correlationId: canary.correlationId,
        },
        "parked canary answered TaskNotFound: the worker lost a task it had left waiting",
      );
    }
  }
}
