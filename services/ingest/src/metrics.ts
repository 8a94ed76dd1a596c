/**
 * Prometheus metrics of one server instance (its own registry, so several servers can live in one
 * process, as in tests).
 */
import client from "prom-client";

export interface IngestMetrics {
  registry: client.Registry;
  requests: client.Counter<"route" | "method" | "status">;
  eventsAccepted: client.Counter<string>;
  eventsReceived: client.Counter<string>;
  rejects: client.Counter<"code">;
  produceSeconds: client.Histogram<"outcome">;
  batchSize: client.Histogram<string>;
  cardSignatures: client.Counter<"status">;
}

export function createMetrics(options: { defaultMetrics?: boolean } = {}): IngestMetrics {
  const registry = new client.Registry();
  if (options.defaultMetrics) client.collectDefaultMetrics({ register: registry });
  return {
    registry,
    requests: new client.Counter({
      name: "ingest_http_requests_total",
      help: "HTTP requests answered, by route, method and status",
      labelNames: ["route", "method", "status"],
      registers: [registry],
    }),
    eventsReceived: new client.Counter({
      name: "ingest_events_received_total",
      help: "Events in well-formed request bodies, valid or not",
      registers: [registry],
    }),
    eventsAccepted: new client.Counter({
      name: "ingest_events_accepted_total",
      help: "Events acknowledged by Kafka and answered 202",
      registers: [registry],
    }),
    rejects: new client.Counter({
      name: "ingest_rejects_total",
      help: "Requests answered with an error, by stable error code",
      labelNames: ["code"],
      registers: [registry],
    }),
    produceSeconds: new client.Histogram({
      name: "ingest_produce_duration_seconds",
      help: "Time from handing a batch to Kafka until it was acknowledged (or failed)",
      labelNames: ["outcome"],
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers: [registry],
    }),
    batchSize: new client.Histogram({
      name: "ingest_batch_events",
      help: "Events per accepted batch",
      buckets: [1, 10, 100, 500, 1000, 5000],
      registers: [registry],
    }),
    cardSignatures: new client.Counter({
      name: "ingest_card_signatures_total",
      help: "Cards of workers with trusted keys checked, by outcome (VERIFIED, UNSIGNED, INVALID, UNKNOWN_KEY)",
      labelNames: ["status"],
      registers: [registry],
    }),
  };
}
