/**
 * One proxy from its configuration: the spool and the buffer with its ingest client, the correlation
 * memory (both in the spool directory, read back at start), metrics and the HTTP server. `listen()`
 * starts it; `close()` stops taking requests, lets the buffer drain for the shutdown grace (what is left
 * stays in the spool) and closes.
 */
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { IngestClient } from "@a2a-ledger/ingest-client";
import type { ProxyConfig } from "./config.ts";
import { CorrelationMemory } from "./correlation.ts";
import { SqliteCorrelationStore } from "./correlation-store.ts";
import { createLogger, type Logger } from "@a2a-ledger/logging";
import { createMetrics, type ProxyMetrics } from "./metrics.ts";
import { ObservationBuffer, type ObservationSender } from "./observation-buffer.ts";
import { ObservationSpool, type SpoolMetricsSink } from "./observation-spool.ts";
import { createProxyServer } from "./proxy-server.ts";

export interface ProxyAppOptions {
  logger?: Logger;
  defaultMetrics?: boolean;
  /** Replaces the ingest client (tests of the buffer's behaviour). */
  sender?: ObservationSender;
}

export interface ProxyApp {
  config: ProxyConfig;
  buffer: ObservationBuffer;
  metrics: ProxyMetrics;
  memory: CorrelationMemory;
  log: Logger;
  /** Listens on config.host:config.port; resolves with the proxy's base URL. */
  listen(): Promise<string>;
  close(): Promise<void>;
}

export function createProxyApp(config: ProxyConfig, options: ProxyAppOptions = {}): ProxyApp {
  const log = options.logger ?? createLogger("proxy", config.logLevel).child({ workerId: config.workerId });
  const metrics = createMetrics({ defaultMetrics: options.defaultMetrics ?? false });
  const sender =
    options.sender ??
    new IngestClient({
      baseUrl: config.ingestUrl,
      ...(config.ingestToken === null ? {} : { token: config.ingestToken }),
      maxBatchEvents: config.batchMax,
      // The buffer retries without end; the client only smooths over short hiccups and honours Retry-After.
      maxRetries: 2,
      initialBackoffMs: 100,
      maxBackoffMs: 1_000,
      maxRetryAfterMs: 5_000,
      timeoutMs: 10_000,
    });
  const spoolMetrics: SpoolMetricsSink = {
    badRecord: (kind) => metrics.spoolBadRecords.inc({ kind }),
    writeError: () => metrics.spoolWriteErrors.inc(),
    failing: (failing) => metrics.spoolFailing.set(failing ? 1 : 0),
    fsyncSeconds: (seconds) => metrics.spoolFsyncSeconds.observe(seconds),
    diskBytes: (bytes) => metrics.spoolDiskBytes.set(bytes),
  };
  const { spool, replayed } = ObservationSpool.open({ dir: config.spoolDir, log, metrics: spoolMetrics });
  const buffer = new ObservationBuffer({
    sender,
    spool,
    replayed,
    capacity: config.bufferMax,
    maxBytes: config.spoolMaxBytes,
    failMode: config.failMode,
    batchMax: config.batchMax,
    flushDelayMs: config.flushDelayMs,
    retryInitialMs: 250,
    retryMaxMs: 5_000,
    metrics,
    log,
  });
  const memory = new CorrelationMemory(config.correlationMemory, {
    store: new SqliteCorrelationStore(join(config.spoolDir, "correlations.sqlite"), (problem) => log.error(problem, "the correlation memory's file was not a usable database: moved aside, the memory starts empty")),
    onSize: (size) => metrics.correlationsRemembered.set(size),
  });
  const proxy = createProxyServer({ config, buffer, memory, metrics, log });

  return {
    config,
    buffer,
    metrics,
    memory,
    log,
    async listen() {
      buffer.start();
      await new Promise<void>((resolve, reject) => {
        proxy.server.once("error", reject);
        proxy.server.listen(config.port, config.host, () => {
          proxy.server.off("error", reject);
          resolve();
        });
      });
      const { port } = proxy.server.address() as AddressInfo;
      const url = `http://${config.host.includes(":") ? `[${config.host}]` : config.host}:${port}`;
      proxy.setPublicUrl(config.publicUrl ?? url);
      log.info({ url, upstream: config.upstreamUrl, ingest: config.ingestUrl, failMode: config.failMode, rewriteCardUrls: config.rewriteCardUrls, spool: config.spoolDir, replayed: replayed.length, correlations: memory.size }, "listening");
      return url;
    },
    async close() {
      proxy.beginShutdown();
      const closed = new Promise<void>((resolve) => proxy.server.close(() => resolve()));
      proxy.server.closeIdleConnections();
      const left = await buffer.close(config.shutdownGraceMs);
      proxy.server.closeAllConnections();
      await closed;
      memory.close();
      log.info({ unsent: left }, "stopped");
    },
  };
}
