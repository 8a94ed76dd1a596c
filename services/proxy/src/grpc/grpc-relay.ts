/**
 * The gRPC relay: a cleartext HTTP/2 server (h2c, prior knowledge, as gRPC clients speak it) on its own
 * port that forwards every stream to the worker's gRPC endpoint and relays the answer, byte for byte:
 * request headers (gRPC metadata) and body bytes go out as they came; the worker's response headers,
 * every length-prefixed message and its trailers (`grpc-status`, `grpc-message`,
 * `grpc-status-details-bin`, custom metadata) come back unchanged, message data as it arrives.
 *
 * Calls of `lf.a2a.v1.A2AService` (grpc-calls.ts) are recorded as the JSON bindings are: the request
 * message (one, as every A2A method takes) is read whole first, bounded by A2A_LEDGER_PROXY_MAX_BODY_BYTES, so that
 * fail-closed can refuse a new dispatch before the worker sees it; a copy of each answer message and the
 * final status is read for observations by the exchange's recorder. Every other path (another service,
 * an unknown method, client streaming) is streamed through without being read or recorded.
 *
 * The proxy's own answers are trailers-only gRPC errors (grpc-status.ts). The end of an answer (its
 * trailers) waits until the observations it showed are kept, as the last bytes of an HTTP answer do.
 *
 * This module admits a call (draining, body bound, fail-closed reservation, the exchange's recorder);
 * grpc-recording.ts reads what is recorded, grpc-forward.ts forwards the call and relays its answer,
 * grpc-upstream-sessions.ts keeps the connections to the worker.
 */
import http2, { type IncomingHttpHeaders, type ServerHttp2Session, type ServerHttp2Stream } from "node:http2";
import type { ObservationInput } from "@a2a-ledger/ingest-client";
import type { Logger } from "@a2a-ledger/logging";
import { correlationHeader, isNewDispatch } from "../a2a-request.ts";
import { readRequestBody } from "../request-body.ts";
import type { ProxyConfig } from "../config.ts";
import { validCorrelationId, type CorrelationMemory } from "../correlation.ts";
import { ProxyError } from "../errors.ts";
import { ExchangeRecorder } from "../exchange-recorder.ts";
import type { ProxyMetrics } from "../metrics.ts";
import type { ObservationBuffer } from "../observation-buffer.ts";
import { type ObservationSource, TaskSightings } from "@a2a-ledger/ingest-client";
import { grpcCallOf, type GrpcRequest } from "./grpc-calls.ts";
import { type ForwardContext, forwardCall } from "./grpc-forward.ts";
import { GrpcRecording } from "./grpc-recording.ts";
import { errorTrailers, grpcCodeName } from "./grpc-status.ts";
import { first, respond } from "./grpc-stream.ts";
import type { GrpcUpstream } from "./grpc-upstream.ts";
import { UpstreamSessions } from "./grpc-upstream-sessions.ts";

const { NGHTTP2_INTERNAL_ERROR, NGHTTP2_NO_ERROR } = http2.constants;
const endStreamFlag = http2.constants.NGHTTP2_FLAG_END_STREAM;

export interface GrpcRelayDeps {
  config: ProxyConfig;
  buffer: Pick<ObservationBuffer, "reserve" | "offer">;
  memory: CorrelationMemory;
  /** The last state recorded per task, shared by every channel of the proxy (a TaskNotFound names the sighting it follows). */
  sightings?: TaskSightings;
  metrics: ProxyMetrics;
  log: Logger;
  upstream: GrpcUpstream;
  /** Resolves once the observations emitted so far are kept safe. */
  kept(): Promise<void>;
  /** True once the proxy is draining: new calls are refused. */
  closing(): boolean;
  now?: () => number;
}

export interface GrpcRelay {
  server: http2.Http2Server;
  /** Closes every client session and the connections to the worker. */
  close(): void;
}

export function createGrpcRelay(deps: GrpcRelayDeps): GrpcRelay {
  const { config, buffer, memory, metrics, log, upstream } = deps;
  const now = deps.now ?? Date.now;
  const source: ObservationSource = {
    workerId: config.workerId,
    observer: config.observer,
    sightings: deps.sightings ?? new TaskSightings(config.correlationMemory),
  };
  const emit = (o: ObservationInput): void => void buffer.offer(o);
  const count = (method: string, status: string): void => metrics.requests.inc({ kind: "grpc", method, status });
  const recording = new GrpcRecording(config, (reason) => metrics.unrecorded.inc({ reason }), log);
  const sessions = new UpstreamSessions();
  const clientSessions = new Set<ServerHttp2Session>();
  let calls = 0;

  /** Answers a call with one of the proxy's own errors, as a trailers-only gRPC answer. */
  function refuse(stream: ServerHttp2Stream, error: ProxyError, method: string): void {
    if (stream.destroyed || stream.closed) return;
    if (stream.headersSent) {
      stream.close(NGHTTP2_INTERNAL_ERROR);
      return;
    }
    const headers = errorTrailers(error);
    if (respond(stream, headers, { endStream: true })) count(method, grpcCodeName(Number(headers["grpc-status"])));
  }

  const forwarding: ForwardContext = {
    config,
    metrics,
    log,
    upstream,
    sessions,
    recording,
    now,
    kept: deps.kept,
    refuse,
    count,
  };

  async function relay(stream: ServerHttp2Stream, headers: IncomingHttpHeaders, flags: number): Promise<void> {
    const callId = first(headers, "x-request-id") ?? `grpc-${++calls}`;
    const path = String(headers[":path"] ?? "");
    const call = grpcCallOf(path);
    const method = call?.method ?? "other";
    if (deps.closing())
      return refuse(stream, new ProxyError("PROXY_SHUTTING_DOWN", undefined, config.retryAfterSeconds), method);

    let body: Buffer | null = null;
    let request: GrpcRequest | null = null;
    let release: (() => void) | null = null;
    if (call !== null) {
      // A request that ended with its headers has no body to wait for.
      const read =
        (flags & endStreamFlag) !== 0
          ? { ok: true as const, body: Buffer.alloc(0) }
          : await readRequestBody(stream, config.maxBodyBytes);
      if (!read.ok) {
        if (read.reason === "too-large") {
          refuse(stream, new ProxyError("PROXY_BODY_TOO_LARGE"), method);
          // The client may still be sending: its stream is closed once the answer is out.
          stream.close(NGHTTP2_NO_ERROR);
        }
        return;
      }
      body = read.body;
      request = recording.request(call, body, headers, callId);
      if (request !== null) {
        release = buffer.reserve(isNewDispatch(request));
        if (release === null) {
          metrics.failClosedRejections.inc();
          return refuse(
            stream,
            new ProxyError("PROXY_LEDGER_UNAVAILABLE", undefined, config.retryAfterSeconds),
            method,
          );
        }
        // The slot is held until the call's stream ends, answered or reset.
        if (stream.closed) release();
        else stream.once("close", release);
      }
    } else {
      metrics.unrecorded.inc({ reason: "grpc_other" });
    }

    const explicit =
      validCorrelationId(first(headers, correlationHeader)) ?? validCorrelationId(request?.dispatch?.correlationId);
    // The call's first observation takes the place of its reserved slot.
    const held = release;
    const emitOwn =
      held === null
        ? emit
        : (o: ObservationInput): void => {
            held();
            emit(o);
          };
    const recorder =
      request === null ? null : new ExchangeRecorder({ source, memory, emit: emitOwn, now }, request, explicit);
    const target = await upstream.resolve();
    if (target === null) {
      recorder?.finish();
      return refuse(stream, new ProxyError("PROXY_GRPC_UPSTREAM_UNKNOWN"), method);
    }
    if (stream.destroyed || stream.closed) {
      recorder?.finish();
      return;
    }
    forwardCall(forwarding, { stream, headers, flags, body, call, recorder, target, method, callId });
  }

  const server = http2.createServer();
  server.on("session", (session) => {
    clientSessions.add(session);
    session.on("error", () => undefined);
    session.on("close", () => clientSessions.delete(session));
  });
  // A connection that does not speak HTTP/2 (or breaks its framing) is closed; the server goes on.
  server.on("sessionError", () => undefined);
  server.on("stream", (stream, headers, flags) => {
    stream.on("error", () => undefined);
    relay(stream, headers, flags).catch((err: unknown) => {
      log.error({ err }, "gRPC relay failure");
      refuse(stream, new ProxyError("PROXY_INTERNAL"), "other");
    });
  });

  return {
    server,
    close() {
      for (const session of clientSessions) session.destroy();
      sessions.destroyAll();
    },
  };
}
