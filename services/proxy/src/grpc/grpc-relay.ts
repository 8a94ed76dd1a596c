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
 */
import http2, {
  type ClientHttp2Session,
  type ClientHttp2Stream,
  type IncomingHttpHeaders,
  type OutgoingHttpHeaders,
  type ServerHttp2Session,
  type ServerHttp2Stream,
} from "node:http2";
import type { ObservationInput } from "@a2a-ledger/ingest-client";
import type { Logger } from "@a2a-ledger/logging";
import { correlationHeader, headerValue, isNewDispatch } from "../a2a-request.ts";
import { decodedBody } from "../answer-reader.ts";
import { readRequestBody } from "../request-body.ts";
import type { ProxyConfig } from "../config.ts";
import { validCorrelationId, type CorrelationMemory } from "../correlation.ts";
import { ProxyError } from "../errors.ts";
import { ExchangeRecorder } from "../exchange-recorder.ts";
import type { ProxyMetrics, UnrecordedReason } from "../metrics.ts";
import type { ObservationBuffer } from "../observation-buffer.ts";
import { type ObservationSource, TaskSightings } from "@a2a-ledger/ingest-client";
import { grpcCallOf, readWith, sightingsOfStatus, type GrpcCall, type GrpcRequest } from "./grpc-calls.ts";
import { GrpcMessageReader, type GrpcMessage } from "./grpc-frames.ts";
import { errorTrailers, grpcCodeName, statusOf } from "./grpc-status.ts";
import type { GrpcTarget } from "./grpc-target.ts";
import type { GrpcUpstream } from "./grpc-upstream.ts";

const { NGHTTP2_CANCEL, NGHTTP2_INTERNAL_ERROR, NGHTTP2_NO_ERROR } = http2.constants;
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

/**
 * Starts the client's answer; false (the stream reset) when the stream is gone or the headers are ones
 * HTTP/2 refuses to send.
 */
function respond(
  stream: ServerHttp2Stream,
  headers: OutgoingHttpHeaders,
  options: { endStream?: boolean; waitForTrailers?: boolean },
): boolean {
  if (stream.destroyed || stream.closed) return false;
  try {
    // sendDate: false — the relay adds no header of its own (Node's typings lack the option).
    stream.respond(headers, { ...options, sendDate: false } as http2.ServerStreamResponseOptions);
    return true;
  } catch {
    if (!stream.closed) stream.close(NGHTTP2_INTERNAL_ERROR);
    return false;
  }
}

/** Headers of a message without HTTP/2's pseudo-headers (`:path`, `:status`, …). */
function plainHeaders(headers: IncomingHttpHeaders): OutgoingHttpHeaders {
  const out: OutgoingHttpHeaders = {};
  for (const [name, value] of Object.entries(headers))
    if (!name.startsWith(":") && value !== undefined) out[name] = value;
  return out;
}

const first = (headers: IncomingHttpHeaders, name: string): string | undefined =>
  headerValue(headers as Record<string, string | string[] | undefined>, name);

/** A compressed message's bytes for reading; null when the call's encoding is not one the proxy reads. */
function inflated(message: GrpcMessage, encoding: string | undefined, maxBytes: number): Buffer | null {
  if (!message.compressed) return message.bytes;
  const e = encoding?.trim().toLowerCase();
  // A compressed message in a call without an encoding breaks gRPC's framing: nothing to read.
  if (e === undefined || e === "" || e === "identity") return null;
  return decodedBody(message.bytes, e, maxBytes);
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
  const unrecorded = (reason: UnrecordedReason): void => metrics.unrecorded.inc({ reason });
  const count = (method: string, status: string): void => metrics.requests.inc({ kind: "grpc", method, status });
  const upstreamSessions = new Map<string, ClientHttp2Session>();
  const clientSessions = new Set<ServerHttp2Session>();
  let calls = 0;

  function sessionFor(target: GrpcTarget): ClientHttp2Session {
    const open = upstreamSessions.get(target.origin);
    if (open !== undefined && !open.closed && !open.destroyed) return open;
    const session = http2.connect(target.origin);
    session.on("error", () => undefined);
    const forget = () => {
      if (upstreamSessions.get(target.origin) === session) upstreamSessions.delete(target.origin);
    };
    session.on("close", forget);
    session.on("goaway", forget);
    upstreamSessions.set(target.origin, session);
    return session;
  }

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

  /** The call's request, read for recording; null (counted) when it is not one readable A2A request message. */
  function readRequest(call: GrpcCall, body: Buffer, headers: IncomingHttpHeaders, callId: string): GrpcRequest | null {
    const messages: GrpcMessage[] = [];
    let problem: string | null = null;
    const reader = new GrpcMessageReader(
      { message: (m) => messages.push(m), problem: (p) => (problem ??= p) },
      config.maxBodyBytes,
    );
    reader.push(body);
    reader.end();
    const only = messages[0];
    if (problem !== null || only === undefined || messages.length !== 1) {
      unrecorded("malformed_grpc");
      log.warn(
        { callId, method: call.method, reason: problem ?? `${messages.length} request messages`, bytes: body.length },
        "forwarding a malformed gRPC request as it is; nothing recorded",
      );
      return null;
    }
    const bytes = inflated(only, first(headers, "grpc-encoding"), config.maxRecordedBytes);
    if (bytes === null) {
      unrecorded("encoded_body");
      return null;
    }
    const read = readWith(() => call.readRequest(bytes, headers as Record<string, string | string[] | undefined>));
    if (!read.ok) {
      unrecorded("malformed_grpc");
      log.warn(
        { callId, method: call.method, reason: read.reason, bytes: body.length },
        "forwarding a gRPC request that is not the method's message as it is; nothing recorded",
      );
      return null;
    }
    return read.value;
  }

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
      request = readRequest(call, body, headers, callId);
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
      unrecorded("grpc_other");
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
    forward(stream, headers, flags, body, call, recorder, target, method, callId);
  }

  function forward(
    stream: ServerHttp2Stream,
    headers: IncomingHttpHeaders,
    flags: number,
    body: Buffer | null,
    call: GrpcCall | null,
    recorder: ExchangeRecorder | null,
    target: GrpcTarget,
    method: string,
    callId: string,
  ): void {
    const out = plainHeaders(headers);
    out[":method"] = headers[":method"] ?? "POST";
    out[":path"] = headers[":path"] ?? "/";
    out[":authority"] = headers[":authority"] ?? target.target;
    out[":scheme"] = target.origin.startsWith("https:") ? "https" : "http";
    const endStream = body === null ? (flags & endStreamFlag) !== 0 : body.length === 0;
    const started = now();
    let settled = false;
    const settle = () => {
      if (settled) return;
      settled = true;
      recorder?.finish();
    };

    let up: ClientHttp2Stream;
    try {
      up = sessionFor(target).request(out, { endStream });
    } catch (err) {
      upstream.unreachable(target);
      metrics.upstreamErrors.inc({ code: "PROXY_UPSTREAM_UNREACHABLE" });
      log.warn(
        { callId, err: (err as Error).message, target: target.target },
        "the worker's gRPC endpoint did not answer",
      );
      settle();
      return refuse(stream, new ProxyError("PROXY_UPSTREAM_UNREACHABLE"), method);
    }
    up.on("error", () => undefined);
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      up.close(NGHTTP2_CANCEL);
    }, config.upstreamTimeoutMs);
    up.on("finish", () => recorder?.delivered());
    if (body !== null) {
      if (!endStream) up.end(body);
    } else if (!endStream) stream.pipe(up);

    let answered = false;
    let clientGone = false;
    stream.on("close", () => {
      if (answered) return;
      clientGone = true;
      clearTimeout(timer);
      metrics.clientDisconnects.inc();
      if (!up.closed) up.close(NGHTTP2_CANCEL);
      settle();
    });

    up.on("close", () => {
      clearTimeout(timer);
      if (answered || clientGone) return;
      answered = true;
      settle();
      if (!stream.headersSent) {
        const code = timedOut ? "PROXY_UPSTREAM_TIMEOUT" : "PROXY_UPSTREAM_UNREACHABLE";
        if (!timedOut) upstream.unreachable(target);
        metrics.upstreamErrors.inc({ code });
        log.warn(
          { callId, code, rstCode: up.rstCode, target: target.target },
          "the worker's gRPC endpoint did not answer",
        );
        return refuse(stream, new ProxyError(code), method);
      }
      // The worker reset the stream in the middle of its answer: the client sees the same reset.
      metrics.upstreamErrors.inc({ code: "PROXY_UPSTREAM_UNREACHABLE" });
      if (!stream.closed) stream.close(up.rstCode === NGHTTP2_NO_ERROR ? NGHTTP2_INTERNAL_ERROR : up.rstCode);
    });

    up.on("response", (responseHeaders, responseFlags) => {
      clearTimeout(timer);
      if (clientGone) return;
      metrics.upstreamSeconds.observe({ kind: "grpc" }, (now() - started) / 1000);
      recorder?.delivered();
      const relayed: OutgoingHttpHeaders = {
        ":status": responseHeaders[":status"] ?? 200,
        ...plainHeaders(responseHeaders),
      };
      if ((responseFlags & endStreamFlag) !== 0) {
        // Trailers-only: the status is in these headers and the answer ends with them.
        answered = true;
        recorder?.observe(sightingsOfStatus(statusOf(responseHeaders)));
        settle();
        void deps.kept().then(() => {
          if (respond(stream, relayed, { endStream: true }))
            count(method, grpcCodeName(Number(first(responseHeaders, "grpc-status") ?? NaN)));
        });
        return;
      }
      if (!respond(stream, relayed, { waitForTrailers: true })) {
        up.close(NGHTTP2_CANCEL);
        return;
      }
      const reader =
        recorder !== null && call?.readAnswer != null
          ? answerReader(call, recorder, first(responseHeaders, "grpc-encoding"))
          : null;
      let trailers: IncomingHttpHeaders = {};
      up.on("trailers", (t) => {
        trailers = t;
      });
      up.on("data", (chunk: Buffer) => {
        reader?.push(chunk);
        if (stream.destroyed) return;
        if (!stream.write(chunk)) {
          up.pause();
          stream.once("drain", () => up.resume());
        }
      });
      stream.on("wantTrailers", () => {
        const relayedTrailers = plainHeaders(trailers);
        try {
          stream.sendTrailers(relayedTrailers);
        } catch {
          stream.close(NGHTTP2_INTERNAL_ERROR);
        }
        count(method, grpcCodeName(Number(first(trailers, "grpc-status") ?? NaN)));
      });
      up.on("end", () => {
        answered = true;
        reader?.end();
        recorder?.observe(sightingsOfStatus(statusOf(trailers)));
        settle();
        void deps.kept().then(() => {
          if (!stream.destroyed && !stream.closed) stream.end();
        });
      });
    });
  }

  /** Reads a copy of each answer message for the recorder; what cannot be read is counted. */
  function answerReader(call: GrpcCall, recorder: ExchangeRecorder, encoding: string | undefined): GrpcMessageReader {
    const readAnswer = call.readAnswer;
    return new GrpcMessageReader(
      {
        message(message) {
          const bytes = inflated(message, encoding, config.maxRecordedBytes);
          if (bytes === null) return unrecorded("encoded_body");
          const read = readWith(() => readAnswer?.(bytes) ?? []);
          if (read.ok) recorder.observe(read.value);
          else unrecorded("malformed_grpc");
        },
        problem(problem) {
          unrecorded(
            problem === "oversized" ? (call.serverStreaming ? "oversized_event" : "body_too_large") : "malformed_grpc",
          );
        },
      },
      config.maxRecordedBytes,
    );
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
      for (const session of upstreamSessions.values()) session.destroy();
      upstreamSessions.clear();
    },
  };
}
