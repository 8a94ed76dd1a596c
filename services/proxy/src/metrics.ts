/**
 * Prometheus metrics of one proxy (its own registry, so several proxies can live in one process, as in
 * tests). Served at GET /metrics.
 */
import client from "prom-client";

export type DropReason = "buffer_full" | "overflow" | "rejected" | "shutdown";
export type UnrecordedReason =
  | "malformed_jsonrpc"
  | "unreadable_body"
  | "body_too_large"
  | "oversized_event"
  | "encoded_body"
  | "v03_card"
  | "malformed_grpc"
  | "grpc_other";

export interface ProxyMetrics {
  registry: client.Registry;
  requests: client.Counter<"kind" | "method" | "status">;
  upstreamSeconds: client.Histogram<"kind">;
  upstreamErrors: client.Counter<"code">;
  clientDisconnects: client.Counter<string>;
  observations: client.Counter<"type">;
  observationsSent: client.Counter<string>;
  observationsDropped: client.Counter<"reason">;
  unrecorded: client.Counter<"reason">;
  failClosedRejections: client.Counter<string>;
  bufferLength: client.Gauge<string>;
  bufferCapacity: client.Gauge<string>;
  bufferBytes: client.Gauge<string>;
  bufferCapacityBytes: client.Gauge<string>;
  spoolDiskBytes: client.Gauge<string>;
  spoolFailing: client.Gauge<string>;
  spoolReplayed: client.Counter<string>;
  spoolBadRecords: client.Counter<"kind">;
  spoolWriteErrors: client.Counter<string>;
  spoolFsyncSeconds: client.Histogram<string>;
  correlationsRemembered: client.Gauge<string>;
  ledgerReachable: client.Gauge<string>;
  ingestFailures: client.Counter<string>;
  cardsServed: client.Counter<"card" | "reason">;
}

export function createMetrics(options: { defaultMetrics?: boolean } = {}): ProxyMetrics {
  const registry = new client.Registry();
  if (options.defaultMetrics) client.collectDefaultMetrics({ register: registry });
  const registers = [registry];
  return {
    registry,
    requests: new client.Counter({
      name: "a2a_proxy_requests_total",
      help: "Requests answered, by kind (jsonrpc, rest, card, other), A2A method and HTTP status",
      labelNames: ["kind", "method", "status"],
      registers,
    }),
    upstreamSeconds: new client.Histogram({
      name: "a2a_proxy_upstream_response_seconds",
      help: "Time from forwarding a request until the worker's answer began",
      labelNames: ["kind"],
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
      registers,
    }),
    upstreamErrors: new client.Counter({
      name: "a2a_proxy_upstream_errors_total",
      help: "Requests the worker did not answer, by the proxy's error code",
      labelNames: ["code"],
      registers,
    }),
    clientDisconnects: new client.Counter({
      name: "a2a_proxy_client_disconnects_total",
      help: "Clients that went away before their answer was complete",
      registers,
    }),
    observations: new client.Counter({
      name: "a2a_proxy_observations_total",
      help: "Observations recorded (offered to the buffer), by type",
      labelNames: ["type"],
      registers,
    }),
    observationsSent: new client.Counter({
      name: "a2a_proxy_observations_sent_total",
      help: "Observations the ledger acknowledged",
      registers,
    }),
    observationsDropped: new client.Counter({
      name: "a2a_proxy_observations_dropped_total",
      help: "Observations that will never reach the ledger, by reason: buffer_full (fail-open), overflow (fail-closed, past twice the buffer), rejected (the ledger refused them as invalid), shutdown (still buffered when the shutdown grace ended)",
      labelNames: ["reason"],
      registers,
    }),
    unrecorded: new client.Counter({
      name: "a2a_proxy_unrecorded_total",
      help: "Traffic forwarded without observations, by reason",
      labelNames: ["reason"],
      registers,
    }),
    failClosedRejections: new client.Counter({
      name: "a2a_proxy_fail_closed_rejections_total",
      help: "Requests answered 503 because the observation buffer was full (fail-closed)",
      registers,
    }),
    bufferLength: new client.Gauge({
      name: "a2a_proxy_buffer_observations",
      help: "Observations waiting for the ledger",
      registers,
    }),
    bufferCapacity: new client.Gauge({
      name: "a2a_proxy_buffer_capacity",
      help: "Observations the buffer holds before the fail mode applies",
      registers,
    }),
    bufferBytes: new client.Gauge({
      name: "a2a_proxy_buffer_bytes",
      help: "Bytes of spooled records of the observations waiting for the ledger",
      registers,
    }),
    bufferCapacityBytes: new client.Gauge({
      name: "a2a_proxy_buffer_capacity_bytes",
      help: "Bytes of waiting observations the spool holds before the fail mode applies (A2A_LEDGER_PROXY_SPOOL_MAX_BYTES)",
      registers,
    }),
    spoolDiskBytes: new client.Gauge({
      name: "a2a_proxy_spool_disk_bytes",
      help: "Size of the spool's segment files on disk (waiting observations, plus acknowledged ones until their segment is deleted)",
      registers,
    }),
    spoolFailing: new client.Gauge({
      name: "a2a_proxy_spool_failing",
      help: "1 while the spool cannot be written (new dispatches are refused when fail-closed), else 0",
      registers,
    }),
    spoolReplayed: new client.Counter({
      name: "a2a_proxy_spool_replayed_total",
      help: "Observations a previous run left unsent, read back from the spool at start",
      registers,
    }),
    spoolBadRecords: new client.Counter({
      name: "a2a_proxy_spool_bad_records_total",
      help: "Bad spool records found at start: torn (the last record of the newest segment, cut by a crash) or corrupt (anywhere else; the rest of that segment is skipped)",
      labelNames: ["kind"],
      registers,
    }),
    spoolWriteErrors: new client.Counter({
      name: "a2a_proxy_spool_write_errors_total",
      help: "Spool writes or fsyncs that failed",
      registers,
    }),
    spoolFsyncSeconds: new client.Histogram({
      name: "a2a_proxy_spool_write_seconds",
      help: "Time to write and fsync one batch of spool records",
      buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1],
      registers,
    }),
    correlationsRemembered: new client.Gauge({
      name: "a2a_proxy_correlations_remembered",
      help: "Server task ids whose correlation the proxy remembers (A2A_LEDGER_PROXY_CORRELATION_MEMORY at most)",
      registers,
    }),
    ledgerReachable: new client.Gauge({
      name: "a2a_proxy_ledger_reachable",
      help: "1 when the last send to the ledger succeeded, else 0",
      registers,
    }),
    ingestFailures: new client.Counter({
      name: "a2a_proxy_ingest_failures_total",
      help: "Batches the ledger did not acknowledge (each is retried with the same eventIds)",
      registers,
    }),
    cardsServed: new client.Counter({
      name: "a2a_proxy_cards_served_total",
      help: "Agent Cards served with A2A_LEDGER_PROXY_CARD=verified, by card (verified, advertised) and, for the worker's card, the reason (the A2A-Ledger-Card header's)",
      labelNames: ["card", "reason"],
      registers,
    }),
  };
}
