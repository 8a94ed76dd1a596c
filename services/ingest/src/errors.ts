/**
 * The one catalogue of stable error codes of the ingest API. A code never changes meaning once
 * released; clients branch on `code`, humans read `error`. Its shape is every service's (@a2a-ledger/env).
 */
import {
  CatalogueError,
  codesOf,
  defineErrorCatalogue,
  errorBody,
  type ErrorBody as CatalogueErrorBody,
} from "@a2a-ledger/env";

export interface ErrorDetail {
  /** Position of the event in the batch (0-based); for NDJSON the position among non-blank lines. */
  index: number;
  /** JSON path inside that event, e.g. `parts[0].mediaType`; empty for the event itself. */
  path: string;
  message: string;
}

export type ErrorBody = CatalogueErrorBody<ErrorCode, ErrorDetail[]>;

/** Why ingest refused to start. */
export const configErrors = defineErrorCatalogue("INGEST", {
  INGEST_CONFIG_INVALID: {
    status: null,
    message: "An environment variable is invalid; every problem is listed (exit 2).",
  },
});

export const errorCatalogue = defineErrorCatalogue("INGEST", {
  INGEST_INVALID_EVENT: {
    status: 400,
    message: "At least one event does not match its schema; the whole batch was rejected and nothing was produced.",
  },
  INGEST_MALFORMED_BODY: { status: 400, message: "The body is not JSON (or NDJSON), not UTF-8, or is empty." },
  INGEST_EMPTY_BATCH: { status: 400, message: "The batch holds no event." },
  INGEST_UNAUTHORIZED: { status: 401, message: "Bearer tokens are configured and the request carries no valid one." },
  INGEST_OBSERVER_FORBIDDEN: {
    status: 403,
    message:
      "The bearer token may not write as the observer an event claims (tokens are bound to observer patterns); the whole batch was rejected and nothing was produced.",
  },
  INGEST_KIND_FORBIDDEN: {
    status: 403,
    message:
      "The bearer token may not post an event's type (probe results come only from the prober's token, one that may write as dispatcher; an entry's kinds= narrows the rest); the whole batch was rejected and nothing was produced.",
  },
  INGEST_WORKER_FORBIDDEN: {
    status: 403,
    message:
      "The bearer token may not speak about the worker an event names (a proxy's or guard's token speaks only about the workers its observer pattern names; an entry's workers= names them); the whole batch was rejected and nothing was produced.",
  },
  INGEST_NOT_FOUND: { status: 404, message: "No such route." },
  INGEST_METHOD_NOT_ALLOWED: {
    status: 405,
    message: "The path exists but does not take this method; the Allow header lists the methods it takes.",
  },
  INGEST_BODY_TOO_LARGE: { status: 413, message: "The body is larger than the configured byte limit." },
  INGEST_TOO_MANY_EVENTS: { status: 413, message: "The batch holds more events than the configured limit." },
  INGEST_EVENT_TOO_LARGE: { status: 413, message: "One encoded event is larger than a Kafka record may be." },
  INGEST_RATE_LIMITED: {
    status: 429,
    message:
      "This token (or, without tokens, this client address) sent more requests than A2A_LEDGER_INGEST_RATE_LIMIT per window; nothing of the batch was read or produced. Retry with the same eventIds after Retry-After seconds.",
  },
  INGEST_UNSUPPORTED_MEDIA_TYPE: {
    status: 415,
    message: "Only application/json and application/x-ndjson (UTF-8) are accepted.",
  },
  INGEST_BAD_REQUEST: { status: 400, message: "The HTTP request itself is malformed (headers, content length)." },
  INGEST_KAFKA_UNAVAILABLE: {
    status: 503,
    message: "Kafka did not acknowledge the batch in time; retry with the same eventIds.",
  },
  INGEST_KAFKA_REFUSED: {
    status: 503,
    message:
      "Kafka refused this service (its credentials, a certificate or an ACL); an operator must fix the configuration. Retry with the same eventIds once fixed.",
  },
  INGEST_REGISTRY_UNAVAILABLE: {
    status: 503,
    message: "The schema registry could not be reached to encode the batch; retry with the same eventIds.",
  },
  INGEST_OVERLOADED: {
    status: 503,
    message: "Too many records are waiting for Kafka; retry later with the same eventIds.",
  },
  INGEST_SHUTTING_DOWN: {
    status: 503,
    message: "The server is draining before it stops; retry on another instance or later.",
  },
  INGEST_INTERNAL: { status: 500, message: "An unexpected server error; reported in the logs with the request id." },
});

export type ErrorCode = keyof typeof errorCatalogue;

export const errorCodes = codesOf(errorCatalogue);

/** An error that becomes an HTTP answer with a stable code. */
export class IngestError extends CatalogueError<ErrorCode, ErrorDetail[]> {
  override name = "IngestError";

  constructor(
    code: ErrorCode,
    message: string = errorCatalogue[code].message,
    details?: ErrorDetail[],
    /** Seconds a client should wait before retrying; sent as Retry-After on 503 and 429. */
    readonly retryAfterSeconds?: number,
  ) {
    super(errorCatalogue, code, message, details);
  }

  body(): ErrorBody {
    return errorBody(this);
  }
}

export const isIngestError = (e: unknown): e is IngestError => e instanceof IngestError;
