/**
 * The recording proxy's HTTP server: each request is either one of the proxy's own endpoints
 * (own-endpoints.ts) or the worker's. A request for the worker is read (request-body.ts), classified
 * (a2a-request.ts), admitted or refused by the fail mode (observation-buffer.ts), given a recorder
 * (exchange-recorder.ts) under its correlation, and forwarded (forwarding.ts; the card through
 * card-relay.ts). The proxy's own answers are the errors of errors.ts (error-response.ts).
 */
import http, { type IncomingMessage, type ServerResponse } from "node:http";
import type { CardKeys } from "@a2a-ledger/card-signatures";
import type { ObservationInput } from "@a2a-ledger/ingest-client";
import { classifyRequest, correlationHeader, headerValue, isCardPath, isNewDispatch } from "./a2a-request.ts";
import type { RecordedRequest } from "./answer-reader.ts";
import { originalCardPrefix, type CardRelayDeps } from "./card-relay.ts";
import type { ProxyConfig } from "./config.ts";
import { validCorrelationId, type CorrelationMemory } from "./correlation.ts";
import { dialectOf, sendError } from "./error-response.ts";
import { ProxyError } from "./errors.ts";
import { ExchangeRecorder } from "./exchange-recorder.ts";
import type { GrpcCardRewrite } from "./grpc/grpc-card.ts";
import { createForwarder, type Exchange } from "./forwarding.ts";
import type { Logger } from "@a2a-ledger/logging";
import type { ProxyMetrics } from "./metrics.ts";
import type { ObservationBuffer } from "./observation-buffer.ts";
import { type ObservationSource, TaskSightings } from "@a2a-ledger/ingest-client";
import { serveOwnEndpoint } from "./own-endpoints.ts";
import { readRequestBody } from "./request-body.ts";
import type { VerifiedCardSource } from "./verified-card-source.ts";

export interface ProxyServerDeps {
  config: ProxyConfig;
  buffer: ObservationBuffer;
  memory: CorrelationMemory;
  /** The last state recorded per task, shared by every channel of the proxy (a TaskNotFound names the sighting it follows). */
  sightings?: TaskSightings;
  metrics: ProxyMetrics;
  log: Logger;
  now?: () => number;
  /** With the gRPC relay: learns its upstream from each card relayed and rewrites the card's GRPC URL. */
  grpcCard?: GrpcCardRewrite;
  /** With A2A_LEDGER_PROXY_CARD=verified: the projector's verified cards. */
  verifiedCards?: VerifiedCardSource;
  /** With A2A_LEDGER_CARD_KEYS: the keys a card served is checked against. */
  cardKeys?: CardKeys;
}

/** In verified mode, a GET of `/a2a-ledger/advertised<card path>` is the worker's card as advertised: its URL without the prefix, else null. */
export function originalCardUrl(method: string | undefined, url: string): string | null {
  if (method !== "GET" || !url.startsWith(`${originalCardPrefix}/`)) return null;
  const rest = url.slice(originalCardPrefix.length);
  return isCardPath(rest.split("?", 1)[0] ?? "") ? rest : null;
}

export interface ProxyServer {
  server: http.Server;
  /** The proxy's base URL as clients reach it (card URLs are rewritten to it). */
  setPublicUrl(url: string): void;
  /** Stop taking requests: new ones get 503 PROXY_SHUTTING_DOWN. */
  beginShutdown(): void;
}

export function createProxyServer(deps: ProxyServerDeps): ProxyServer {
  const { config, buffer, memory, metrics, log } = deps;
  const now = deps.now ?? Date.now;
  const source: ObservationSource = {
    workerId: config.workerId,
    observer: config.observer,
    sightings: deps.sightings ?? new TaskSightings(config.correlationMemory),
  };
  let publicUrl = config.publicUrl ?? "";
  let requests = 0;
  let closing = false;

  const emit = (o: ObservationInput): void => void buffer.offer(o);
  const kept = (): Promise<void> => buffer.kept();
  const card: CardRelayDeps = {
    config,
    source,
    publicUrl: () => publicUrl,
    emit,
    kept,
    unrecorded: (reason) => metrics.unrecorded.inc({ reason }),
    now,
    ...(deps.grpcCard === undefined ? {} : { grpcCard: deps.grpcCard }),
    ...(deps.verifiedCards === undefined ? {} : { verifiedCards: deps.verifiedCards }),
    ...(deps.cardKeys === undefined ? {} : { cardKeys: deps.cardKeys }),
    served: (served, reason) => metrics.cardsServed.inc({ card: served, reason }),
    log,
  };

  function fail(res: ServerResponse, error: ProxyError, exchange: Pick<Exchange, "dialect" | "kind" | "method">): void {
    const status = sendError(res, error, exchange.dialect);
    if (status !== null) metrics.requests.inc({ kind: exchange.kind, method: exchange.method, status: String(status) });
  }

  const forwarder = createForwarder({
    config,
    metrics,
    log,
    now,
    card,
    kept,
    fail: (exchange, error) => fail(exchange.res, error, exchange),
  });

  const ownEndpoints = {
    metrics,
    ready: () => !closing && buffer.admission(true) === "admit",
    status: () => ({ workerId: config.workerId, ...buffer.status() }),
  };

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    res.sendDate = false;
    if (serveOwnEndpoint(req, res, ownEndpoints)) return;
    // Only logs use the request id: the client's, else one made here.
    const requestId = headerValue(req.headers, "x-request-id") ?? `proxy-${++requests}`;
    let cardMode = config.cardMode;
    const original = cardMode === "verified" ? originalCardUrl(req.method, req.url ?? "/") : null;
    if (original !== null) {
      req.url = original;
      cardMode = "advertised";
    }
    const read = await readRequestBody(req, config.maxBodyBytes);
    if (!read.ok) {
      if (read.reason === "too-large") {
        res.setHeader("connection", "close");
        fail(res, new ProxyError("PROXY_BODY_TOO_LARGE"), {
          dialect: dialectOf(null, req.headers),
          kind: "other",
          method: "",
        });
      } else if (!res.headersSent) res.destroy();
      return;
    }
    const body = read.body;
    const request = classifyRequest({ method: req.method ?? "GET", url: req.url ?? "/", headers: req.headers }, body);
    const dialect = dialectOf(request, req.headers);
    const kind = request.kind;
    const method =
      request.kind === "jsonrpc" ? (request.method ?? "unknown") : request.kind === "rest" ? request.method : "";
    const labels = { dialect, kind, method };

    if (closing) return fail(res, new ProxyError("PROXY_SHUTTING_DOWN", undefined, config.retryAfterSeconds), labels);
    const records =
      request.kind === "card" || request.kind === "rest" || (request.kind === "jsonrpc" && request.method !== null);
    let release: (() => void) | null = null;
    if (records) {
      release = buffer.reserve(isNewDispatch(request));
      if (release === null) {
        metrics.failClosedRejections.inc();
        return fail(res, new ProxyError("PROXY_LEDGER_UNAVAILABLE", undefined, config.retryAfterSeconds), labels);
      }
      // The slot is held until the exchange ends, answered or cut.
      if (res.destroyed) release();
      else res.once("close", release);
    }
    // The exchange's first observation takes the place of its reserved slot.
    const held = release;
    const emitOwn =
      held === null
        ? emit
        : (o: ObservationInput): void => {
            held();
            emit(o);
          };
    if (request.kind === "malformed-jsonrpc") {
      metrics.unrecorded.inc({ reason: "malformed_jsonrpc" });
      log.warn(
        { requestId, reason: request.reason, bytes: body.length },
        "forwarding a malformed JSON-RPC request as it is; nothing recorded",
      );
    }
    if (request.kind === "rest" && !request.readable) metrics.unrecorded.inc({ reason: "unreadable_body" });

    const explicit =
      validCorrelationId(headerValue(req.headers, correlationHeader)) ??
      (request.kind === "jsonrpc" || request.kind === "rest"
        ? validCorrelationId(request.dispatch?.correlationId)
        : null);
    const recorder =
      records && request.kind !== "card"
        ? new ExchangeRecorder(
            { source, memory, emit: emitOwn, now },
            request as RecordedRequest & { method: NonNullable<RecordedRequest["method"]> },
            explicit,
          )
        : null;

    forwarder.forward({ req, res, body, request, recorder, explicit, ...labels, requestId, cardMode });
  }

  const server = http.createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      log.error({ err }, "proxy failure");
      fail(res, new ProxyError("PROXY_INTERNAL"), { dialect: dialectOf(null, req.headers), kind: "other", method: "" });
    });
  });
  server.on("close", () => forwarder.close());

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
