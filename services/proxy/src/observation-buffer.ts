/**
 * The bounded buffer between the proxy and the ledger. Observations are appended in the order they were
 * seen and sent in batches through the ingest client; a batch the ledger did not acknowledge stays at the
 * head and is sent again, the very same objects, so with the same eventIds, after a backoff.
 *
 * When the ledger stays unreachable for longer than the buffer holds (`capacity` observations waiting):
 * - fail-closed (the default): new dispatches are refused (the proxy answers 503) while other traffic
 *   goes on; past twice the capacity every recorded request is refused, and only events of streams that
 *   were already open are dropped, each one counted;
 * - fail-open: everything is forwarded and each observation that does not fit is dropped and counted.
 * An observation the ledger rejects as invalid (400 with details) is dropped, counted and logged; the
 * rest of its batch is sent again.
 */
import { IngestRejectedError, type ObservationInput } from "@a2a-ledger/ingest-client";
import type { Logger } from "@a2a-ledger/logging";
import type { DropReason, ProxyMetrics } from "./metrics.ts";

export type FailMode = "closed" | "open";

export interface ObservationSender {
  send(events: readonly ObservationInput[]): Promise<unknown>;
}

export interface BufferOptions {
  sender: ObservationSender;
  capacity: number;
  failMode: FailMode;
  /** Most observations per ingest request. */
  batchMax: number;
  /** How long a partial batch waits for more observations. */
  flushDelayMs: number;
  /** Backoff after a failed send: doubles from `retryInitialMs` up to `retryMaxMs`. */
  retryInitialMs: number;
  retryMaxMs: number;
  metrics: ProxyMetrics;
  log: Logger;
}

export type Admission = "admit" | "refuse";

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

export class ObservationBuffer {
  private queue: ObservationInput[] = [];
  private batchSize: number;
  private reachable = true;
  private failures = 0;
  private stopped = false;
  private wake: (() => void) | null = null;
  private loop: Promise<void> | null = null;

  constructor(private readonly options: BufferOptions) {
    this.batchSize = options.batchMax;
    options.metrics.bufferCapacity.set(options.capacity);
    options.metrics.ledgerReachable.set(1);
  }

  get length(): number {
    return this.queue.length;
  }

  get ledgerReachable(): boolean {
    return this.reachable;
  }

  private get hardLimit(): number {
    return this.options.failMode === "closed" ? 2 * this.options.capacity : this.options.capacity;
  }

  /** Whether a request may be forwarded now: fail-closed refuses new dispatches at capacity, everything recorded at twice it. */
  admission(newDispatch: boolean): Admission {
    if (this.options.failMode === "open") return "admit";
    return this.queue.length < (newDispatch ? this.options.capacity : this.hardLimit) ? "admit" : "refuse";
  }

  /** Appends an observation; false (and counted) when it had to be dropped. */
  offer(observation: ObservationInput): boolean {
    this.options.metrics.observations.inc({ type: observation.type });
    if (this.stopped) return this.drop([observation], "shutdown");
    if (this.queue.length >= this.hardLimit) return this.drop([observation], this.options.failMode === "open" ? "buffer_full" : "overflow");
    this.queue.push(observation);
    this.options.metrics.bufferLength.set(this.queue.length);
    this.wake?.();
    return true;
  }

  start(): void {
    this.loop ??= this.run();
  }

  /**
   * Stops accepting, sends what is buffered for up to `graceMs`, then stops; what is left is counted as
   * dropped (reason shutdown) and returned.
   */
  async close(graceMs: number): Promise<number> {
    const deadline = Date.now() + graceMs;
    while (this.queue.length > 0 && Date.now() < deadline && this.loop !== null) await sleep(Math.min(50, Math.max(1, deadline - Date.now())));
    this.stopped = true;
    this.wake?.();
    await this.loop;
    const left = this.queue.length;
    if (left > 0) {
      this.drop(this.queue, "shutdown");
      this.options.log.error({ left }, "observations still buffered when the shutdown grace ended were dropped");
    }
    this.queue = [];
    this.options.metrics.bufferLength.set(0);
    return left;
  }

  private drop(observations: readonly ObservationInput[], reason: DropReason): false {
    this.options.metrics.observationsDropped.inc({ reason }, observations.length);
    return false;
  }

  private async run(): Promise<void> {
    while (!this.stopped) {
      if (this.queue.length === 0) {
        await new Promise<void>((resolve) => (this.wake = resolve));
        this.wake = null;
        continue;
      }
      if (this.queue.length < this.batchSize && this.options.flushDelayMs > 0) await sleep(this.options.flushDelayMs);
      const batch = this.queue.slice(0, this.batchSize);
      try {
        await this.options.sender.send(batch);
        this.sent(batch.length);
      } catch (e) {
        await this.failed(batch, e);
      }
    }
  }

  private sent(count: number): void {
    this.queue.splice(0, count);
    this.options.metrics.observationsSent.inc(count);
    this.options.metrics.bufferLength.set(this.queue.length);
    if (!this.reachable) this.options.log.info({ buffered: this.queue.length }, "the ledger is reachable again");
    this.reachable = true;
    this.failures = 0;
    // A batch size halved for an oversized batch holds until the backlog is through.
    if (this.queue.length === 0) this.batchSize = this.options.batchMax;
    this.options.metrics.ledgerReachable.set(1);
  }

  private async failed(batch: ObservationInput[], e: unknown): Promise<void> {
    if (e instanceof IngestRejectedError && e.status === 400 && e.details.length > 0) {
      const bad = new Set(e.details.map((d) => d.index));
      const rejected = batch.filter((_, i) => bad.has(i));
      this.queue = [...batch.filter((_, i) => !bad.has(i)), ...this.queue.slice(batch.length)];
      this.drop(rejected, "rejected");
      this.options.metrics.bufferLength.set(this.queue.length);
      this.options.log.error({ code: e.code, details: e.details, eventIds: rejected.map((o) => o.eventId) }, "the ledger rejected observations as invalid; they are dropped, the rest of the batch is sent again");
      return;
    }
    if (e instanceof IngestRejectedError && e.status === 413) {
      if (batch.length > 1) {
        this.batchSize = Math.max(1, Math.floor(batch.length / 2));
        return;
      }
      this.queue.shift();
      this.drop(batch, "rejected");
      this.options.metrics.bufferLength.set(this.queue.length);
      this.options.log.error({ code: e.code, eventId: batch[0]?.eventId }, "the ledger refused an observation as too large; it is dropped");
      return;
    }
    this.failures++;
    this.options.metrics.ingestFailures.inc();
    if (this.reachable) this.options.log.warn({ err: e instanceof Error ? e.message : String(e), buffered: this.queue.length }, "the ledger is unreachable; observations stay buffered and are retried");
    this.reachable = false;
    this.options.metrics.ledgerReachable.set(0);
    const backoff = Math.min(this.options.retryMaxMs, this.options.retryInitialMs * 2 ** Math.min(this.failures - 1, 20));
    await this.sleepUnlessStopped(backoff);
  }

  private async sleepUnlessStopped(ms: number): Promise<void> {
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      this.wake = () => {
        if (this.stopped) {
          clearTimeout(timer);
          resolve();
        }
      };
    });
    this.wake = null;
  }
}
