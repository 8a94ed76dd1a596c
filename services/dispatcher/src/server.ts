/**
 * The dispatcher's HTTP surface (fastify): the operations routes (routes/operations.ts: GET /metrics,
 * GET /healthz, GET /openapi.json). Every other request gets a stable code from the catalogue: 405 with
 * Allow for another method on one of these paths, else 404.
 */
import { errorBody, serviceHooks } from "@a2a-ledger/env";
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from "fastify";
import { loggerOptions, type LogLevel } from "@a2a-ledger/logging";
import { errorCatalogue, type HttpCode } from "./errors.ts";
import type { DispatcherMetrics } from "./metrics.ts";
import { openApiDocument } from "./openapi.ts";
import { operationRoutes } from "./routes/operations.ts";

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
  const hooks = serviceHooks(app, {
    countAnswer: (route, _method, status) => deps.metrics.httpRequests.inc({ route, status }),
  });
  const unmatched = (request: FastifyRequest, reply: FastifyReply) => {
    const path = hooks.pathOf(request);
    const allow = hooks.allowFor(request);
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
  void app.register(operationRoutes, {
    metrics: deps.metrics,
    health: deps.health,
    openapiText,
    unhealthy: () => answer("DISPATCHER_UNHEALTHY"),
  });
  return app;
}
