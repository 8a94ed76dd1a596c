/**
 * The one catalogue of the dispatcher's stable codes: its HTTP answers, the alerts it raises instead of
 * acting, the reasons a command record is refused as poison, and why it refused to start. Operators
 * alert and filter on these; a code never changes meaning once released. Every entry has the shape of
 * every service's catalogue (@a2a-ledger/env) and says which kind of code it is.
 */
import { defineErrorCatalogue, type ErrorEntry, ConfigError } from "@a2a-ledger/env";

interface CatalogueEntry extends ErrorEntry {
  /** http: an answer of /metrics, /healthz (status set); alert: logged at error level and counted; poison: a command record skipped; config: the process exits 2 (status null for these). */
  kind: "http" | "alert" | "poison" | "config";
}

export const errorCatalogue = defineErrorCatalogue("DISPATCHER", {
  DISPATCHER_NOT_FOUND: {
    kind: "http",
    status: 404,
    message: "No such route: the dispatcher serves GET /metrics, GET /healthz and GET /openapi.json only.",
  },
  DISPATCHER_METHOD_NOT_ALLOWED: { kind: "http", status: 405, message: "The route takes GET (and HEAD) only." },
  DISPATCHER_BAD_REQUEST: { kind: "http", status: 400, message: "The HTTP request itself is malformed." },
  DISPATCHER_UNHEALTHY: {
    kind: "http",
    status: 503,
    message: "The dispatcher is not consuming commands (starting, stopping, or its consumer crashed).",
  },

  DISPATCHER_WORKER_NOT_CONFIGURED: {
    kind: "alert",
    status: null,
    message:
      "A command names a worker the configuration file does not list: nothing was sent (like ReconciliationBlocked, an operator must act).",
  },
  DISPATCHER_SKILL_NOT_CONFIGURED: {
    kind: "alert",
    status: null,
    message:
      'The worker is configured but has no message for the command\'s skill (nor a "*" entry): nothing was sent.',
  },
  DISPATCHER_CARD_UNAVAILABLE: {
    kind: "alert",
    status: null,
    message: "The worker's Agent Card could not be fetched or read through its proxy: nothing was sent.",
  },
  DISPATCHER_INTERFACE_OUTSIDE_PROXY: {
    kind: "alert",
    status: null,
    message:
      "The card served through the proxy names an interface URL outside the proxy, so a client would bypass it: nothing was sent (run the proxy with A2A_LEDGER_PROXY_REWRITE_CARD_URLS=true).",
  },
  DISPATCHER_DISPATCH_REFUSED: {
    kind: "alert",
    status: null,
    message: "The worker (or its proxy) answered the re-dispatch with an error: the task was not taken.",
  },
  DISPATCHER_OUTCOME_UNKNOWN: {
    kind: "alert",
    status: null,
    message:
      "The re-dispatch was sent but no answer was read (timeout, connection lost, or a crash while it was in flight): it is never sent again; check the ledger for the dispatch's messageId.",
  },
  DISPATCHER_PROBE_FAILED: {
    kind: "alert",
    status: null,
    message: "A probe could not run any canary of the worker to its end: no ProbeCompleted was recorded.",
  },
  DISPATCHER_RECORDING_REJECTED: {
    kind: "alert",
    status: null,
    message: "The ingest API rejected the dispatcher's observations as invalid: they were not recorded.",
  },

  DISPATCHER_UNDECODABLE: {
    kind: "poison",
    status: null,
    message: "The command record is not Confluent wire-format Avro (or has no value).",
  },
  DISPATCHER_UNKNOWN_SCHEMA: {
    kind: "poison",
    status: null,
    message: "The record's schema id is unknown to the registry, or its bytes do not decode with it.",
  },
  DISPATCHER_NOT_A_COMMAND: {
    kind: "poison",
    status: null,
    message: "The record decodes but is neither RedispatchCommanded nor ProbeRequested.",
  },
  DISPATCHER_KEY_MISMATCH: {
    kind: "poison",
    status: null,
    message: "The record key is not the command's correlationId.",
  },
  DISPATCHER_INVALID_COMMAND: {
    kind: "poison",
    status: null,
    message: "The command's fields cannot be executed (no worker, an attempt below 1, an id with control characters).",
  },

  DISPATCHER_CONFIG_INVALID: {
    kind: "config",
    status: null,
    message: "An environment variable or the worker configuration file is invalid; every problem is listed.",
  },
} as const satisfies Record<string, CatalogueEntry>);

export type DispatcherCode = keyof typeof errorCatalogue;
export type AlertCode = {
  [K in DispatcherCode]: (typeof errorCatalogue)[K]["kind"] extends "alert" ? K : never;
}[DispatcherCode];
export type PoisonReason = {
  [K in DispatcherCode]: (typeof errorCatalogue)[K]["kind"] extends "poison" ? K : never;
}[DispatcherCode];
export type HttpCode = {
  [K in DispatcherCode]: (typeof errorCatalogue)[K]["kind"] extends "http" ? K : never;
}[DispatcherCode];

export const codesOfKind = (kind: CatalogueEntry["kind"]): DispatcherCode[] =>
  (Object.keys(errorCatalogue) as DispatcherCode[]).filter((c) => errorCatalogue[c].kind === kind);

/** The configuration is invalid: the one ConfigError of every service, under this service's code. */
export const configError = (problems: readonly string[]): ConfigError =>
  new ConfigError("dispatcher", "DISPATCHER_CONFIG_INVALID" satisfies DispatcherCode, problems);

/** A command record that cannot be executed; skipped with its reason, never retried. */
export class PoisonCommandError extends Error {
  override name = "PoisonCommandError";
  constructor(
    readonly reason: PoisonReason,
    detail: string,
  ) {
    super(`${reason}: ${detail}`);
  }
}

/** A command the dispatcher decided not to (or could not) carry out; logged as an alert and counted. */
export class DispatchAlert extends Error {
  override name = "DispatchAlert";
  constructor(
    readonly code: AlertCode,
    detail: string,
    /** Nothing was sent and the cause may pass (the worker's proxy unreachable, 5xx, 429): worth trying again. */
    readonly transient = false,
  ) {
    super(detail);
  }
}
