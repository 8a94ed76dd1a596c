/**
 * The one catalogue of the projector's stable codes: HTTP errors (clients branch on `code`, humans
 * read `error`), the reasons a record of an input topic could not be projected (kept in the DLQ view),
 * and the configuration error. A code never changes meaning once released. Every entry has the shape of
 * every service's catalogue (@a2a-ledger/env).
 */
import { CatalogueError, codesOf, defineErrorCatalogue, errorBody, ConfigError } from "@a2a-ledger/env";

export const errorCatalogue = defineErrorCatalogue("PROJECTOR", {
  PROJECTOR_UNAUTHORIZED: {
    status: 401,
    message: "Read tokens are configured (A2A_LEDGER_PROJECTOR_TOKENS) and the request carries no valid bearer token.",
  },
  PROJECTOR_NOT_FOUND: { status: 404, message: "No such route." },
  PROJECTOR_UNKNOWN_TASK: { status: 404, message: "No correlation with this id is in the views." },
  PROJECTOR_UNKNOWN_WORKER: { status: 404, message: "No worker with this id is in the views." },
  PROJECTOR_WORKER_NOT_VERIFIED: {
    status: 409,
    message: "The worker is known, but no probe verified anything of its card in force yet: there is no verified card.",
  },
  PROJECTOR_BAD_ID: {
    status: 400,
    message: "The id in the path is empty, longer than 512 characters, or holds control characters.",
  },
  PROJECTOR_BAD_FILTER: {
    status: 400,
    message:
      "A query parameter has a value it cannot have (unknown status or kind, a malformed time, a limit out of range).",
  },
  PROJECTOR_UNKNOWN_PARAMETER: {
    status: 400,
    message: "A query parameter this route does not know, or one given twice.",
  },
  PROJECTOR_BAD_CURSOR: {
    status: 400,
    message: "The cursor was not issued by this service for this query, or was altered.",
  },
  PROJECTOR_BAD_REQUEST: { status: 400, message: "The HTTP request itself is malformed." },
  PROJECTOR_METHOD_NOT_ALLOWED: {
    status: 405,
    message: "The route exists but not for this method; the API is read-only.",
  },
  PROJECTOR_RATE_LIMITED: {
    status: 429,
    message:
      "This read token (or, without tokens, this client address) sent more requests than A2A_LEDGER_PROJECTOR_RATE_LIMIT per window; retry after Retry-After seconds.",
  },
  PROJECTOR_TOO_MANY_STREAMS: { status: 503, message: "Too many live streams are open on this instance; retry later." },
  PROJECTOR_UNAVAILABLE: { status: 503, message: "The database did not answer; retry later." },
  PROJECTOR_INTERNAL: { status: 500, message: "An unexpected server error; reported in the logs with the request id." },
});

export type ErrorCode = keyof typeof errorCatalogue;
export const errorCodes = codesOf(errorCatalogue);

export interface ErrorBody {
  error: string;
  code: ErrorCode;
  /** The query parameter or path segment at fault, when one is. */
  parameter?: string;
}

/** An error that becomes an HTTP answer with a stable code. */
export class ProjectorError extends CatalogueError<ErrorCode> {
  override name = "ProjectorError";
  constructor(
    code: ErrorCode,
    message: string = errorCatalogue[code].message,
    readonly parameter?: string,
  ) {
    super(errorCatalogue, code, message);
  }
  body(): ErrorBody {
    return this.parameter === undefined ? errorBody(this) : { ...errorBody(this), parameter: this.parameter };
  }
}

/** Why a record of an input topic could not be projected; it is kept in the DLQ view with the code. */
export const poisonReasons = defineErrorCatalogue("PROJECTOR", {
  PROJECTOR_UNDECODABLE: {
    status: null,
    message: "the value is not a Confluent wire-format Avro record (or is empty)",
  },
  PROJECTOR_UNKNOWN_SCHEMA: { status: null, message: "the schema id is unknown or the bytes do not decode with it" },
  PROJECTOR_WRONG_TOPIC: { status: null, message: "the record decodes, but is not a type this topic carries" },
  PROJECTOR_KEY_MISMATCH: {
    status: null,
    message: "the record key is not the record's correlationId (or workerId on the capabilities topic)",
  },
  PROJECTOR_UNSTORABLE_TEXT: {
    status: null,
    message:
      "a text field holds a NUL character, which PostgreSQL text cannot store (refused on every store, so both hold the same views)",
  },
});

/** Why the projector refused to start. */
export const configErrors = defineErrorCatalogue("PROJECTOR", {
  PROJECTOR_CONFIG_INVALID: { status: null, message: "An environment variable is invalid; every problem is listed." },
});

export type PoisonReason = keyof typeof poisonReasons;

/** The configuration is invalid: the one ConfigError of every service, under this service's code. */
export const configError = (problems: readonly string[]): ConfigError =>
  new ConfigError("projector", "PROJECTOR_CONFIG_INVALID" satisfies keyof typeof configErrors, problems);
