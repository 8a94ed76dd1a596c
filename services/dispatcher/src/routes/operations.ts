/** What operations read of the dispatcher: `/metrics` (Prometheus), `/healthz` (200 while the command consumer runs) and `/openapi.json`. */
import type { FastifyPluginAsync } from "fastify";
import type { ServerDeps } from "../server.ts";

export interface OperationRouteContext extends Pick<ServerDeps, "metrics" | "health"> {
  openapiText: string;
  /** The catalogue's body for DISPATCHER_UNHEALTHY. */
  unhealthy: () => object;
}

export const operationRoutes: FastifyPluginAsync<OperationRouteContext> = async (app, ctx) => {
  app.get("/metrics", async (_request, reply) =>
    reply.header("content-type", ctx.metrics.registry.contentType).send(await ctx.metrics.registry.metrics()),
  );
  app.get("/healthz", async (_request, reply) => {
    const { running, detail } = ctx.health();
    if (!running) return reply.code(503).send({ ...ctx.unhealthy(), ...detail });
    return reply.send({ status: "ok", ...detail });
  });
  app.get("/openapi.json", async (_request, reply) =>
    reply.type("application/json; charset=utf-8").send(ctx.openapiText),
  );
};
