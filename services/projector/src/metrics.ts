/**
 * Prometheus metrics of one projector instance (its own registry, so several can live in one
 * process, as in tests). View lag is what the views have not projected yet, per topic partition.
 */
import client from "prom-client";

export function createMetrics(options: { defaultMetrics?: boolean } = {}) {
  const registry = new client.Registry();
  if (options.defaultMetrics) client.collectDefaultMetrics({ register: registry });
  return {
    registry,
    lag: new client.Gauge({
      name: "a2a_projector_lag_records",
      help: "Records of a topic partition not yet in the views",
      labelNames: ["topic", "partition"],
      registers: [registry],
    }),
    behind: new client.Gauge({
      name: "a2a_projector_behind_seconds",
      help: "Age of the newest projected record of a topic while records wait (0 when caught up)",
      labelNames: ["topic"],
      registers: [registry],
    }),
    records: new client.Counter({
      name: "a2a_projector_records_total",
      help: "Records projected into the views, by topic",
      labelNames: ["topic"],
      registers: [registry],
    }),
    poison: new client.Counter({
      name: "a2a_projector_poison_total",
      help: "Records of an input topic that could not be projected, by reason",
      labelNames: ["reason"],
      registers: [registry],
    }),
    transactions: new client.Counter({
      name: "a2a_projector_transactions_total",
      help: "Database transactions that wrote views and offsets",
      registers: [registry],
    }),
    redeliveries: new client.Counter({
      name: "a2a_projector_redelivered_records_total",
      help: "Records delivered again that were already projected (skipped)",
      registers: [registry],
    }),
    consumerRestarts: new client.Counter({
      name: "a2a_projector_consumer_restarts_total",
      help: "Times the consumer was run again after kafkajs gave up on it (an error it does not retry)",
      registers: [registry],
    }),
    seeks: new client.Counter({
      name: "a2a_projector_seeks_total",
      help: "Seeks back to the stored offset (the consumer was ahead of the database)",
      registers: [registry],
    }),
    batchSeconds: new client.Histogram({
      name: "a2a_projector_transaction_seconds",
      help: "Time to project one batch in one transaction",
      buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
      registers: [registry],
    }),
    requests: new client.Counter({
      name: "a2a_projector_http_requests_total",
      help: "HTTP requests answered, by route, method and status",
      labelNames: ["route", "method", "status"],
      registers: [registry],
    }),
    rejects: new client.Counter({
      name: "a2a_projector_http_rejects_total",
      help: "Requests answered with an error, by stable error code",
      labelNames: ["code"],
      registers: [registry],
    }),
    streams: new client.Gauge({
      name: "a2a_projector_streams",
      help: "Live streams (SSE) open",
      registers: [registry],
    }),
    waiting: new client.Gauge({
      name: "a2a_projector_waiting_tasks",
      help: "Correlations waiting in the queue, by status (indeterminate: lost, not yet reconciled; blocked: no eligible worker; expired: no outcome, no longer watched by the reconciler)",
      labelNames: ["status"],
      registers: [registry],
    }),
    oldestWaiting: new client.Gauge({
      name: "a2a_projector_oldest_waiting_seconds",
      help: "How long the longest-waiting correlation of each status has waited (0 when none waits)",
      labelNames: ["status"],
      registers: [registry],
    }),
  };
}

export type ProjectorMetrics = ReturnType<typeof createMetrics>;
