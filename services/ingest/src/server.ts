/**
 * The ingest HTTP API on fastify. `buildServer(deps)` wires the routes to a sink and an encoder so
 * that tests can build as many servers as they need; `main.ts` builds the real ones. It holds what every
 * route shares — request ids, the bearer guard decided on the matched route, the per-caller rate limit,
 * draining, lingering after an early answer, metrics, one error shape, 404/405 — and registers the routes,
 * one plugin per concept (routes/).
 */
import { loggerOptions } from "@a2a-ledger/logging";
import { requestIdOptions, routeGuard, serviceHooks } from "@a2a-ledger/env";
import Fastify, {
  type FastifyError,
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
  type FastifyServerOptions,
} from "fastify";
import { cardKeys } from "@a2a-ledger/card-signatures";
import { tokenCheck } from "./auth.ts";
import type { IngestConfig } from "./config.ts";
import { docsPage } from "./docs-page.ts";
import type { Encoder } from "./encode-batch.ts";
import { IngestError, isIngestError, type ErrorCode } from "./errors.ts";
import type { ObservationSink } from "./kafka-sink.ts";
import { lingering, type LingerLimits } from "./linger.ts";
import { createMetrics, type IngestMetrics } from "./metrics.ts";
import { openApiDocument } from "./openapi.ts";
import { perCallerRateLimit } from "@a2a-ledger/env/rate-limit";
import { observationRoutes } from "./routes/observations.ts";
import { operationRoutes } from "./routes/operations.ts";

export type ServerConfig = Pick<
  IngestConfig,
  | "maxBodyBytes"
  | "maxEvents"
  | "maxRecordBytes"
  | "maxDepth"
  | "retryAfterSeconds"
  | "tokens"
  | "rateLimit"
  | "rateLimitWindowMs"
  | "shutdownGraceMs"
  | "logLevel"
> &
  Partial<Pick<IngestConfig, "cardKeys">>;

export interface ServerDeps {
  config: ServerConfig;
  sink: ObservationSink;
  encoder: Encoder;
  /** Whether the schema registry answers; /readyz asks it. */
  registryReachable: (timeoutMs: number) => Promise<boolean>;
  metrics?: IngestMetrics;
  /** How long and how much an early answer lingers; defaults from config.maxBodyBytes (see drainFactor, lingerMs). */
  linger?: LingerLimits;
  /** fastify logger option; defaults to JSON logs at config.logLevel. */
  logger?: FastifyServerOptions["logger"];
}

/** After an answer sent before the body was read, discard up to this many times the body limit (at least 1 MiB) … */
export const drainFactor = 4;
/** … for at most this long, so that clients that write the whole body before reading still read the answer. */
export const lingerMs = 10_000;

/** Fastify's own error codes → the catalogue. */
const fastifyCodes: Readonly<Record<string, ErrorCode>> = {
  FST_ERR_CTP_BODY_TOO_LARGE: "INGEST_BODY_TOO_LARGE",
  FST_ERR_CTP_INVALID_MEDIA_TYPE: "INGEST_UNSUPPORTED_MEDIA_TYPE",
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: "INGEST_BAD_REQUEST",
  FST_ERR_CTP_EMPTY_JSON_BODY: "INGEST_MALFORMED_BODY",
  FST_ERR_CTP_INVALID_JSON_BODY: "INGEST_MALFORMED_BODY",
};

function toIngestError(error: FastifyError | Error): IngestError {
  if (isIngestError(error)) return error;
  const code = "code" in error && typeof error.code === "string" ? fastifyCodes[error.code] : undefined;
  if (code !== undefined) return new IngestError(code);
  const status = "statusCode" in error && typeof error.statusCode === "number" ? error.statusCode : 500;
  if (status === 413) return new IngestError("INGEST_BODY_TOO_LARGE");
  if (status === 415) return new IngestError("INGEST_UNSUPPORTED_MEDIA_TYPE");
  if (status >= 400 && status < 500) return new IngestError("INGEST_BAD_REQUEST", error.message.slice(0, 300));
  return new IngestError("INGEST_INTERNAL");
}

export function buildServer(deps: ServerDeps): FastifyInstance {
  const { config, sink, encoder } = deps;
  const metrics = deps.metrics ?? createMetrics();
  const tokens = tokenCheck(config.tokens);
  const keys = cardKeys(config.cardKeys ?? []);
  /** Tokens guard every route but the health checks, /metrics and the documentation; decided on the route matched, never the raw URL. */
  const guard = routeGuard({
    tokens: tokens.bearer,
    publicRoutes: ["/healthz", "/readyz", "/metrics", "/openapi.json", "/docs"],
  });
  const openapi = openApiDocument({
    authRequired: tokens.required,
    maxBodyBytes: config.maxBodyBytes,
    maxEvents: config.maxEvents,
    maxDepth: config.maxDepth,
  });
  const openapiText = JSON.stringify(openapi);
  const docs = docsPage(openapi);
  let closing = false;
  const linger = lingering(
    deps.linger ?? { maxBytes: Math.max(drainFactor * config.maxBodyBytes, 1024 * 1024), maxMs: lingerMs },
  );

  const app = Fastify({
    logger: deps.logger ?? loggerOptions("ingest", config.logLevel),
    bodyLimit: config.maxBodyBytes,
    ...requestIdOptions,
    return503OnClosing: false,
    forceCloseConnections: "idle",
  });

  // Bodies are read as bytes and decoded here: the UTF-8 check, the media types and every error answer
  // stay under this service's control.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser("*", { parseAs: "buffer" }, (_req, body, done) => done(null, body));

  // Each token (or, without tokens, each client address) is limited on every route the guard protects.
  const rateLimited = perCallerRateLimit(
    app,
    { max: config.rateLimit, windowMs: config.rateLimitWindowMs },
    (request) =>
      tokens.required
        ? `token:${tokens.bearer.match(request.headers.authorization) ?? "none"}`
        : `address:${request.ip}`,
  );

  const hooks = serviceHooks(app, {
    echoRequestId: true,
    countAnswer: (route, method, status) => metrics.requests.inc({ route, method, status }),
  });
  app.addHook("onRequest", async (request) => {
    if (closing) throw new IngestError("INGEST_SHUTTING_DOWN", undefined, undefined, config.retryAfterSeconds);
    if (guard.refuses(request)) throw new IngestError("INGEST_UNAUTHORIZED", "A valid bearer token is required");
    if (request.is404 || guard.isPublic(request.routeOptions.url ?? "")) return;
    const wait = await rateLimited(request);
    if (wait !== undefined) throw new IngestError("INGEST_RATE_LIMITED", undefined, undefined, wait);
  });
  app.addHook("preClose", async () => {
    closing = true;
    linger.closeAll();
  });
  app.addHook("onClose", async () => {
    await sink.close(config.shutdownGraceMs);
  });
  app.addHook("onSend", async (request, reply) => {
    // While draining, answers close their connection so that keep-alive clients reconnect elsewhere.
    if (closing) reply.header("connection", "close");
    // An answer before the whole body arrived (413, 401, 415, …): linger so the client can read it.
    linger.afterEarlyAnswer(request.raw, reply.raw);
  });

  app.setErrorHandler((error: FastifyError | Error, request: FastifyRequest, reply: FastifyReply) => {
    // A request that matched no route is answered 404 or 405 even when fastify failed it earlier (body checks).
    const ingestError = request.is404 && !isIngestError(error) ? unmatched(request, reply) : toIngestError(error);
    if (ingestError.status >= 500) request.log.error({ err: error, code: ingestError.code }, "request failed");
    else request.log.info({ code: ingestError.code, status: ingestError.status }, "request rejected");
    metrics.rejects.inc({ code: ingestError.code });
    if (ingestError.retryAfterSeconds !== undefined) reply.header("retry-after", String(ingestError.retryAfterSeconds));
    if (ingestError.code === "INGEST_UNAUTHORIZED")
      reply.header("www-authenticate", 'Bearer realm="a2a-ledger-ingest"');
    return reply.code(ingestError.status).send(ingestError.body());
  });
  const unmatched = (request: FastifyRequest, reply: FastifyReply): IngestError => {
    const path = hooks.pathOf(request);
    const allow = hooks.allowFor(request);
    if (allow === undefined)
      return new IngestError(
        "INGEST_NOT_FOUND",
        `No route ${request.method.slice(0, 20)} ${request.url.slice(0, 200)}`,
      );
    reply.header("allow", allow);
    return new IngestError(
      "INGEST_METHOD_NOT_ALLOWED",
      `${request.method.slice(0, 20)} is not allowed on ${path.slice(0, 200)}; allowed: ${allow}`,
    );
  };
  app.setNotFoundHandler((request, reply) => {
    throw unmatched(request, reply);
  });

  void app.register(observationRoutes, { config, sink, encoder, metrics, tokens, keys });
  void app.register(operationRoutes, {
    sink,
    metrics,
    registryReachable: deps.registryReachable,
    closing: () => closing,
    openapiText,
    docs,
  });

  return app;
}
