/**
 * One call forwarded to the worker's gRPC endpoint and its answer relayed to the client, byte for byte:
 * the request as it came (read whole already for an A2A call, else streamed through), the worker's
 * headers, every message as it arrives and the trailers. A copy of each answer message and the final
 * status go to the call's recorder; the answer's end waits until the observations it showed are kept.
 * A worker that does not answer, or resets the stream before its headers, becomes one of the proxy's
 * own errors; a reset in the middle of an answer reaches the client as the same reset.
 */
import http2, {
  type ClientHttp2Stream,
  type IncomingHttpHeaders,
  type OutgoingHttpHeaders,
  type ServerHttp2Stream,
} from "node:http2";
import type { Logger } from "@a2a-ledger/logging";
import type { ProxyConfig } from "../config.ts";
import { ProxyError } from "../errors.ts";
import type { ExchangeRecorder } from "../exchange-recorder.ts";
import type { ProxyMetrics } from "../metrics.ts";
import { type GrpcCall, sightingsOfStatus } from "./grpc-calls.ts";
import type { GrpcRecording } from "./grpc-recording.ts";
import { grpcCodeName, statusOf } from "./grpc-status.ts";
import { first, plainHeaders, respond } from "./grpc-stream.ts";
import type { GrpcTarget } from "./grpc-target.ts";
import type { GrpcUpstream } from "./grpc-upstream.ts";
import type { UpstreamSessions } from "./grpc-upstream-sessions.ts";

const { NGHTTP2_CANCEL, NGHTTP2_INTERNAL_ERROR, NGHTTP2_NO_ERROR } = http2.constants;
const endStreamFlag = http2.constants.NGHTTP2_FLAG_END_STREAM;

/** What forwarding needs of the relay. */
export interface ForwardContext {
  config: Pick<ProxyConfig, "upstreamTimeoutMs">;
  metrics: ProxyMetrics;
  log: Logger;
  upstream: GrpcUpstream;
  sessions: UpstreamSessions;
  recording: GrpcRecording;
  now: () => number;
  /** Resolves once the observations emitted so far are kept safe. */
  kept(): Promise<void>;
  /** Answers with one of the proxy's own errors. */
  refuse(stream: ServerHttp2Stream, error: ProxyError, method: string): void;
  /** Counts an answered call by method and gRPC status. */
  count(method: string, status: string): void;
}

/** The call being forwarded. */
export interface ForwardedCall {
  stream: ServerHttp2Stream;
  headers: IncomingHttpHeaders;
  flags: number;
  /** The request body when it was read whole (an A2A call); null when it streams through. */
  body: Buffer | null;
  call: GrpcCall | null;
  recorder: ExchangeRecorder | null;
  target: GrpcTarget;
  method: string;
  callId: string;
}

export function forwardCall(ctx: ForwardContext, forwarded: ForwardedCall): void {
  const { config, metrics, log, upstream, now, refuse, count } = ctx;
  const { stream, headers, flags, body, call, recorder, target, method, callId } = forwarded;
  const out: OutgoingHttpHeaders = plainHeaders(headers);
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
    up = ctx.sessions.sessionFor(target).request(out, { endStream });
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
      void ctx.kept().then(() => {
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
        ? ctx.recording.answerReader(call, recorder, first(responseHeaders, "grpc-encoding"))
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
      void ctx.kept().then(() => {
        if (!stream.destroyed && !stream.closed) stream.end();
      });
    });
  });
}
