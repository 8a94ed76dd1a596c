/**
 * Prometheus metrics of one dispatcher (its own registry, so tests can run several in one process).
 * Served at GET /metrics.
 */
import client from "prom-client";

export interface DispatcherMetrics {
  registry: client.Registry;
  commands: client.Counter<"kind" | "outcome">;
  alerts: client.Counter<"code">;
  poison: client.Counter<"reason">;
  dispatches: client.Counter<"worker">;
  probes: client.Counter<"worker" | "outcome">;
  commandSeconds: client.Histogram<"kind">;
  parkedCanaries: client.Gauge<string>;
  canaryPolls: client.Counter<"outcome">;
  canariesLost: client.Counter<"worker">;
  observationsRecorded: client.Counter<string>;
  recordingFailures: client.Counter<string>;
  httpRequests: client.Counter<"route" | "status">;
  lag: client.Gauge<"partition">;
  unreachableRetries: client.Counter<"kind">;
  consumerRestarts: client.Counter<string>;
}

export function createMetrics(options: { defaultMetrics?: boolean } = {}): DispatcherMetrics {
  const registry = new client.Registry();
  if (options.defaultMetrics) client.collectDefaultMetrics({ register: registry });
  const registers = [registry];
  return {
    registry,
    commands: new client.Counter({
      name: "a2a_dispatcher_commands_total",
      help: "Command deliveries by kind and outcome (done, failed, blocked, abandoned, duplicate)",
      labelNames: ["kind", "outcome"],
      registers,
    }),
    alerts: new client.Counter({
      name: "a2a_dispatcher_alerts_total",
      help: "Commands not carried out (or with an unknown outcome), by stable alert code",
      labelNames: ["code"],
      registers,
    }),
    unreachableRetries: new client.Counter({
      name: "a2a_dispatcher_unreachable_retries_total",
      help: "Commands tried again because their worker could not be reached before anything was sent, by kind",
      labelNames: ["kind"],
      registers,
    }),
    poison: new client.Counter({
      name: "a2a_dispatcher_poison_commands_total",
      help: "Command records refused as poison, by reason",
      labelNames: ["reason"],
      registers,
    }),
    dispatches: new client.Counter({
      name: "a2a_dispatcher_redispatches_total",
      help: "Re-dispatches a worker answered, by target worker",
      labelNames: ["worker"],
      registers,
    }),
    probes: new client.Counter({
      name: "a2a_dispatcher_probes_total",
      help: "Probes by worker and outcome",
      labelNames: ["worker", "outcome"],
      registers,
    }),
    commandSeconds: new client.Histogram({
      name: "a2a_dispatcher_command_seconds",
      help: "Time to carry out a command, by kind",
      labelNames: ["kind"],
      buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120],
      registers,
    }),
    parkedCanaries: new client.Gauge({
      name: "a2a_dispatcher_parked_canaries",
      help: "Canaries parked and re-polled",
      registers,
    }),
    canaryPolls: new client.Counter({
      name: "a2a_dispatcher_canary_polls_total",
      help: "Polls of parked canaries by outcome (parked, ended, lost, unreachable, worker_not_configured)",
      labelNames: ["outcome"],
      registers,
    }),
    canariesLost: new client.Counter({
      name: "a2a_dispatcher_canaries_lost_total",
      help: "Parked canaries that answered TaskNotFound, by worker",
      labelNames: ["worker"],
      registers,
    }),
    observationsRecorded: new client.Counter({
      name: "a2a_dispatcher_observations_recorded_total",
      help: "Observations the ledger acknowledged",
      registers,
    }),
    recordingFailures: new client.Counter({
      name: "a2a_dispatcher_recording_failures_total",
      help: "Attempts to record observations that the ledger did not acknowledge (retried)",
      registers,
    }),
    httpRequests: new client.Counter({
      name: "a2a_dispatcher_http_requests_total",
      help: "HTTP requests answered, by route and status",
      labelNames: ["route", "status"],
      registers,
    }),
    lag: new client.Gauge({
      name: "a2a_dispatcher_lag",
      help: "Commands waiting behind the dispatcher on each partition of the commands topic (as of the last batch fetched)",
      labelNames: ["partition"],
      registers,
    }),
    consumerRestarts: new client.Counter({
      name: "a2a_dispatcher_consumer_restarts_total",
      help: "Times the command consumer was run again after kafkajs gave up on it (an error it does not retry)",
      registers,
    }),
  };
}
