/**
 * The bounded buffer between the proxy and the ledger. Observations are appended in the order they were
 * seen — to the spool on disk (observation-spool.ts) and to the queue in memory — and sent in batches
 * through the ingest client; a batch the ledger did not acknowledge stays at the head and is sent again,
 * the very same objects, so with the same eventIds, after a backoff. What the ledger took is acknowledged
 * in the spool; what a previous run left there is handed in at start and sent first.
 *
 * Bounds: `capacity` observations and `maxBytes` bytes of spooled records waiting. When the ledger stays
 * unreachable for longer than that:
 * - fail-closed (the default): new dispatches are refused (the proxy answers 503) while other traffic
 *   goes on; past twice either bound every recorded request is refused, and only events of streams that
 *   were already open are dropped, each one counted. New dispatches are refused too while the spool
 *   cannot be written (a dispatch whose observations could not survive a crash does not start);
 * - fail-open: everything is forwarded and each observation that does not fit is dropped and counted.
 * An observation the ledger rejects as invalid (400 with details) is dropped, counted and logged; the
 * rest of its batch is sent again. A batch refused by the ledger's rate limit (429) is kept and sent again
 * like one refused with 503: the ingest client waits what Retry-After asks before each of its retries,
 * and the buffer backs off after them; a 429 refuses before anything is produced, so nothing is lost or doubled.
 */
import { IngestRejectedError, IngestUnavailableError, type ObservationInput } from "@a2a-ledger/ingest-client";
import type { Logger } from "@a2a-ledger/logging";
import type { DropReason, ProxyMetrics } from "./metrics.ts";
import type { ObservationSpool, SpoolEntry } from "./observation-spool.ts";

export type FailMode = "closed" | "open";

export interface ObservationSender {
  send(events: readonly ObservationInput[]): Promise<unknown>;
}

export interface BufferOptions {
  sender: ObservationSender;
  /** Where observations are kept until the ledger took them; null keeps them in memory only (unit tests). */
  spool: ObservationSpool | null;
  /** What the spool handed back at start: sent first, in their order. */
  replayed?: readonly SpoolEntry[];
  capacity: number;
  /** Bytes of spooled records waiting before the fail mode applies. */
  maxBytes: number;
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

interface Queued {
  observation: ObservationInput;
  /** The spool's sequence number; null without a spool. */
  seq: number | null;
  bytes: number;
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

export class ObservationBuffer {
  private queue: Queued[] = [];
  private bytes = 0;
  private lastSeq = -1;
  /** Exchanges admitted and not yet finished: each holds one slot against the bounds (see `reserve`). */
  private reserved = 0;
  private batchSize: number;
  private reachable = true;
  private failures = 0;
  /** Sending has stopped (the shutdown grace is over). */
  private stopped = false;
  /** Offers are refused: nothing can offer any more, and the spool is closing. */
  private closed = false;
  private wake: (() => void) | null = null;
  private loop: Promise<void> | null = null;

  constructor(private readonly options: BufferOptions) {
    this.batchSize = options.batchMax;
    options.metrics.bufferCapacity.set(options.capacity);
    options.metrics.bufferCapacityBytes.set(options.maxBytes);
    options.metrics.ledgerReachable.set(1);
    for (const entry of options.replayed ?? []) {
      this.queue.push({ observation: entry.observation, seq: entry.seq, bytes: entry.bytes });
      this.bytes += entry.bytes;
      this.lastSeq = Math.max(this.lastSeq, entry.seq);
    }
    options.metrics.spoolReplayed.inc(this.queue.length);
    this.gauges();
  }

  get length(): number {
    return this.queue.length;
  }

  get ledgerReachable(): boolean {
    return this.reachable;
  }

  /** What /healthz reports. */
  status(): { buffered: number; bufferedBytes: number; ledgerReachable: boolean; spoolFailing: boolean } {
    return {
      buffered: this.queue.length,
      bufferedBytes: this.bytes,
      ledgerReachable: this.reachable,
      spoolFailing: this.options.spool?.failing ?? false,
    };
  }

  private get hardFactor(): number {
    return this.options.failMode === "closed" ? 2 : 1;
  }

  /** Whether the buffer is under `factor` times its bounds; admissions count the slots reserved by exchanges in flight too. */
  private within(factor: number, reserved = 0): boolean {
    return this.queue.length + reserved < factor * this.options.capacity && this.bytes < factor * this.options.maxBytes;
  }

  /** Whether a request may be forwarded now: fail-closed refuses new dispatches at the bounds (or while the spool fails), everything recorded at twice them. */
  admission(newDispatch: boolean): Admission {
    if (this.options.failMode === "open") return "admit";
    if (newDispatch)
      return this.within(1, this.reserved) && !(this.options.spool?.failing ?? false) ? "admit" : "refuse";
    return this.within(this.hardFactor, this.reserved) ? "admit" : "refuse";
  }

  /**
   * Admits a recorded exchange and reserves a slot for it until the returned release is called (when the
   * exchange ends, however it ends), so that exchanges admitted together near a bound cannot overflow it:
   * with K free slots, K concurrent dispatches are admitted and the next one is refused. Null when refused.
   */
  reserve(newDispatch: boolean): (() => void) | null {
    if (this.admission(newDispatch) === "refuse") return null;
    this.reserved++;
    let held = true;
    return () => {
      if (!held) return;
      held = false;
      this.reserved--;
    };
  }

  /** Appends an observation; false (and counted) when it had to be dropped. */
  offer(observation: ObservationInput): boolean {
    this.options.metrics.observations.inc({ type: observation.type });
    if (this.closed) return this.drop(1, "shutdown");
    if (!this.within(this.hardFactor))
      return this.drop(1, this.options.failMode === "open" ? "buffer_full" : "overflow");
    const entry = this.options.spool?.append(observation) ?? { seq: null, bytes: 0 };
    this.queue.push({ observation, seq: entry.seq, bytes: entry.bytes });
    this.bytes += entry.bytes;
    if (entry.seq !== null) this.lastSeq = entry.seq;
    this.gauges();
    this.wake?.();
    return true;
  }

  /** Resolves once every observation offered so far is on disk (at once without a spool). */
  kept(): Promise<void> {
    return this.options.spool?.kept() ?? Promise.resolve();
  }

  start(): void {
    this.loop ??= this.run();
  }

  /**
   * Sends what is buffered for up to `graceMs`, then stops sending (a send in flight is awaited). Offers
   * are still taken, into the spool, until `producersGone` resolves — it ends what can still offer (the
   * servers' open exchanges) — so an exchange that finishes during the shutdown keeps its observations.
   * Then it stops accepting; what is left stays in the spool for the next start (without a spool it is
   * counted as dropped, reason shutdown). Returns how many were left.
   */
  async close(graceMs: number, producersGone: () => Promise<void> = () => Promise.resolve()): Promise<number> {
    const deadline = Date.now() + graceMs;
    while (this.queue.length > 0 && Date.now() < deadline && this.loop !== null)
      await sleep(Math.min(50, Math.max(1, deadline - Date.now())));
    this.stopped = true;
    this.wake?.();
    await this.loop;
    await producersGone();
    this.closed = true;
    const left = this.queue.length;
    if (left > 0 && this.options.spool === null) {
      this.drop(left, "shutdown");
      this.options.log.error({ left }, "observations still buffered when the shutdown grace ended were dropped");
    } else if (left > 0) {
      this.options.log.warn(
        { left },
        "observations still unsent when the shutdown grace ended stay in the spool for the next start",
      );
    }
    await this.options.spool?.close();
    this.queue = [];
    this.bytes = 0;
    this.gauges();
    return left;
  }

  private gauges(): void {
    this.options.metrics.bufferLength.set(this.queue.length);
    this.options.metrics.bufferBytes.set(this.bytes);
  }

  private drop(count: number, reason: DropReason): false {
    this.options.metrics.observationsDropped.inc({ reason }, count);
    return false;
  }

  /** Removes entries from the queue and tells the spool that everything before the new head is done. */
  private settle(keep: (entry: Queued, index: number) => boolean, upTo: number): void {
    const removed = this.queue.slice(0, upTo).filter((e, i) => !keep(e, i));
    this.queue = [...this.queue.slice(0, upTo).filter(keep), ...this.queue.slice(upTo)];
    for (const e of removed) this.bytes -= e.bytes;
    const head = this.queue[0];
    const done = head === undefined ? this.lastSeq : head.seq === null ? -1 : head.seq - 1;
    if (done >= 0) this.options.spool?.acknowledge(done);
    this.gauges();
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
        await this.options.sender.send(batch.map((e) => e.observation));
        this.sent(batch.length);
      } catch (e) {
        await this.failed(batch, e);
      }
    }
  }

  private sent(count: number): void {
    this.settle(() => false, count);
    this.options.metrics.observationsSent.inc(count);
    if (!this.reachable) this.options.log.info({ buffered: this.queue.length }, "the ledger is reachable again");
    this.reachable = true;
    this.failures = 0;
    // A batch size halved for an oversized batch holds until the backlog is through.
    if (this.queue.length === 0) this.batchSize = this.options.batchMax;
    this.options.metrics.ledgerReachable.set(1);
  }

  private async failed(batch: Queued[], e: unknown): Promise<void> {
    if (e instanceof IngestRejectedError && e.status === 400 && e.details.length > 0) {
      const bad = new Set(e.details.map((d) => d.index));
      const rejected = batch.filter((_, i) => bad.has(i));
      this.settle((_, i) => !bad.has(i), batch.length);
      this.drop(rejected.length, "rejected");
      this.options.log.error(
        { code: e.code, details: e.details, eventIds: rejected.map((r) => r.observation.eventId) },
        "the ledger rejected observations as invalid; they are dropped, the rest of the batch is sent again",
      );
      return;
    }
    if (e instanceof IngestRejectedError && e.status === 413) {
      if (batch.length > 1) {
        this.batchSize = Math.max(1, Math.floor(batch.length / 2));
        return;
      }
      this.settle(() => false, 1);
      this.drop(1, "rejected");
      this.options.log.error(
        { code: e.code, eventId: batch[0]?.observation.eventId },
        "the ledger refused an observation as too large; it is dropped",
      );
      return;
    }
    this.failures++;
    this.options.metrics.ingestFailures.inc();
    const rateLimited = e instanceof IngestUnavailableError && e.lastStatus === 429;
    if (rateLimited && this.reachable)
      this.options.log.warn(
        { code: e.lastCode, buffered: this.queue.length },
        "the ledger limits this proxy's request rate (429); observations stay buffered and are sent again after Retry-After",
      );
    else if (this.reachable)
      this.options.log.warn(
        { err: e instanceof Error ? e.message : String(e), buffered: this.queue.length },
        "the ledger is unreachable; observations stay buffered and are retried",
      );
    this.reachable = false;
    this.options.metrics.ledgerReachable.set(0);
    const backoff = Math.min(
      this.options.retryMaxMs,
      this.options.retryInitialMs * 2 ** Math.min(this.failures - 1, 20),
    );
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
