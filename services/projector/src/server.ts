/**
 * The projector's read-only HTTP API and web page on fastify. `buildServer(deps)` wires routes to a
 * store, a live stream and the consumer's view of Kafka, so tests can build as many as they need.
 */
import { randomUUID } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { extname } from "node:path";
import { Readable } from "node:stream";
import Fastify, {
  type FastifyBaseLogger,
  type FastifyError,
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
} from "fastify";
import { bearerTokens, routeGuard, routeMethods } from "@a2a-ledger/env";
import type { AccessFailure } from "@a2a-ledger/kafka";
import { configDefaults, type ProjectorConfig } from "./config.ts";
import { Cursors } from "./cursor.ts";
import { type ErrorCode, ProjectorError } from "./errors.ts";
import type { LiveStream, StreamEvent } from "./live-stream.ts";
import type { Logger } from "./logger.ts";
import type { ProjectorMetrics } from "./metrics.ts";
import { openApiDocument } from "./openapi.ts";
import { perCallerRateLimit } from "@a2a-ledger/env/rate-limit";
import { maxIdChars, parsers, pathId, queryParams } from "./query-params.ts";
import { activeGeneration } from "./store/generations.ts";
import { type Tables, tableNames } from "./store/schema.ts";
import type { Reader, Store } from "./store/store.ts";
import { lineage, observationsNdjson } from "./views/lineage.ts";
import { a2aTimeline } from "./views/a2a-timeline.ts";
import {
  deadLetterList,
  type PartitionEnd,
  queue,
  staleness,
  taskList,
  violationList,
  waitingByStatus,
} from "./views/lists.ts";
import { routeView } from "./views/route.ts";
import { workerDetail, workerList, workerVerifiedCard } from "./views/workers.ts";
import type { PolicySource } from "@a2a-ledger/core";

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

const readinessTimeoutMs = 2_000;
const heartbeatMs = 15_000;
const requestIdPattern = /^[A-Za-z0-9._:-]{1,128}$/;
const webDir = new URL("./web/", import.meta.url);
const webTypes: Readonly<Record<string, string>> = {
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
};
/** The page: index.html at `/`, and every script module and stylesheet of web/ under its own name. */
const webAssets: Record<string, { type: string; file: string }> = {
  "/": { type: "text/html; charset=utf-8", file: "index.html" },
  ...Object.fromEntries(
    readdirSync(webDir).flatMap((file) => {
      const type = webTypes[extname(file)];
      return type === undefined ? [] : [[`/${file}`, { type, file }]];
    }),
  ),
};

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
  const assets = new Map(
    Object.entries(webAssets).map(([path, a]) => [path, { type: a.type, body: readFileSync(new URL(a.file, webDir)) }]),
  );
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
    requestIdHeader: false,
    genReqId: (req) => {
      const given = req.headers["x-request-id"];
      return typeof given === "string" && requestIdPattern.test(given) ? given : randomUUID();
    },
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

  app.addHook("onRequest", async (request, reply) => {
    reply.header("x-request-id", request.id);
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
  app.addHook("onResponse", async (request, reply) => {
    metrics.requests.inc({
      route: request.routeOptions.url ?? "unmatched",
      method: request.method,
      status: String(reply.statusCode),
    });
  });
  // Every method each path takes (fastify adds HEAD beside GET): other methods on a known path are 405 with Allow.
  const methods = routeMethods();
  app.addHook("onRoute", (route) => methods.add(route.url, route.method));
  const unmatched = (request: FastifyRequest): ProjectorError => {
    const path = request.url.split("?", 1)[0] ?? "";
    return methods.allowFor(path) === undefined
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
    if (e.code === "PROJECTOR_METHOD_NOT_ALLOWED") reply.header("allow", methods.allowFor(request.url) ?? "GET, HEAD");
    if (e.code === "PROJECTOR_UNAUTHORIZED") reply.header("www-authenticate", 'Bearer realm="a2a-ledger-projector"');
    if (e.status === 503) reply.header("retry-after", "5");
    return reply.code(e.status).type("application/json; charset=utf-8").send(e.body());
  });
  app.setNotFoundHandler((request) => {
    throw unmatched(request);
  });

  const views = <T>(fn: (r: Reader, t: Tables) => Promise<T>): Promise<T> =>
    store.read(async (r) => {
      const gen = await activeGeneration(r);
      if (gen === undefined) throw new ProjectorError("PROJECTOR_UNAVAILABLE", "The views are not set up yet.");
      return fn(r, tableNames(gen));
    });
  const page = (q: { limit?: number; cursor?: string }, fallback: number) => ({
    limit: q.limit ?? fallback,
    cursor: q.cursor,
  });

  app.get("/v1/tasks", async (request) => {
    const q = queryParams(request.query, {
      status: parsers.status,
      workerId: parsers.id,
      since: parsers.time,
      until: parsers.time,
      q: parsers.id,
      cursor: parsers.cursor,
      limit: parsers.limit(500),
    });
    return views((r, t) =>
      taskList(
        r,
        t,
        cursors,
        { status: q.status, workerId: q.workerId, since: q.since, until: q.until, q: q.q },
        page(q, 50),
      ),
    );
  });

  app.get("/v1/tasks/:correlationId", async (request) => {
    const correlationId = pathId((request.params as { correlationId?: unknown }).correlationId, "correlationId");
    const q = queryParams(request.query, { cursor: parsers.cursor, limit: parsers.limit(1_000) });
    const view = await views((r, t) => lineage(r, t, cursors, correlationId, page(q, 200)));
    if (view === undefined)
      throw new ProjectorError(
        "PROJECTOR_UNKNOWN_TASK",
        `No correlation ${JSON.stringify(correlationId.slice(0, 200))} is in the views`,
        "correlationId",
      );
    return view;
  });

  app.get("/v1/tasks/:correlationId/events.ndjson", async (request, reply) => {
    const correlationId = pathId((request.params as { correlationId?: unknown }).correlationId, "correlationId");
    queryParams(request.query, {});
    // Read and written page by page (lineage.ts): the correlation is never held whole.
    const pages = await observationsNdjson(views, correlationId);
    if (pages === undefined)
      throw new ProjectorError(
        "PROJECTOR_UNKNOWN_TASK",
        `No correlation ${JSON.stringify(correlationId.slice(0, 200))} is in the views`,
        "correlationId",
      );
    const file = `${correlationId.replace(/[^A-Za-z0-9._-]/g, "_").slice(0, 100)}.ndjson`;
    return reply
      .type("application/x-ndjson; charset=utf-8")
      .header("content-disposition", `attachment; filename="${file}"`)
      .send(Readable.from(pages));
  });

  app.get("/v1/tasks/:correlationId/timeline", async (request) => {
    const correlationId = pathId((request.params as { correlationId?: unknown }).correlationId, "correlationId");
    const q = queryParams(request.query, { format: parsers.timelineFormat, timelineLength: parsers.limit(100_000) });
    const view = await views((r, t) => a2aTimeline(r, t, correlationId, q.timelineLength));
    if (view === undefined)
      throw new ProjectorError(
        "PROJECTOR_UNKNOWN_TASK",
        `No correlation ${JSON.stringify(correlationId.slice(0, 200))} is in the views`,
        "correlationId",
      );
    return view;
  });

  app.get("/v1/workers", async (request) => {
    const q = queryParams(request.query, { cursor: parsers.cursor, limit: parsers.limit(500) });
    return views((r, t) => workerList(r, t, cursors, config.policy, page(q, 100)));
  });

  app.get("/v1/workers/:workerId", async (request) => {
    const workerId = pathId((request.params as { workerId?: unknown }).workerId, "workerId");
    queryParams(request.query, {});
    const view = await views((r, t) => workerDetail(r, t, config.policy, workerId));
    if (view === undefined)
      throw new ProjectorError(
        "PROJECTOR_UNKNOWN_WORKER",
        `No worker ${JSON.stringify(workerId.slice(0, 200))} is in the views`,
        "workerId",
      );
    return view;
  });

  app.get("/v1/workers/:workerId/verified-card", async (request, reply) => {
    const workerId = pathId((request.params as { workerId?: unknown }).workerId, "workerId");
    queryParams(request.query, {});
    const view = await views((r, t) => workerVerifiedCard(r, t, workerId));
    if (view === undefined)
      throw new ProjectorError(
        "PROJECTOR_UNKNOWN_WORKER",
        `No worker ${JSON.stringify(workerId.slice(0, 200))} is in the views`,
        "workerId",
      );
    if (view === "unprobed")
      throw new ProjectorError(
        "PROJECTOR_WORKER_NOT_VERIFIED",
        `No probe verified the card in force of worker ${JSON.stringify(workerId.slice(0, 200))} yet`,
        "workerId",
      );
    reply.header("etag", view.etag).header("cache-control", view.cacheControl);
    if (request.headers["if-none-match"] === view.etag) return reply.code(304).send();
    return view;
  });

  app.get("/v1/route", async (request) => {
    const q = queryParams(request.query, {
      skill: parsers.id,
      state: parsers.taskState,
      accept: parsers.accept,
      limit: parsers.limit(1_000),
    });
    return views((r, t) =>
      routeView(
        r,
        t,
        config.policy,
        { skillId: q.skill ?? null, state: q.state ?? null, accept: q.accept ?? [] },
        now(),
        q.limit ?? 100,
      ),
    );
  });

  app.get("/v1/violations", async (request) => {
    const q = queryParams(request.query, {
      kind: parsers.violationKind,
      workerId: parsers.id,
      cursor: parsers.cursor,
      limit: parsers.limit(500),
    });
    return views((r, t) => violationList(r, t, cursors, { kind: q.kind, workerId: q.workerId }, page(q, 100)));
  });

  app.get("/v1/dlq", async (request) => {
    const q = queryParams(request.query, { reason: parsers.reason, cursor: parsers.cursor, limit: parsers.limit(500) });
    return views((r, t) => deadLetterList(r, t, cursors, { reason: q.reason }, page(q, 100)));
  });

  app.get("/v1/queue", async (request) => {
    const q = queryParams(request.query, { cursor: parsers.cursor, limit: parsers.limit(500) });
    return views((r, t) => queue(r, t, cursors, now(), page(q, 100)));
  });

  app.get("/v1/staleness", async (request) => {
    queryParams(request.query, {});
    const ends = await deps.kafka.endOffsets().catch(() => []);
    return views((r, t) => staleness(r, t, ends, now()));
  });

  app.get("/v1/stream", async (request, reply) => {
    const q = queryParams(request.query, { correlationId: parsers.id, workerId: parsers.id });
    if (stream.size >= config.maxStreams) throw new ProjectorError("PROJECTOR_TOO_MANY_STREAMS");
    reply.hijack();
    const raw = reply.raw;
    raw.writeHead(200, {
      "content-type": "text/event-stream; charset=utf-8",
      "cache-control": "no-cache, no-transform",
      connection: "keep-alive",
      "x-accel-buffering": "no",
      "x-request-id": request.id,
    });
    let id = 0;
    const send = (e: StreamEvent) => raw.write(`id: ${++id}\nevent: ${e.event}\ndata: ${JSON.stringify(e.data)}\n\n`);
    raw.write(`retry: 2000\n: connected\n\n`);
    send({ event: "refresh", data: { reason: "connected" } });
    const unsubscribe = stream.subscribe({ correlationId: q.correlationId, workerId: q.workerId }, send);
    metrics.streams.set(stream.size);
    const heartbeat = setInterval(() => raw.write(": keep-alive\n\n"), heartbeatMs);
    const close = () => {
      clearInterval(heartbeat);
      unsubscribe();
      metrics.streams.set(stream.size);
    };
    raw.on("close", close);
    raw.on("error", close);
  });

  app.get("/healthz", async () => ({ status: "ok" }));
  app.get("/readyz", async (_request, reply) => {
    const [database, kafka] = await Promise.all([
      store.ping(readinessTimeoutMs),
      deps.kafka.kafkaReachable(readinessTimeoutMs),
    ]);
    const consuming = deps.kafka.consuming();
    const refused = deps.kafka.accessFailure?.();
    const ready = database && kafka && consuming && !closing && refused === undefined;
    const reason =
      refused === undefined
        ? {}
        : { reason: { code: refused.code, resource: refused.resource, message: refused.message } };
    return reply.code(ready ? 200 : 503).send({
      status: ready ? "ready" : "not ready",
      database,
      kafka: kafka && refused === undefined,
      consuming,
      closing,
      ...reason,
    });
  });
  app.get("/metrics", async (_request, reply) => {
    const ends = await deps.kafka.endOffsets().catch(() => []);
    const lag = await views((r, t) => staleness(r, t, ends, now())).catch(() => undefined);
    for (const topic of lag?.topics ?? []) {
      metrics.behind.set({ topic: topic.topic }, topic.behindMs / 1_000);
      for (const p of topic.partitions)
        if (p.lagRecords !== null) metrics.lag.set({ topic: p.topic, partition: String(p.partition) }, p.lagRecords);
    }
    const queued = await views((r, t) => waitingByStatus(r, t)).catch(() => undefined);
    for (const [status, q] of Object.entries(queued ?? {})) {
      metrics.waiting.set({ status }, q.count);
      metrics.oldestWaiting.set({ status }, q.oldestSince === null ? 0 : Math.max(0, now() - q.oldestSince) / 1_000);
    }
    return reply.type(metrics.registry.contentType).send(await metrics.registry.metrics());
  });
  app.get("/openapi.json", async (_request, reply) => reply.type("application/json; charset=utf-8").send(openapiText));

  for (const [path, asset] of assets) {
    app.get(path, async (request, reply) => {
      queryParams(request.query, {});
      return reply
        .type(asset.type)
        .header(
          "content-security-policy",
          "default-src 'self'; connect-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; frame-ancestors 'none'",
        )
        .header("cache-control", "no-cache")
        .send(asset.body);
    });
  }
  return app;
}
