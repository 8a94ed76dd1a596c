/**
 * Typed client of the ingest API for orchestrators, workers and proxies that record observations.
 *
 * - Batches: `send` splits events into requests of at most `maxBatchEvents`, in order.
 * - Retries: the same request body (so the same eventIds) after a 503, a 5xx, a 429 or a network
 *   failure, with exponential backoff and jitter, waiting at least what `Retry-After` asks.
 *   Consumers de-duplicate by eventId, so a retry of a batch that did land is harmless.
 * - Never retries other 4xx: the batch is wrong and will stay wrong; it throws IngestRejectedError
 *   with the server's stable code and per-event details (indexes relative to the `send` call).
 */
import type { ObservationInput } from "./observation-input.ts";

export interface ErrorDetail {
  index: number;
  path: string;
  message: string;
}

export interface IngestClientOptions {
  /** e.g. http://127.0.0.1:18090 */
  baseUrl: string;
  token?: string;
  /** Events per request; default 500. */
  maxBatchEvents?: number;
  /** Retries per request after the first attempt; default 8. */
  maxRetries?: number;
  /** First backoff; doubles per retry up to maxBackoffMs. Default 200 ms. */
  initialBackoffMs?: number;
  maxBackoffMs?: number;
  /** Upper bound on a Retry-After the client honours; default 60 s. */
  maxRetryAfterMs?: number;
  /** Per-attempt timeout; default 30 s. */
  timeoutMs?: number;
  fetch?: typeof fetch;
  sleep?: (ms: number) => Promise<void>;
  random?: () => number;
}

export class IngestRejectedError extends Error {
  override name = "IngestRejectedError";
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details: ErrorDetail[],
    /** Index in the `send` call of the first event of the rejected request. */
    readonly batchOffset: number,
  ) {
    super(`${status} ${code}: ${message}`);
  }
}

export class IngestUnavailableError extends Error {
  override name = "IngestUnavailableError";
  constructor(
    message: string,
    readonly attempts: number,
    /** Events acknowledged before this request failed; the rest were not (or not surely) recorded. */
    readonly acceptedBefore: number,
    readonly lastStatus: number | undefined,
    readonly lastCode: string | undefined,
  ) {
    super(message);
  }
}

export interface SendResult {
  accepted: number;
  requests: number;
  retries: number;
}

const retryableStatus = (status: number): boolean => status === 429 || status >= 500;

/** Retry-After in ms: delta-seconds or an HTTP date; undefined when absent or unreadable. */
export function retryAfterMs(header: string | null, now: number = Date.now()): number | undefined {
  if (header === null || header.trim() === "") return undefined;
  const trimmed = header.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  const date = Date.parse(trimmed);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

interface ErrorBody {
  error?: unknown;
  code?: unknown;
  details?: unknown;
}

async function readJson(response: Response): Promise<unknown> {
  const text = await response.text();
  try {
    return JSON.parse(text);
  } catch {
    return { error: text.slice(0, 300) };
  }
}

export class IngestClient {
  private readonly options: Required<Omit<IngestClientOptions, "token">> & { token: string | undefined };

  constructor(options: IngestClientOptions) {
    this.options = {
      baseUrl: options.baseUrl.replace(/\/+$/, ""),
      token: options.token,
      maxBatchEvents: options.maxBatchEvents ?? 500,
      maxRetries: options.maxRetries ?? 8,
      initialBackoffMs: options.initialBackoffMs ?? 200,
      maxBackoffMs: options.maxBackoffMs ?? 10_000,
      maxRetryAfterMs: options.maxRetryAfterMs ?? 60_000,
      timeoutMs: options.timeoutMs ?? 30_000,
      fetch: options.fetch ?? globalThis.fetch,
      sleep: options.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms))),
      random: options.random ?? Math.random,
    };
    if (!Number.isInteger(this.options.maxBatchEvents) || this.options.maxBatchEvents < 1)
      throw new RangeError("maxBatchEvents must be a positive integer");
  }

  /** Records the events in order; resolves when every batch was acknowledged (202). */
  async send(events: readonly ObservationInput[]): Promise<SendResult> {
    const result: SendResult = { accepted: 0, requests: 0, retries: 0 };
    for (let offset = 0; offset < events.length; offset += this.options.maxBatchEvents) {
      const batch = events.slice(offset, offset + this.options.maxBatchEvents);
      const { accepted, attempts } = await this.post(JSON.stringify(batch), offset, result.accepted);
      result.accepted += accepted;
      result.requests += 1;
      result.retries += attempts - 1;
    }
    return result;
  }

  /** The backoff before retry number `retry` (1-based): full jitter over an exponential ceiling, at least Retry-After. */
  backoffMs(retry: number, retryAfter: number | undefined): number {
    const ceiling = Math.min(this.options.maxBackoffMs, this.options.initialBackoffMs * 2 ** (retry - 1));
    const jittered = ceiling / 2 + (this.options.random() * ceiling) / 2;
    return Math.max(jittered, Math.min(retryAfter ?? 0, this.options.maxRetryAfterMs));
  }

  private async post(
    body: string,
    offset: number,
    acceptedBefore: number,
  ): Promise<{ accepted: number; attempts: number }> {
    const headers: Record<string, string> = { "content-type": "application/json" };
    if (this.options.token !== undefined) headers["authorization"] = `Bearer ${this.options.token}`;
    let lastStatus: number | undefined;
    let lastCode: string | undefined;
    let lastMessage = "";
    for (let attempt = 1; attempt <= this.options.maxRetries + 1; attempt++) {
      let retryAfter: number | undefined;
      try {
        const response = await this.options.fetch(`${this.options.baseUrl}/v1/observations`, {
          method: "POST",
          headers,
          body,
          signal: AbortSignal.timeout(this.options.timeoutMs),
        });
        const payload = (await readJson(response)) as ErrorBody & { accepted?: unknown };
        if (response.status === 202)
          return { accepted: typeof payload.accepted === "number" ? payload.accepted : 0, attempts: attempt };
        lastStatus = response.status;
        lastCode = typeof payload.code === "string" ? payload.code : undefined;
        lastMessage = typeof payload.error === "string" ? payload.error : response.statusText;
        if (!retryableStatus(response.status)) {
          const details = Array.isArray(payload.details)
            ? (payload.details as ErrorDetail[]).map((d) => ({ ...d, index: d.index + offset }))
            : [];
          throw new IngestRejectedError(
            response.status,
            lastCode ?? `HTTP_${response.status}`,
            lastMessage,
            details,
            offset,
          );
        }
        retryAfter = retryAfterMs(response.headers.get("retry-after"));
      } catch (e) {
        if (e instanceof IngestRejectedError) throw e;
        lastMessage = e instanceof Error ? e.message : String(e);
        lastStatus = undefined;
        lastCode = undefined;
      }
      if (attempt <= this.options.maxRetries) await this.options.sleep(this.backoffMs(attempt, retryAfter));
    }
    throw new IngestUnavailableError(
      `ingest did not accept the batch after ${this.options.maxRetries + 1} attempts: ${lastStatus ?? "network"} ${lastCode ?? ""} ${lastMessage}`.trim(),
      this.options.maxRetries + 1,
      acceptedBefore,
      lastStatus,
      lastCode,
    );
  }
}
