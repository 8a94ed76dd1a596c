/**
 * The real service from a configuration: Kafka sink, registry serde, metrics and the HTTP server.
 */
import { processClientConfig } from "@a2a-ledger/kafka";
import { Serde } from "@a2a-ledger/schemas/serde";
import type { FastifyInstance, FastifyServerOptions } from "fastify";
import type { IngestConfig } from "./config.ts";
import { KafkaSink, type SinkLogger } from "./kafka-sink.ts";
import type { LingerLimits } from "./linger.ts";
import { createMetrics } from "./metrics.ts";
import { registryReachable } from "./registry-check.ts";
import { buildServer } from "./server.ts";

export interface IngestApp {
  server: FastifyInstance;
  sink: KafkaSink;
  serde: Serde;
}

export interface IngestAppOptions {
  logger?: FastifyServerOptions["logger"];
  defaultMetrics?: boolean;
  linger?: LingerLimits;
}

export function createIngestApp(config: IngestConfig, options: IngestAppOptions = {}): IngestApp {
  const serde = new Serde(config.registryUrl, undefined, processClientConfig().registry);
  // The sink logs through the server's logger, which exists only once the server does.
  let log: SinkLogger | undefined;
  const sink = new KafkaSink({
    brokers: config.brokers,
    topic: config.topic,
    produceTimeoutMs: config.produceTimeoutMs,
    maxQueuedRecords: config.maxQueuedRecords,
    retryAfterSeconds: config.retryAfterSeconds,
    quietClient: config.logLevel === "silent",
    logger: { info: (o, m) => log?.info(o, m), warn: (o, m) => log?.warn(o, m), error: (o, m) => log?.error(o, m) },
  });
  const server = buildServer({
    config,
    sink,
    encoder: serde,
    metrics: createMetrics({ defaultMetrics: options.defaultMetrics ?? false }),
    registryReachable: (timeoutMs) => registryReachable(config.registryUrl, timeoutMs),
    logger: options.logger,
    linger: options.linger,
  });
  log = server.log;
  return { server, sink, serde };
}
