/**
 * The one catalogue of stable error codes of the ingest API. A code never changes meaning once
 * released; clients branch on `code`, humans read `error`.
 */

export interface ErrorDetail {
  /** Position of the event in the batch (0-based); for NDJSON the position among non-blank lines. */
  index: number;
  /** JSON path inside that event, e.g. `parts[0].mediaType`; empty for the event itself. */
  path: string;
  message: string;
}

export interface ErrorBody {
  error: string;
  code: ErrorCode;
  details?: ErrorDetail[];
}

interface CatalogueEntry {
  status: number;
  summary: string;
}

export const errorCatalogue = {
  INGEST_INVALID_EVENT: { status: 400, summary: "At least one event does not match its schema; the whole batch was rejected and nothing was produced." },
  INGEST_MALFORMED_BODY: { status: 400, summary: "The body is not JSON (or NDJSON), not UTF-8, or is empty." },
  INGEST_EMPTY_BATCH: { status: 400, summary: "The batch holds no event." },
  INGEST_UNAUTHORIZED: { status: 401, summary: "Bearer tokens are configured and the request carries no valid one." },
  INGEST_OBSERVER_FORBIDDEN: { status: 403, summary: "The bearer token may not write as the observer an event claims (tokens are bound to observer patterns); the whole batch was rejected and nothing was produced." },
  INGEST_NOT_FOUND: { status: 404, summary: "No such route." },
  INGEST_METHOD_NOT_ALLOWED: { status: 405, summary: "The path exists but does not take this method; the Allow header lists the methods it takes." },
  INGEST_BODY_TOO_LARGE: { status: 413, summary: "The body is larger than the configured byte limit." },
  INGEST_TOO_MANY_EVENTS: { status: 413, summary: "The batch holds more events than the configured limit." },
  INGEST_EVENT_TOO_LARGE: { status: 413, summary: "One encoded event is larger than a Kafka record may be." },
  INGEST_UNSUPPORTED_MEDIA_TYPE: { status: 415, summary: "Only application/json and application/x-ndjson (UTF-8) are accepted." },
  INGEST_BAD_REQUEST: { status: 400, summary: "The HTTP request itself is malformed (headers, content length)." },
  INGEST_KAFKA_UNAVAILABLE: { status: 503, summary: "Kafka did not acknowledge the batch in time; retry with the same eventIds." },
  INGEST_KAFKA_REFUSED: { status: 503, summary: "Kafka refused this service (its credentials, a certificate or an ACL); an operator must fix the configuration. Retry with the same eventIds once fixed." },
  INGEST_REGISTRY_UNAVAILABLE: { status: 503, summary: "The schema registry could not be reached to encode the batch; retry with the same eventIds." },
  INGEST_OVERLOADED: { status: 503, summary: "Too many records are waiting for Kafka; retry later with the same eventIds." },
  INGEST_SHUTTING_DOWN: { status: 503, summary: "The server is draining before it stops; retry on another instance or later." },
  INGEST_INTERNAL: { status: 500, summary: "An unexpected server error; reported in the logs with the request id." },
} as const satisfies Record<string, CatalogueEntry>;

export type ErrorCode = keyof typeof errorCatalogue;

export const errorCodes = Object.keys(errorCatalogue) as ErrorCode[];

/** An error that becomes an HTTP answer with a stable code. */
export class IngestError extends Error {
  override name = "IngestError";
  readonly status: number;

  constructor(
    readonly code: ErrorCode,
    message: string = errorCatalogue[code].summary,
    readonly details?: ErrorDetail[],
    /** Seconds a client should wait before retrying; sent as Retry-After on 503. */
    readonly retryAfterSeconds?: number,
  ) {
    super(message);
    this.status = errorCatalogue[code].status;
  }

  body(): ErrorBody {
    return this.details === undefined ? { error: this.message, code: this.code } : { error: this.message, code: this.code, details: this.details };
  }
}

export const isIngestError = (e: unknown): e is IngestError => e instanceof IngestError;
