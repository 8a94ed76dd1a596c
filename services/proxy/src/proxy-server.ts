/**
 * The recording proxy on plain node:http: every request is forwarded to the worker with its method, path,
 * headers (hop-by-hop ones aside) and body bytes; every answer comes back with its status, headers and
 * body bytes, chunk by chunk as the worker writes them (Server-Sent Events included, never buffered).
 * Beside the forwarding, a copy of what passed is read for observations (exchange-recorder.ts).
 *
 * The proxy answers by itself only with its own endpoints (exactly GET /metrics, /healthz, /readyz) and
 * the errors of errors.ts. The card is the one answer it may change: its interface URLs, when configured.
 */
import http, { type IncomingMessage, type ServerResponse } from "node:http";
import https from "node:https";
import zlib from "node:zlib";
import { classifyRequest, correlationHeader, headerValue, isNewDispatch, parseJson, type A2ARequest } from "./a2a-request.ts";
import { sightingsOfJsonRpc, sightingsOfRest, type Sighting } from "./a2a-response.ts";
import { rewriteCardUrls } from "./card-rewrite.ts";
import type { ProxyConfig } from "./config.ts";
import { validCorrelationId, type CorrelationMemory } from "./correlation.ts";
import { ProxyError, renderError, type ClientDialect, type ProxyErrorCode } from "./errors.ts";
import { ExchangeRecorder } from "./exchange-recorder.ts";
import type { GrpcCardRewrite } from "./grpc/grpc-card.ts";
import { endToEndHeaders, rawHeader } from "./hop-by-hop.ts";
import type { Logger } from "@a2a-ledger/logging";
import type { ProxyMetrics, UnrecordedReason } from "./metrics.ts";
import type { ObservationBuffer } from "./observation-buffer.ts";
import { cardObservation, maxAgeOf, type ObservationSource } from "./observations.ts";
import { SseParser } from "./sse-parser.ts";

export interface ProxyServerDeps {
  config: ProxyConfig;
  buffer: ObservationBuffer;
  memory: CorrelationMemory;
  metrics: ProxyMetrics;
  log: Logger;
  now?: () => number;
  /** With the gRPC relay: learns its upstream from each card relayed and rewrites the card's GRPC URL. */
  grpcCard?: GrpcCardRewrite;
}

export interface ProxyServer {
  server: http.Server;
  /** The proxy's base URL as clients reach it (card URLs are rewritten to it). */
  setPublicUrl(url: string): void;
  /** Stop taking requests: new ones get 503 PROXY_SHUTTING_DOWN. */
  beginShutdown(): void;
}

type Recorded = Extract<A2ARequest, { kind: "jsonrpc" | "rest" }>;

function dialectOf(request: A2ARequest | null, headers: IncomingMessage["headers"]): ClientDialect {
  const version = request?.version ?? (/^1(\.\d+)?$/.test(String(headers["a2a-version"] ?? "").trim()) ? "1.0" : "0.3");
  if (request?.kind === "jsonrpc") return { kind: "jsonrpc", id: request.id, version };
  if (request?.kind === "malformed-jsonrpc") return { kind: "jsonrpc", id: null, version };
  return { kind: "http", version };
}

function upstreamErrorCode(error: Error & { code?: string }): ProxyErrorCode {
  if (error instanceof ProxyError) return error.code;
  if (error.code?.startsWith("HPE_")) return "PROXY_UPSTREAM_BAD_RESPONSE";
  return "PROXY_UPSTREAM_UNREACHABLE";
}

/** Decodes a content-encoded body copy for reading; null when the encoding is unknown or the data corrupt. */
function decoded(body: Buffer, encoding: string | undefined, maxBytes: number): Buffer | null {
  const e = encoding?.trim().toLowerCase();
  if (e === undefined || e === "" || e === "identity") return body;
  try {
    if (e === "gzip" || e === "x-gzip") return zlib.gunzipSync(body, { maxOutputLength: maxBytes });
    if (e === "deflate") return zlib.inflateSync(body, { maxOutputLength: maxBytes });
    if (e === "br") return zlib.brotliDecompressSync(body, { maxOutputLength: maxBytes });
  } catch {
    return null;
  }
  return null;
}

const isEventStream = (contentType: string | undefined): boolean => contentType?.toLowerCase().startsWith("text/event-stream") ?? false;

export function createProxyServer(deps: ProxyServerDeps): ProxyServer {
  const { config, buffer, memory, metrics, log } = deps;
  const now = deps.now ?? Date.now;
  const upstream = new URL(config.upstreamUrl);
  const transport = upstream.protocol === "https:" ? https : http;
  // Pooled connections idle for 4 s are closed: under the 5 s keep-alive of common servers (express,
  // uvicorn), so a request is never sent on a connection the worker is closing. Node also honours a
  // worker's `Keep-Alive: timeout=` hint; active connections (streams) are not affected.
  const agent = new transport.Agent({ keepAlive: true, maxSockets: 512, timeout: 4_000 });
  const upstreamPrefix = upstream.pathname.replace(/\/+$/, "");
  const source: ObservationSource = { workerId: config.workerId, observer: config.observer };
  let publicUrl = config.publicUrl ?? "";
  let requests = 0;
  let closing = false;

  const emit = (o: Parameters<ObservationBuffer["offer"]>[0]): void => void buffer.offer(o);
  const unrecorded = (reason: UnrecordedReason): void => metrics.unrecorded.inc({ reason });

  function answer(res: ServerResponse, error: ProxyError, dialect: ClientDialect, kind: string, method: string): void {
    if (res.headersSent || res.destroyed) {
      res.destroy();
      return;
    }
    const rendered = renderError(error, dialect);
    res.writeHead(rendered.status, { ...rendered.headers, "content-length": String(Buffer.byteLength(rendered.body)) });
    res.end(rendered.body);
    metrics.requests.inc({ kind, method, status: String(rendered.status) });
  }

  function ownEndpoint(req: IncomingMessage, res: ServerResponse): boolean {
    if (req.method !== "GET") return false;
    const path = req.url?.split("?", 1)[0];
    if (path === "/metrics") {
      void metrics.registry.metrics().then((text) => {
        res.writeHead(200, { "content-type": metrics.registry.contentType });
        res.end(text);
      });
      return true;
    }
    if (path === "/healthz" || path === "/readyz") {
      const ready = path === "/healthz" || (!closing && buffer.admission(true) === "admit");
      const body = JSON.stringify({ status: ready ? "ok" : "unavailable", workerId: config.workerId, buffered: buffer.length, ledgerReachable: buffer.ledgerReachable });
      res.writeHead(ready ? 200 : 503, { "content-type": "application/json" });
      res.end(body);
      return true;
    }
    return false;
  }

  /** Reads the whole request body, bounded; null when the client went away or sent too much (answered). */
  function readBody(req: IncomingMessage, res: ServerResponse): Promise<Buffer | null> {
    return new Promise((resolve) => {
      const chunks: Buffer[] = [];
      let size = 0;
      let done = false;
      const finish = (value: Buffer | null) => {
        if (done) return;
        done = true;
        resolve(value);
      };
      req.on("data", (chunk: Buffer) => {
        if (done) return;
        size += chunk.length;
        if (size > config.maxBodyBytes) {
          res.setHeader("connection", "close");
          answer(res, new ProxyError("PROXY_BODY_TOO_LARGE"), dialectOf(null, req.headers), "other", "");
          req.resume();
          finish(null);
          return;
        }
        chunks.push(chunk);
      });
      req.on("end", () => finish(Buffer.concat(chunks, size)));
      req.on("error", () => finish(null));
      req.on("aborted", () => finish(null));
    });
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    res.sendDate = false;
    if (ownEndpoint(req, res)) return;
    // Only logs use the request id: the client's, else one made here.
    const requestId = headerValue(req.headers, "x-request-id") ?? `proxy-${++requests}`;
    const body = await readBody(req, res);
    if (body === null) {
      if (!res.headersSent) res.destroy();
      return;
    }
    const head = { method: req.method ?? "GET", url: req.url ?? "/", headers: req.headers };
    const request = classifyRequest(head, body);
    const dialect = dialectOf(request, req.headers);
    const kind = request.kind;
    const method = request.kind === "jsonrpc" ? (request.method ?? "unknown") : request.kind === "rest" ? request.method : "";

    if (closing) return answer(res, new ProxyError("PROXY_SHUTTING_DOWN", undefined, config.retryAfterSeconds), dialect, kind, method);
    const records = request.kind === "card" || request.kind === "rest" || (request.kind === "jsonrpc" && request.method !== null);
    if (records && buffer.admission(isNewDispatch(request)) === "refuse") {
      metrics.failClosedRejections.inc();
      return answer(res, new ProxyError("PROXY_LEDGER_UNAVAILABLE", undefined, config.retryAfterSeconds), dialect, kind, method);
    }
    if (request.kind === "malformed-jsonrpc") {
      unrecorded("malformed_jsonrpc");
      log.warn({ requestId, reason: request.reason, bytes: body.length }, "forwarding a malformed JSON-RPC request as it is; nothing recorded");
    }
    if (request.kind === "rest" && !request.readable) unrecorded("unreadable_body");

    const explicit = validCorrelationId(headerValue(req.headers, correlationHeader)) ?? (request.kind === "jsonrpc" || request.kind === "rest" ? validCorrelationId(request.dispatch?.correlationId) : null);
    const recorder = records && request.kind !== "card" ? new ExchangeRecorder({ source, memory, emit, now }, request as Recorded & { method: NonNullable<Recorded["method"]> }, explicit) : null;

    forward(req, res, body, request, recorder, explicit, dialect, kind, method, requestId);
  }

  function forward(
    req: IncomingMessage,
    res: ServerResponse,
    body: Buffer,
    request: A2ARequest,
    recorder: ExchangeRecorder | null,
    explicit: string | null,
    dialect: ClientDialect,
    kind: string,
    method: string,
    requestId: string,
  ): void {
    const headers = endToEndHeaders(req.rawHeaders, ["content-length"]);
    if (body.length > 0 || req.headers["content-length"] !== undefined) headers.push("Content-Length", String(body.length));
    const started = now();
    const upReq = transport.request({
      protocol: upstream.protocol,
      hostname: upstream.hostname,
      port: upstream.port,
      method: req.method,
      path: `${upstreamPrefix}${req.url ?? "/"}`,
      headers,
      agent,
      setHost: false,
    });
    let settled = false;
    const settle = () => {
      if (settled) return;
      settled = true;
      recorder?.finish();
    };
    const timer = setTimeout(() => upReq.destroy(new ProxyError("PROXY_UPSTREAM_TIMEOUT")), config.upstreamTimeoutMs);

    upReq.on("finish", () => recorder?.delivered());
    upReq.on("error", (err: Error & { code?: string }) => {
      clearTimeout(timer);
      if (res.headersSent) {
        res.destroy();
      } else if (!res.destroyed) {
        const code = upstreamErrorCode(err);
        metrics.upstreamErrors.inc({ code });
        log.warn({ requestId, code, err: err.message }, "the worker did not answer");
        answer(res, err instanceof ProxyError ? err : new ProxyError(code), dialect, kind, method);
      }
      settle();
    });

    let clientGone = false;
    res.on("close", () => {
      if (!res.writableFinished) {
        clientGone = true;
        metrics.clientDisconnects.inc();
        upReq.destroy();
        settle();
      }
    });

    upReq.on("response", (upRes) => {
      clearTimeout(timer);
      metrics.upstreamSeconds.observe({ kind }, (now() - started) / 1000);
      recorder?.delivered();
      const status = upRes.statusCode ?? 502;
      const contentType = upRes.headers["content-type"];
      const encoding = upRes.headers["content-encoding"];
      const stream = isEventStream(contentType);
      // Outside a stream the worker may not fall silent for longer than the upstream timeout; a stream may
      // legitimately stay quiet while its task waits, so it ends only when the worker or the client ends it.
      const idle = stream ? undefined : setTimeout(() => upRes.destroy(new ProxyError("PROXY_UPSTREAM_TIMEOUT")), config.upstreamTimeoutMs);
      const resetIdle = () => void idle?.refresh();

      const outHeaders = endToEndHeaders(upRes.rawHeaders);
      const done = () => {
        metrics.requests.inc({ kind, method, status: String(status) });
        settle();
      };
      upRes.on("error", () => undefined);
      upRes.on("close", () => {
        clearTimeout(idle);
        if (upRes.complete || clientGone) return;
        // The worker went away (or fell silent) in the middle of its answer: the client sees the answer cut
        // off, as it would directly.
        metrics.upstreamErrors.inc({ code: "PROXY_UPSTREAM_UNREACHABLE" });
        res.destroy();
        settle();
      });

      if (request.kind === "card") {
        relayCard(res, upRes, { status, headers: outHeaders, encoding, explicit, version: request.version, path: (req.url ?? "/").split("?", 1)[0] ?? "/" }, done);
        return;
      }

      res.writeHead(status, upRes.statusMessage, outHeaders);
      const read = recorder !== null ? readerFor(request as Recorded, status, stream, encoding, recorder) : null;
      upRes.on("data", (chunk: Buffer) => {
        resetIdle();
        if (!res.write(chunk)) {
          upRes.pause();
          res.once("drain", () => upRes.resume());
        }
        read?.push(chunk);
      });
      upRes.on("end", () => {
        res.end();
        read?.end();
        done();
      });
    });

    upReq.end(body);
  }

  /** Reads an answer for observations as it passes: event by event for a stream, whole otherwise. */
  function readerFor(request: Recorded, status: number, stream: boolean, encoding: string | undefined, recorder: ExchangeRecorder): { push(chunk: Buffer): void; end(): void } | null {
    const sightingsOf = (value: unknown): Sighting[] => (request.kind === "jsonrpc" ? sightingsOfJsonRpc(value) : sightingsOfRest(status, value));
    const identity = encoding === undefined || encoding.trim() === "" || encoding.trim().toLowerCase() === "identity";
    if (stream) {
      if (!identity) {
        unrecorded("encoded_body");
        return null;
      }
      const parser = new SseParser(
        (event) => {
          const parsed = parseJson(Buffer.from(event.data));
          if (parsed.ok) recorder.observe(sightingsOf(parsed.value));
        },
        () => unrecorded("oversized_event"),
        config.maxRecordedBytes,
      );
      return { push: (chunk) => parser.push(chunk), end: () => parser.end() };
    }
    const chunks: Buffer[] = [];
    let size = 0;
    let tooLarge = false;
    return {
      push(chunk) {
        if (tooLarge) return;
        size += chunk.length;
        if (size > config.maxRecordedBytes) {
          tooLarge = true;
          chunks.length = 0;
          unrecorded("body_too_large");
          return;
        }
        chunks.push(chunk);
      },
      end() {
        if (tooLarge) return;
        const bytes = decoded(Buffer.concat(chunks, size), encoding, config.maxRecordedBytes);
        if (bytes === null) return unrecorded("encoded_body");
        const parsed = parseJson(bytes);
        if (parsed.ok) recorder.observe(sightingsOf(parsed.value));
        else if (status === 404) recorder.observe(sightingsOfRest(404, null));
      },
    };
  }

  interface CardAnswer {
    status: number;
    headers: string[];
    encoding: string | undefined;
    explicit: string | null;
    /** The protocol version the client asked for. */
    version: "1.0" | "0.3";
    path: string;
  }

  /** The card: read whole (it is small), recorded as the worker sent it, relayed with its URLs rewritten when configured. */
  function relayCard(res: ServerResponse, upRes: IncomingMessage, answer: CardAnswer, done: () => void): void {
    const chunks: Buffer[] = [];
    let size = 0;
    upRes.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > config.maxRecordedBytes) {
        upRes.destroy(new Error("card larger than PROXY_MAX_RECORDED_BYTES"));
        return;
      }
      chunks.push(chunk);
    });
    upRes.on("end", () => {
      const raw = Buffer.concat(chunks, size);
      const plain = decoded(raw, answer.encoding, config.maxRecordedBytes);
      let sent = raw;
      let headers = answer.headers;
      if (plain === null) unrecorded("encoded_body");
      else if (answer.status === 200) {
        const text = plain.toString("utf8");
        recordCard(text, answer);
        let rewritten = config.rewriteCardUrls && publicUrl !== "" ? rewriteCardUrls(text, [config.upstreamUrl, ...config.cardUrlAliases], publicUrl) : text;
        rewritten = deps.grpcCard?.(text, rewritten) ?? rewritten;
        // A content-encoded card is relayed as it is: rewriting it would mean encoding it again.
        if (plain === raw) {
          if (rewritten !== text) {
            sent = Buffer.from(rewritten, "utf8");
            headers = endToEndHeaders(answer.headers, ["content-length"]);
            headers.push("Content-Length", String(sent.length));
          }
        }
      }
      if (!res.destroyed) {
        res.writeHead(answer.status, upRes.statusMessage, headers);
        res.end(sent);
      }
      done();
    });
  }

  function recordCard(text: string, answer: CardAnswer): void {
    // A worker that serves a v0.3 translation beside its v1.0 card (Vary: A2A-Version) is recorded by its
    // v1.0 card only, so that the two shapes of one card do not read as card changes.
    const vary = rawHeader(answer.headers, "vary")?.toLowerCase() ?? "";
    if (answer.version === "0.3" && vary.includes("a2a-version")) return unrecorded("v03_card");
    let card: unknown;
    try {
      card = JSON.parse(text);
    } catch {
      return;
    }
    if (typeof card !== "object" || card === null || Array.isArray(card)) return;
    const fetched = {
      cardUrl: `${config.upstreamUrl}${answer.path}`,
      card: text,
      cacheMaxAgeSeconds: maxAgeOf(rawHeader(answer.headers, "cache-control")),
      etag: rawHeader(answer.headers, "etag") ?? null,
    };
    emit(cardObservation(source, answer.explicit ?? `card:${config.workerId}`, fetched, now()));
  }

  const server = http.createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      log.error({ err }, "proxy failure");
      answer(res, new ProxyError("PROXY_INTERNAL"), dialectOf(null, req.headers), "other", "");
    });
  });

  return {
    server,
    setPublicUrl(url: string) {
      publicUrl = url;
    },
    beginShutdown() {
      closing = true;
    },
  };
}
