/**
 * Forwarding one request to the worker and relaying its answer, on plain node:http: the method, path
 * (under the upstream URL's path), headers (hop-by-hop ones aside) and body bytes go out as they came;
 * the status, headers and body bytes come back as the worker wrote them, chunk by chunk (Server-Sent
 * Events included, never buffered). A copy of the answer is read for observations (answer-reader.ts,
 * card-relay.ts) by the exchange's recorder.
 *
 * An answer is complete for the client only once the observations it showed are kept (the spool's
 * fsync): the last chunk of a non-streamed answer, and the end of a stream, wait for it; a stream's
 * events are relayed the moment they arrive.
 */
import http, { type IncomingMessage, type ServerResponse } from "node:http";
import https from "node:https";
import type { A2ARequest } from "./a2a-request.ts";
import { answerReader, type RecordedRequest } from "./answer-reader.ts";
import { relayCard, type CardRelayDeps } from "./card-relay.ts";
import type { CardMode, ProxyConfig } from "./config.ts";
import { ProxyError, type ClientDialect, type ProxyErrorCode } from "./errors.ts";
import type { ExchangeRecorder } from "./exchange-recorder.ts";
import { endToEndHeaders } from "./hop-by-hop.ts";
import type { Logger } from "@a2a-ledger/logging";
import type { ProxyMetrics } from "./metrics.ts";

/** One request from a client, read and classified, on its way to the worker. */
export interface Exchange {
  req: IncomingMessage;
  res: ServerResponse;
  body: Buffer;
  request: A2ARequest;
  /** Null for traffic that is not recorded (and for the card, which card-relay.ts records). */
  recorder: ExchangeRecorder | null;
  /** The correlation id the request named, if any. */
  explicit: string | null;
  dialect: ClientDialect;
  /** Metric labels. */
  kind: string;
  method: string;
  /** For logs only. */
  requestId: string;
  /** For a card request: which card to serve (card-relay.ts). */
  cardMode: CardMode;
}

export interface ForwarderDeps {
  config: ProxyConfig;
  metrics: ProxyMetrics;
  log: Logger;
  now(): number;
  card: CardRelayDeps;
  /** Resolves once the observations emitted so far are kept safe (the spool's fsync). */
  kept(): Promise<void>;
  /** Answers the exchange with one of the proxy's own errors (counted). */
  fail(exchange: Exchange, error: ProxyError): void;
}

export interface Forwarder {
  forward(exchange: Exchange): void;
  /** Closes pooled connections to the worker. */
  close(): void;
}

function upstreamErrorCode(error: Error & { code?: string }): ProxyErrorCode {
  if (error instanceof ProxyError) return error.code;
  if (error.code?.startsWith("HPE_")) return "PROXY_UPSTREAM_BAD_RESPONSE";
  return "PROXY_UPSTREAM_UNREACHABLE";
}

const isEventStream = (contentType: string | undefined): boolean =>
  contentType?.toLowerCase().startsWith("text/event-stream") ?? false;

export function createForwarder(deps: ForwarderDeps): Forwarder {
  const { config, metrics, log, now } = deps;
  const upstream = new URL(config.upstreamUrl);
  const transport = upstream.protocol === "https:" ? https : http;
  // Pooled connections idle for 4 s are closed: under the 5 s keep-alive of common servers (express,
  // uvicorn), so a request is never sent on a connection the worker is closing. Node also honours a
  // worker's `Keep-Alive: timeout=` hint; active connections (streams) are not affected.
  const agent = new transport.Agent({ keepAlive: true, maxSockets: 512, timeout: 4_000 });
  const upstreamPrefix = upstream.pathname.replace(/\/+$/, "");

  function forward(exchange: Exchange): void {
    const { req, res, body, request, recorder, kind, method, requestId } = exchange;
    // In verified mode the worker is asked for its whole card (card-relay.ts answers If-None-Match itself).
    const verifiedCard = request.kind === "card" && exchange.cardMode === "verified";
    const headers = endToEndHeaders(
      req.rawHeaders,
      verifiedCard ? ["content-length", "if-none-match", "if-modified-since"] : ["content-length"],
    );
    if (body.length > 0 || req.headers["content-length"] !== undefined)
      headers.push("Content-Length", String(body.length));
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
        deps.fail(exchange, err instanceof ProxyError ? err : new ProxyError(code));
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
      const encoding = upRes.headers["content-encoding"];
      const stream = isEventStream(upRes.headers["content-type"]);
      // Outside a stream the worker may not fall silent for longer than the upstream timeout; a stream may
      // legitimately stay quiet while its task waits, so it ends only when the worker or the client ends it.
      const idle = stream
        ? undefined
        : setTimeout(() => upRes.destroy(new ProxyError("PROXY_UPSTREAM_TIMEOUT")), config.upstreamTimeoutMs);
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
        relayCard(
          deps.card,
          res,
          upRes,
          {
            status,
            headers: outHeaders,
            encoding,
            explicit: exchange.explicit,
            version: request.version,
            path: (req.url ?? "/").split("?", 1)[0] ?? "/",
            mode: exchange.cardMode,
            ifNoneMatch: req.headers["if-none-match"],
          },
          done,
        );
        return;
      }

      res.writeHead(status, upRes.statusMessage, outHeaders);
      const read =
        recorder !== null
          ? answerReader(request as RecordedRequest, status, stream, encoding, recorder, {
              maxRecordedBytes: config.maxRecordedBytes,
              unrecorded: (reason) => metrics.unrecorded.inc({ reason }),
            })
          : null;
      const write = (chunk: Buffer) => {
        if (!res.write(chunk)) {
          upRes.pause();
          res.once("drain", () => upRes.resume());
        }
      };
      // Outside a stream the latest chunk is held back until the next one arrives, so that the answer's
      // last bytes can wait for its observations to be kept.
      let held: Buffer | null = null;
      upRes.on("data", (chunk: Buffer) => {
        resetIdle();
        read?.push(chunk);
        if (stream) return write(chunk);
        if (held !== null) write(held);
        held = chunk;
      });
      upRes.on("end", () => {
        read?.end();
        settle();
        void deps.kept().then(() => {
          if (held !== null && !res.destroyed) res.write(held);
          res.end();
          done();
        });
      });
    });

    upReq.end(body);
  }

  return { forward, close: () => agent.destroy() };
}
