/**
 * The ingest HTTP API on fastify. `buildServer(deps)` wires the routes to a sink and an encoder so
 * that tests can build as many servers as they need; `main.ts` builds the real ones.
 */
import { loggerOptions } from "@a2a-ledger/logging";
import { routeGuard, routeMethods } from "@a2a-ledger/env";
import { randomUUID } from "node:crypto";
import Fastify, {
  type FastifyError,
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
  type FastifyServerOptions,
} from "fastify";
import { cardKeys, checkCardSignature } from "@a2a-ledger/card-signatures";
import { anyObserver, type ObserverGrant, type ScopeRefusal, tokenCheck } from "./auth.ts";
import { bodyFormatOf, eventsOf } from "./body.ts";
import type { IngestConfig } from "./config.ts";
import { docsPage } from "./docs-page.ts";
import { encodeBatch, type Encoder } from "./encode-batch.ts";
import { IngestError, isIngestError, type ErrorCode } from "./errors.ts";
import type { ObservationSink } from "./kafka-sink.ts";
import { lingering, type LingerLimits } from "./linger.ts";
import { createMetrics, type IngestMetrics } from "./metrics.ts";
import { openApiDocument } from "./openapi.ts";
import { perCallerRateLimit } from "@a2a-ledger/env/rate-limit";
import { validateBatch } from "./validate-batch.ts";

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

const readinessTimeoutMs = 2_000;

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

const requestIdPattern = /^[A-Za-z0-9._:-]{1,128}$/;

/** The codes of a scope refusal, the most basic first: a batch with several kinds of refusal is answered with the first present. */
const scopeCodes: readonly ScopeRefusal["code"][] = [
  "INGEST_OBSERVER_FORBIDDEN",
  "INGEST_KIND_FORBIDDEN",
  "INGEST_WORKER_FORBIDDEN",
];
const scopeWhat: Readonly<Record<ScopeRefusal["code"], string>> = {
  INGEST_OBSERVER_FORBIDDEN: "claim an observer this token may not write as",
  INGEST_KIND_FORBIDDEN: "are of a kind this token may not post",
  INGEST_WORKER_FORBIDDEN: "speak about a worker this token may not speak about",
};

/** 403 for a batch with events outside the token's scope; details name every such event (first 100). */
function scopeError(outside: readonly ({ index: number } & ScopeRefusal)[]): IngestError {
  const code = scopeCodes.find((c) => outside.some((o) => o.code === c)) ?? "INGEST_OBSERVER_FORBIDDEN";
  const counts = scopeCodes.flatMap((c) => {
    const n = outside.filter((o) => o.code === c).length;
    return n === 0 ? [] : [`${n} event(s) ${scopeWhat[c]}`];
  });
  return new IngestError(
    code,
    `${counts.join("; ")}; the whole batch was refused and nothing was produced`,
    outside.slice(0, 100).map(({ index, path, message }) => ({ index, path, message })),
  );
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
  const grants = new WeakMap<object, ObserverGrant>();
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
    requestIdHeader: false,
    genReqId: (req) => {
      const given = req.headers["x-request-id"];
      return typeof given === "string" && requestIdPattern.test(given) ? given : randomUUID();
    },
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

  app.addHook("onRequest", async (request, reply) => {
    reply.header("x-request-id", request.id);
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
  app.addHook("onResponse", async (request, reply) => {
    metrics.requests.inc({
      route: request.routeOptions.url ?? "unmatched",
      method: request.method,
      status: String(reply.statusCode),
    });
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
  // Every method each path takes (fastify adds HEAD beside GET), for 405 answers with Allow.
  const methods = routeMethods();
  app.addHook("onRoute", (route) => methods.add(route.url, route.method));
  const unmatched = (request: FastifyRequest, reply: FastifyReply): IngestError => {
    const path = request.url.split("?", 1)[0] ?? "";
    const allow = methods.allowFor(path);
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

  app.post(
    "/v1/observations",
    {
      onRequest: async (request) => {
        // The guard (onRequest above) has refused a request without a valid token; this finds the token's scope.
        const grant = tokens.grant(request.headers.authorization);
        if (grant === undefined) throw new IngestError("INGEST_UNAUTHORIZED", "A valid bearer token is required");
        grants.set(request, grant);
        bodyFormatOf(request.headers["content-type"]);
      },
    },
    async (request, reply) => {
      const format = bodyFormatOf(request.headers["content-type"]);
      const body = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
      const values = eventsOf(body, format, config.maxEvents);
      metrics.eventsReceived.inc(values.length);
      const observations = validateBatch(values, config.maxDepth);
      // A token writes only inside its scope (observers, kinds, workers); one event outside it refuses the whole batch.
      const grant = grants.get(request) ?? anyObserver;
      const outside = observations.flatMap((o, index) => {
        const refusal = grant.refusal(o);
        return refusal === undefined ? [] : [{ index, ...refusal }];
      });
      if (outside.length > 0) throw scopeError(outside);
      // Who said it: the authenticated principal, over whatever the client put there (null without tokens).
      for (const o of observations) o.principal = grant.principal;
      // A card carries what ingest found, over whatever the client sent: its signature against the keys
      // trusted for its worker (null: none are), and whom its poster speaks for (card-admission in core).
      for (const o of observations) {
        if (o.type !== "AgentCardObserved") continue;
        const check = keys.empty ? null : await checkCardSignature(o.card, o.workerId, keys, o.occurredAt);
        o.signature = check?.status ?? null;
        o.signatureKeyId = check?.keyId ?? null;
        o.standing = grant.standing(o);
        if (check !== null) metrics.cardSignatures.inc({ status: check.status });
      }
      const records = await encodeBatch(encoder, observations, config.maxRecordBytes, config.retryAfterSeconds);
      const stopTimer = metrics.produceSeconds.startTimer();
      try {
        await sink.publish(records);
        stopTimer({ outcome: "acknowledged" });
      } catch (e) {
        stopTimer({ outcome: "failed" });
        throw e;
      }
      metrics.eventsAccepted.inc(records.length);
      metrics.batchSize.observe(records.length);
      return reply.code(202).send({ accepted: records.length });
    },
  );

  app.get("/healthz", async () => ({ status: "ok" }));

  app.get("/readyz", async (_request, reply) => {
    const [kafka, registry] = await Promise.all([
      sink.kafkaReachable(readinessTimeoutMs),
      deps.registryReachable(readinessTimeoutMs),
    ]);
    const refused = sink.accessFailure;
    const ready = kafka && registry && !closing && refused === undefined;
    // The reason names the cause and the resource, never a secret (access-failure.ts).
    const reason =
      refused === undefined
        ? {}
        : { reason: { code: refused.code, resource: refused.resource, message: refused.message } };
    return reply.code(ready ? 200 : 503).send({
      status: ready ? "ready" : "not ready",
      kafka: kafka && refused === undefined,
      registry,
      closing,
      ...reason,
    });
  });

  app.get("/metrics", async (_request, reply) => {
    const text = await metrics.registry.metrics();
    return reply.type(metrics.registry.contentType).send(text);
  });

  app.get("/openapi.json", async (_request, reply) => reply.type("application/json; charset=utf-8").send(openapiText));
  app.get("/docs", async (_request, reply) => reply.type("text/html; charset=utf-8").send(docs));

  return app;
}
