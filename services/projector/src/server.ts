/**
 * The projector's read-only HTTP API and web page on fastify. `buildServer(deps)` sets up what every
 * route shares — the read-token guard, the per-caller rate limit, request ids, one error shape, 404 and
 * 405 — and registers the routes, one plugin per concept (routes/), over a store, a live stream and the
 * consumer's view of Kafka, so tests can build as many as they need.
 */
import Fastify, {
  type FastifyBaseLogger,
  type FastifyError,
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
} from "fastify";
import type { PolicySource } from "@a2a-ledger/core";
import { bearerTokens, requestIdOptions, routeGuard, serviceHooks } from "@a2a-ledger/env";
import { perCallerRateLimit } from "@a2a-ledger/env/rate-limit";
import type { AccessFailure } from "@a2a-ledger/kafka";
import { configDefaults, type ProjectorConfig } from "./config.ts";
import { Cursors } from "./cursor.ts";
import { type ErrorCode, ProjectorError } from "./errors.ts";
import type { LiveStream } from "./live-stream.ts";
import type { Logger } from "./logger.ts";
import type { ProjectorMetrics } from "./metrics.ts";
import { openApiDocument } from "./openapi.ts";
import { maxIdChars } from "./query-params.ts";
import { type RouteContext, viewsOf } from "./routes/context.ts";
import { listRoutes } from "./routes/lists.ts";
import { operationRoutes } from "./routes/operations.ts";
import { streamRoutes } from "./routes/stream.ts";
import { taskRoutes } from "./routes/tasks.ts";
import { webAssets, webRoutes } from "./routes/web.ts";
import { routeRoutes, workerRoutes } from "./routes/workers.ts";
import type { Store } from "./store/store.ts";
import type { PartitionEnd } from "./views/lists.ts";

export interface KafkaView {
  endOffsets(): Promise<PartitionEnd[]>;
  kafkaReachable(timeoutMs: number): Promise<boolean>;
  /** Whether the consumer keeps the views up to date. */
  consuming(): boolean;
  /** Why Kafka refuses this service (credentials, certificate, ACL), if it does. */
  accessFailure?(): AccessFailure | undefined;
}

export interface ServerDeps {
  /** `policy`: the recorded trust policy (a2a.policy.v1, followed) or a fixed vendor list. */
  config: Pick<ProjectorConfig, "cursorSecret" | "maxStreams"> & { policy: PolicySource } & Partial<
      Pick<ProjectorConfig, "tokens" | "metricsOpen" | "rateLimit" | "rateLimitWindowMs">
    >;
  store: Store;
  stream: LiveStream;
  metrics: ProjectorMetrics;
  kafka: KafkaView;
  logger: Logger | false;
  now?: () => number;
}

const fastifyCodes: Readonly<Record<string, ErrorCode>> = {
  FST_ERR_CTP_BODY_TOO_LARGE: "PROJECTOR_BAD_REQUEST",
  FST_ERR_CTP_INVALID_MEDIA_TYPE: "PROJECTOR_BAD_REQUEST",
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: "PROJECTOR_BAD_REQUEST",
  FST_ERR_BAD_URL: "PROJECTOR_BAD_REQUEST",
  FST_ERR_ASYNC_CONSTRAINT: "PROJECTOR_BAD_REQUEST",
};

/** Errors that mean the database is out of reach, not that the request or the code is wrong. */
function databaseUnavailable(error: unknown): boolean {
  const e = error as { code?: string; message?: string };
  return (
    (e.code !== undefined &&
      /^(ECONNREFUSED|ECONNRESET|ETIMEDOUT|EPIPE|57P0[1-3]|08\d\d\d|SQLITE_BUSY|SQLITE_CANTOPEN)$/.test(e.code)) ||
    /timeout exceeded when trying to connect|Connection terminated/i.test(e.message ?? "")
  );
}

function toProjectorError(error: FastifyError | Error): ProjectorError {
  if (error instanceof ProjectorError) return error;
  const code = "code" in error && typeof error.code === "string" ? fastifyCodes[error.code] : undefined;
  if (code !== undefined) return new ProjectorError(code, error.message.slice(0, 300));
  if (databaseUnavailable(error)) return new ProjectorError("PROJECTOR_UNAVAILABLE");
  const status = "statusCode" in error && typeof error.statusCode === "number" ? error.statusCode : 500;
  if (status >= 400 && status < 500) return new ProjectorError("PROJECTOR_BAD_REQUEST", error.message.slice(0, 300));
  return new ProjectorError("PROJECTOR_INTERNAL");
}

export function buildServer(deps: ServerDeps): FastifyInstance {
  const { store, stream, metrics, config } = deps;
  const now = deps.now ?? Date.now;
  const cursors = new Cursors(config.cursorSecret);
  const tokens = bearerTokens(config.tokens ?? []);
  const openapiText = JSON.stringify(
    openApiDocument({ authRequired: tokens.required, metricsOpen: config.metricsOpen ?? false }),
  );
  const assets = webAssets();
  /**
   * A read token guards every route but these: the page's files, the health checks, the OpenAPI document,
   * and /metrics when it is left open. Decided on the route fastify matched, never on the raw URL.
   */
  const guard = routeGuard({
    tokens,
    publicRoutes: [
      ...assets.keys(),
      "/healthz",
      "/readyz",
      "/openapi.json",
      ...((config.metricsOpen ?? false) ? ["/metrics"] : []),
    ],
  });
  let closing = false;

  const app = Fastify({
    ...(deps.logger === false ? { logger: false } : { loggerInstance: deps.logger as FastifyBaseLogger }),
    bodyLimit: 1_024,
    // An id of 512 characters, each up to 4 UTF-8 bytes, percent-encoded.
    routerOptions: { maxParamLength: maxIdChars * 12 },
    ...requestIdOptions,
    return503OnClosing: false,
    forceCloseConnections: true,
  });

  app.removeAllContentTypeParsers();
  app.addContentTypeParser("*", { parseAs: "buffer" }, (_req, _body, done) => done(null, undefined));

  // Each read token (or, without tokens, each client address) is limited on every route the guard protects.
  const rateLimited = perCallerRateLimit(
    app,
    {
      max: config.rateLimit ?? configDefaults.rateLimit,
      windowMs: config.rateLimitWindowMs ?? configDefaults.rateLimitWindowMs,
    },
    (request) =>
      tokens.required ? `token:${tokens.match(request.headers.authorization) ?? "none"}` : `address:${request.ip}`,
  );

  const hooks = serviceHooks(app, {
    echoRequestId: true,
    countAnswer: (route, method, status) => metrics.requests.inc({ route, method, status }),
  });
  app.addHook("onRequest", async (request, reply) => {
    reply.header("x-content-type-options", "nosniff");
    if (guard.refuses(request)) {
      throw new ProjectorError("PROJECTOR_UNAUTHORIZED", "A valid bearer read token is required");
    }
    if (request.is404 || guard.isPublic(request.routeOptions.url ?? "")) return;
    const wait = await rateLimited(request);
    if (wait === undefined) return;
    reply.header("retry-after", String(wait));
    throw new ProjectorError("PROJECTOR_RATE_LIMITED");
  });
  app.addHook("preClose", async () => {
    closing = true;
  });
  // Other methods on a known path are 405 with Allow.
  const unmatched = (request: FastifyRequest): ProjectorError => {
    const path = hooks.pathOf(request);
    return hooks.allowFor(request) === undefined
      ? new ProjectorError("PROJECTOR_NOT_FOUND", `No route ${request.method.slice(0, 20)} ${path.slice(0, 200)}`)
      : new ProjectorError(
          "PROJECTOR_METHOD_NOT_ALLOWED",
          `${request.method.slice(0, 20)} is not allowed on ${path.slice(0, 200)}; the API is read-only`,
        );
  };
  app.setErrorHandler((error: FastifyError | Error, request: FastifyRequest, reply: FastifyReply) => {
    // A request that matched no route is answered 404 or 405 even when fastify failed it earlier (body checks).
    const e = request.is404 && !(error instanceof ProjectorError) ? unmatched(request) : toProjectorError(error);
    if (e.status >= 500) request.log.error({ err: error, code: e.code }, "request failed");
    metrics.rejects.inc({ code: e.code });
    if (e.code === "PROJECTOR_METHOD_NOT_ALLOWED") reply.header("allow", hooks.allowFor(request) ?? "GET, HEAD");
    if (e.code === "PROJECTOR_UNAUTHORIZED") reply.header("www-authenticate", 'Bearer realm="a2a-ledger-projector"');
    if (e.status === 503) reply.header("retry-after", "5");
    return reply.code(e.status).type("application/json; charset=utf-8").send(e.body());
  });
  app.setNotFoundHandler((request) => {
    throw unmatched(request);
  });

  const ctx: RouteContext = {
    store,
    stream,
    metrics,
    kafka: deps.kafka,
    cursors,
    policy: config.policy,
    maxStreams: config.maxStreams,
    now,
    closing: () => closing,
    views: viewsOf(store),
  };
  // Each concept's routes in its own plugin (routes/), under its prefix.
  void app.register(taskRoutes, { ...ctx, prefix: "/v1/tasks" });
  void app.register(workerRoutes, { ...ctx, prefix: "/v1/workers" });
  void app.register(routeRoutes, { ...ctx, prefix: "/v1/route" });
  void app.register(listRoutes, { ...ctx, prefix: "/v1" });
  void app.register(streamRoutes, { ...ctx, prefix: "/v1/stream" });
  void app.register(operationRoutes, { ...ctx, openapiText });
  void app.register(webRoutes, { assets });
  return app;
}
