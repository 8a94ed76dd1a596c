/**
 * The dispatcher's HTTP surface (fastify): GET /metrics (Prometheus), GET /healthz (200 while the
 * command consumer runs) and GET /openapi.json (openapi.ts). Every other request gets a stable code from
 * the catalogue: 405 with Allow for another method on one of these paths, else 404.
 */
import { errorBody, routeMethods } from "@a2a-ledger/env";
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from "fastify";
import { loggerOptions, type LogLevel } from "@a2a-ledger/logging";
import { errorCatalogue, type HttpCode } from "./errors.ts";
import type { DispatcherMetrics } from "./metrics.ts";
import { openApiDocument } from "./openapi.ts";

export interface ServerDeps {
  metrics: DispatcherMetrics;
  /** Whether the consumer runs, and what the journal holds, for /healthz. */
  health: () => { running: boolean; detail: Record<string, unknown> };
  logLevel: LogLevel;
}

const answer = (code: HttpCode, message: string = errorCatalogue[code].message) => errorBody({ code, message });
const openapiText = JSON.stringify(openApiDocument());

export function buildServer(deps: ServerDeps): FastifyInstance {
  const app = Fastify({
    logger: loggerOptions("dispatcher", deps.logLevel),
    disableRequestLogging: true,
    bodyLimit: 1024,
    return503OnClosing: true,
  });
  app.addHook("onResponse", async (request, reply) => {
    deps.metrics.httpRequests.inc({ route: request.routeOptions.url ?? "unmatched", status: String(reply.statusCode) });
  });
  // Every method each path takes (fastify adds HEAD beside GET), for 405 answers with Allow.
  const methods = routeMethods();
  app.addHook("onRoute", (route) => methods.add(route.url, route.method));
  const unmatched = (request: FastifyRequest, reply: FastifyReply) => {
    const path = request.url.split("?", 1)[0] ?? "";
    const allow = methods.allowFor(path);
    if (allow !== undefined)
      return reply
        .code(405)
        .header("allow", allow)
        .send(
          answer(
            "DISPATCHER_METHOD_NOT_ALLOWED",
            `${request.method.slice(0, 20)} is not allowed on ${path}; allowed: ${allow}`,
          ),
        );
    return reply.code(404).send(answer("DISPATCHER_NOT_FOUND"));
  };
  app.setNotFoundHandler(unmatched);
  app.setErrorHandler((error, request, reply) => {
    // A request that matched no route is answered 404 or 405 even when fastify failed it earlier (body checks).
    if (request.is404) return unmatched(request, reply);
    const status = (error as { statusCode?: number }).statusCode ?? 500;
    if (status >= 500) request.log.error({ err: error }, "request failed");
    return reply
      .code(status >= 500 ? 500 : 400)
      .send(
        answer(
          "DISPATCHER_BAD_REQUEST",
          status >= 500 ? "internal error" : String((error as Error).message).slice(0, 200),
        ),
      );
  });
  app.get("/metrics", async (_request, reply) =>
    reply.header("content-type", deps.metrics.registry.contentType).send(await deps.metrics.registry.metrics()),
  );
  app.get("/healthz", async (_request, reply) => {
    const { running, detail } = deps.health();
    if (!running) return reply.code(503).send({ ...answer("DISPATCHER_UNHEALTHY"), ...detail });
    return reply.send({ status: "ok", ...detail });
  });
  app.get("/openapi.json", async (_request, reply) => reply.type("application/json; charset=utf-8").send(openapiText));
  return app;
}
