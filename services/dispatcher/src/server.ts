/**
 * The dispatcher's HTTP surface (fastify): GET /metrics (Prometheus) and GET /healthz (200 while the
 * command consumer runs). Every other request gets a stable code from the catalogue.
 */
import Fastify, { type FastifyInstance } from "fastify";
import { loggerOptions, type LogLevel } from "@a2a-ledger/logging";
import { errorCatalogue, type HttpCode } from "./errors.ts";
import type { DispatcherMetrics } from "./metrics.ts";

export interface ServerDeps {
  metrics: DispatcherMetrics;
  /** Whether the consumer runs, and what the journal holds, for /healthz. */
  health: () => { running: boolean; detail: Record<string, unknown> };
  logLevel: LogLevel;
}

const answer = (code: HttpCode, message: string = errorCatalogue[code].summary) => ({ error: message, code });
const routes = new Set(["/metrics", "/healthz"]);

export function buildServer(deps: ServerDeps): FastifyInstance {
  const app = Fastify({ logger: loggerOptions("dispatcher", deps.logLevel), disableRequestLogging: true, bodyLimit: 1024, return503OnClosing: true });
  app.addHook("onResponse", async (request, reply) => {
    deps.metrics.httpRequests.inc({ route: request.routeOptions.url ?? "unmatched", status: String(reply.statusCode) });
  });
  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split("?", 1)[0] ?? "";
    if (routes.has(path)) return reply.code(405).header("allow", "GET, HEAD").send(answer("DISPATCHER_METHOD_NOT_ALLOWED", `${request.method.slice(0, 20)} is not allowed on ${path}; allowed: GET, HEAD`));
    return reply.code(404).send(answer("DISPATCHER_NOT_FOUND"));
  });
  app.setErrorHandler((error, request, reply) => {
    const status = (error as { statusCode?: number }).statusCode ?? 500;
    if (status >= 500) request.log.error({ err: error }, "request failed");
    return reply.code(status >= 500 ? 500 : 400).send(answer("DISPATCHER_BAD_REQUEST", status >= 500 ? "internal error" : String((error as Error).message).slice(0, 200)));
  });
  app.get("/metrics", async (_request, reply) => reply.header("content-type", deps.metrics.registry.contentType).send(await deps.metrics.registry.metrics()));
  app.get("/healthz", async (_request, reply) => {
    const { running, detail } = deps.health();
    if (!running) return reply.code(503).send({ ...answer("DISPATCHER_UNHEALTHY"), ...detail });
    return reply.send({ status: "ok", ...detail });
  });
  return app;
}
