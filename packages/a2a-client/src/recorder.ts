/**
 * The bounded in-memory queue between the client and the ingest API. Recording never holds up or loses
 * the worker's answer: `record` only enqueues (it never throws, never waits); a background loop sends
 * batches through `@a2a-ledger/ingest-client` (which retries a batch itself, with the same eventIds) and,
 * while ingest stays down, keeps the batch at the head and tries again after a growing backoff.
 *
 * What can be lost, and how it is counted:
 * - the queue is full (`capacity` observations waiting): a new observation is dropped (`dropped`);
 * - ingest rejects an observation as invalid (400 with details): that one is dropped (`rejected`), the
 *   rest of its batch is sent again; a rejection without details drops the batch;
 * - the process dies: whatever is still waiting (`pending`) is gone. Call `flush` before exiting; an
 *   orchestrator that must not lose a fact across a crash puts the recording proxy (with its spool on
 *   disk) in front of the worker instead.
 */
import {
  IngestClient,
  IngestRejectedError,
  type IngestClientOptions,
  type ObservationInput,
} from "@a2a-ledger/ingest-client";

export interface ObservationSender {
  send(events: readonly ObservationInput[]): Promise<unknown>;
}

export interface RecorderOptions {
  sender: ObservationSender;
  /** Observations waiting at most; default 10,000. */
  capacity?: number;
  /** Observations per ingest request; default 200. */
  batchMax?: number;
  /** Backoff after a failed batch: doubles from `retryInitialMs` (default 250) up to `retryMaxMs` (default 15,000). */
  retryInitialMs?: number;
  retryMaxMs?: number;
  /** Told of every batch that failed, every rejection and every drop; the queue goes on. */
  onProblem?: (problem: RecordingProblem) => void;
}

export type RecordingProblem =
  | { kind: "unavailable"; error: Error; pending: number }
  | { kind: "rejected"; error: IngestRejectedError; eventIds: string[] }
  | { kind: "dropped"; eventId: string; capacity: number };

export interface RecordingStats {
  /** Waiting to be acknowledged by ingest. */
  pending: number;
  /** Acknowledged by ingest (202). */
  recorded: number;
  /** Refused by ingest as invalid. */
  rejected: number;
  /** Not queued: the queue was full. */
  dropped: number;
  /** Whether the last attempt to send reached ingest. */
  ingestReachable: boolean;
}

const sleep = (ms: number, signal: { wake: (() => void) | null }): Promise<void> =>
  new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    // A backoff does not keep the process alive: what is pending when it exits is lost, as documented.
    timer.unref();
    signal.wake = () => {
      clearTimeout(timer);
      resolve();
    };
  });

export class ObservationRecorder {
  private readonly queue: ObservationInput[] = [];
  private readonly capacity: number;
  private readonly batchMax: number;
  private readonly retryInitialMs: number;
  private readonly retryMaxMs: number;
  private readonly counts = { recorded: 0, rejected: 0, dropped: 0 };
  private reachable = true;
  private loop: Promise<void> | null = null;
  private closed = false;
  private readonly backoff: { wake: (() => void) | null } = { wake: null };
  private drained: (() => void)[] = [];

  constructor(private readonly options: RecorderOptions) {
    this.capacity = options.capacity ?? 10_000;
    this.batchMax = options.batchMax ?? 200;
    this.retryInitialMs = options.retryInitialMs ?? 250;
    this.retryMaxMs = options.retryMaxMs ?? 15_000;
    if (!Number.isInteger(this.capacity) || this.capacity < 1)
      throw new RangeError("capacity must be a positive integer");
    if (!Number.isInteger(this.batchMax) || this.batchMax < 1)
      throw new RangeError("batchMax must be a positive integer");
  }

  /** A recorder sending to the ingest API at `baseUrl`; each batch is tried a few times by the ingest client before the queue's own backoff. */
  static toIngest(
    baseUrl: string,
    options: Omit<RecorderOptions, "sender"> & { ingest?: Omit<IngestClientOptions, "baseUrl"> } = {},
  ): ObservationRecorder {
    const { ingest, ...rest } = options;
    return new ObservationRecorder({
      ...rest,
      sender: new IngestClient({ baseUrl, maxRetries: 2, timeoutMs: 10_000, ...ingest }),
    });
  }

  /** Queues observations in order; returns at once. After `close`, drops them (counted). */
  record(observations: readonly ObservationInput[]): void {
    for (const o of observations) {
      if (this.closed || this.queue.length >= this.capacity) {
        this.counts.dropped += 1;
        this.options.onProblem?.({ kind: "dropped", eventId: o.eventId, capacity: this.capacity });
        continue;
      }
      this.queue.push(o);
    }
    if (this.queue.length > 0 && this.loop === null) this.loop = this.run();
  }

  stats(): RecordingStats {
    return { pending: this.queue.length, ...this.counts, ingestReachable: this.reachable };
  }

  /** Resolves when nothing is pending or `timeoutMs` passed, whichever comes first; a failed batch is tried again at once. */
  async flush(timeoutMs = 30_000): Promise<RecordingStats> {
    if (this.queue.length > 0) {
      this.backoff.wake?.();
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        new Promise<void>((resolve) => this.drained.push(resolve)),
        new Promise<void>((resolve) => (timer = setTimeout(resolve, timeoutMs))),
      ]);
      clearTimeout(timer);
    }
    return this.stats();
  }

  /** Flushes, then stops the loop: what is still pending after `timeoutMs` is lost (and stays counted in `pending`). */
  async close(timeoutMs = 30_000): Promise<RecordingStats> {
    const stats = await this.flush(timeoutMs);
    this.closed = true;
    this.backoff.wake?.();
    return stats;
  }

  private async run(): Promise<void> {
    let failures = 0;
    while (this.queue.length > 0 && !this.closed) {
      const batch = this.queue.slice(0, this.batchMax);
      try {
        await this.options.sender.send(batch);
        this.queue.splice(0, batch.length);
        this.counts.recorded += batch.length;
        this.reachable = true;
        failures = 0;
      } catch (e) {
        if (e instanceof IngestRejectedError) {
          this.reachable = true;
          const bad = new Set(e.details.map((d) => d.index).filter((i) => i >= 0 && i < batch.length));
          const dropped = bad.size === 0 ? batch : batch.filter((_, i) => bad.has(i));
          const keep = bad.size === 0 ? [] : batch.filter((_, i) => !bad.has(i));
          this.queue.splice(0, batch.length, ...keep);
          this.counts.rejected += dropped.length;
          this.options.onProblem?.({ kind: "rejected", error: e, eventIds: dropped.map((o) => o.eventId) });
          continue;
        }
        this.reachable = false;
        failures += 1;
        this.options.onProblem?.({
          kind: "unavailable",
          error: e instanceof Error ? e : new Error(String(e)),
          pending: this.queue.length,
        });
        await sleep(Math.min(this.retryMaxMs, this.retryInitialMs * 2 ** (failures - 1)), this.backoff);
        this.backoff.wake = null;
      }
    }
    this.loop = null;
    if (this.queue.length === 0) for (const resolve of this.drained.splice(0)) resolve();
    // New observations may have arrived while the loop was finishing.
    if (this.queue.length > 0 && !this.closed) this.loop = this.run();
  }
}
