/**
 * One proxy from its configuration: the spool and the buffer with its ingest client, the correlation
 * memory (both in the spool directory, read back at start), metrics, the HTTP server and, with
 * A2A_LEDGER_PROXY_GRPC_PORT, the gRPC relay. `listen()` starts it; `close()` stops taking requests, lets the
 * buffer drain for the shutdown grace, keeps spooling what exchanges still finishing offer until the
 * servers have closed (what is left stays in the spool) and closes.
 */
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { cardKeys } from "@a2a-ledger/card-signatures";
import { IngestClient, TaskSightings } from "@a2a-ledger/ingest-client";
import type { ProxyConfig } from "./config.ts";
import { CorrelationMemory } from "./correlation.ts";
import { SqliteCorrelationStore } from "./correlation-store.ts";
import { createLogger, type Logger } from "@a2a-ledger/logging";
import { createMetrics, type ProxyMetrics } from "./metrics.ts";
import { ObservationBuffer, type ObservationSender } from "./observation-buffer.ts";
import { ObservationSpool, type SpoolFs, type SpoolMetricsSink } from "./observation-spool.ts";
import { createProxyServer } from "./proxy-server.ts";
import { grpcCardRewrite } from "./grpc/grpc-card.ts";
import { createGrpcRelay, type GrpcRelay } from "./grpc/grpc-relay.ts";
import { GrpcUpstream } from "./grpc/grpc-upstream.ts";
import { createVerifiedCardSource } from "./verified-card-source.ts";

export interface ProxyAppOptions {
  logger?: Logger;
  defaultMetrics?: boolean;
  /** Replaces the ingest client (tests of the buffer's behaviour). */
  sender?: ObservationSender;
  /** Replaces the spool's file-system calls (tests of a full disk). */
  spoolFs?: SpoolFs;
}

export interface ProxyApp {
  config: ProxyConfig;
  buffer: ObservationBuffer;
  metrics: ProxyMetrics;
  memory: CorrelationMemory;
  log: Logger;
  /** Listens on config.host:config.port (and the gRPC relay on config.grpcPort); resolves with the proxy's base URL. */
  listen(): Promise<string>;
  /** The gRPC relay's `host:port` once listening; null without one. */
  grpcTarget(): string | null;
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
  const { spool, replayed } = ObservationSpool.open({
    dir: config.spoolDir,
    log,
    metrics: spoolMetrics,
    ...(options.spoolFs === undefined ? {} : { fs: options.spoolFs }),
  });
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
    store: new SqliteCorrelationStore(join(config.spoolDir, "correlations.sqlite"), (problem) =>
      log.error(
        problem,
        "the correlation memory's file was not a usable database: moved aside, the memory starts empty",
      ),
    ),
    onSize: (size) => metrics.correlationsRemembered.set(size),
    maxAgeMs: config.correlationMaxAgeMs,
  });
  // In the process only: after a restart a TaskNotFound's id names no sighting until the task is seen again.
  const sightings = new TaskSightings(config.correlationMemory);
  let closing = false;
  let grpcPublic: string | null = null;
  const grpcUpstream =
    config.grpcPort === null
      ? null
      : new GrpcUpstream({
          configured: config.grpcUpstream,
          upstreamUrl: config.upstreamUrl,
          ownTargets: () => (grpcPublic === null ? [] : [grpcPublic]),
          timeoutMs: config.upstreamTimeoutMs,
          maxCardBytes: config.maxRecordedBytes,
        });
  const grpcCard =
    grpcUpstream === null ? undefined : grpcCardRewrite(grpcUpstream, () => grpcPublic, config.rewriteCardUrls);
  const verifiedCards =
    config.cardMode === "verified" && config.projectorUrl !== null
      ? createVerifiedCardSource({
          projectorUrl: config.projectorUrl,
          token: config.projectorToken,
          workerId: config.workerId,
          timeoutMs: config.projectorTimeoutMs,
          maxBytes: config.maxRecordedBytes,
        })
      : undefined;
  const proxy = createProxyServer({
    config,
    buffer,
    memory,
    sightings,
    metrics,
    log,
    ...(grpcCard === undefined ? {} : { grpcCard }),
    ...(verifiedCards === undefined ? {} : { verifiedCards }),
    ...(config.cardKeys.length === 0 ? {} : { cardKeys: cardKeys(config.cardKeys) }),
  });
  const grpc: GrpcRelay | null =
    grpcUpstream === null
      ? null
      : createGrpcRelay({
          config,
          buffer,
          memory,
          sightings,
          metrics,
          log,
          upstream: grpcUpstream,
          kept: () => buffer.kept(),
          closing: () => closing,
        });
  const hostForUrl = config.host.includes(":") ? `[${config.host}]` : config.host;

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
      const url = `http://${hostForUrl}:${port}`;
      proxy.setPublicUrl(config.publicUrl ?? url);
      if (grpc !== null) {
        await new Promise<void>((resolve, reject) => {
          grpc.server.once("error", reject);
          grpc.server.listen(config.grpcPort ?? 0, config.host, () => {
            grpc.server.off("error", reject);
            resolve();
          });
        });
        grpcPublic = config.grpcPublicTarget ?? `${hostForUrl}:${(grpc.server.address() as AddressInfo).port}`;
      }
      const grpcFields =
        grpc === null ? {} : { grpc: grpcPublic, grpcUpstream: config.grpcUpstream?.target ?? "from the card" };
      const cardFields = config.cardMode === "verified" ? { card: "verified", projector: config.projectorUrl } : {};
      log.info(
        {
          url,
          upstream: config.upstreamUrl,
          ingest: config.ingestUrl,
          failMode: config.failMode,
          rewriteCardUrls: config.rewriteCardUrls,
          spool: config.spoolDir,
          replayed: replayed.length,
          correlations: memory.size,
          ...grpcFields,
          ...cardFields,
        },
        "listening",
      );
      return url;
    },
    grpcTarget: () => grpcPublic,
    async close() {
      closing = true;
      proxy.beginShutdown();
      const closed = new Promise<void>((resolve) => proxy.server.close(() => resolve()));
      const grpcClosed =
        grpc === null || !grpc.server.listening
          ? Promise.resolve()
          : new Promise<void>((resolve) => grpc.server.close(() => resolve()));
      proxy.server.closeIdleConnections();
      // Exchanges still open after the grace (and the send in flight) are cut; until the servers have
      // closed, what they offer is still spooled.
      const left = await buffer.close(config.shutdownGraceMs, async () => {
        proxy.server.closeAllConnections();
        grpc?.close();
        await Promise.all([closed, grpcClosed]);
      });
      verifiedCards?.close();
      memory.close();
      log.info({ unsent: left }, "stopped");
    },
  };
}
