/**
 * What every fastify service of the ledger does with each request, whatever its routes and its errors:
 * a request id (the caller's `x-request-id` when it is a sane one, else a fresh UUID) echoed on the
 * answer, every answer counted by the route it matched, and for a request that matched no route the
 * methods its path takes — so a service answers 405 with `Allow` rather than 404 (route-methods.ts).
 * Each service keeps its own guard and error catalogue; this module loads no web framework (types only).
 */
import { randomUUID } from "node:crypto";
import type { FastifyInstance, FastifyRequest } from "fastify";
import { routeMethods } from "./route-methods.ts";

const requestIdPattern = /^[A-Za-z0-9._:-]{1,128}$/;

/** Fastify options for request ids: never taken blindly from a header, the caller's kept when it is a sane id. */
export const requestIdOptions = {
  requestIdHeader: false as const,
  genReqId(req: { headers: Record<string, string | string[] | undefined> }): string {
    const given = req.headers["x-request-id"];
    return typeof given === "string" && requestIdPattern.test(given) ? given : randomUUID();
  },
};

export interface ServiceHooksOptions {
  /** Counts an answer: the route's pattern (`unmatched` when none matched), the method and the status. */
  countAnswer(route: string, method: string, status: string): void;
  /** Echo the request id on every answer as `x-request-id` (with `requestIdOptions`). */
  echoRequestId?: boolean;
}

export interface ServiceHooks {
  /** For a request that matched no route: the methods its path takes (answer 405 with this `Allow`), or undefined (404). */
  allowFor(request: FastifyRequest): string | undefined;
  /** The request's path, without its query. */
  pathOf(request: FastifyRequest): string;
}

/** Adds the hooks to `app`; call before the routes are registered, so every route is known to `allowFor`. */
export function serviceHooks(app: FastifyInstance, options: ServiceHooksOptions): ServiceHooks {
  if (options.echoRequestId === true)
    app.addHook("onRequest", async (request, reply) => {
      reply.header("x-request-id", request.id);
    });
  app.addHook("onResponse", async (request, reply) => {
    options.countAnswer(request.routeOptions.url ?? "unmatched", request.method, String(reply.statusCode));
  });
  // Every method each path takes (fastify adds HEAD beside GET).
  const methods = routeMethods();
  app.addHook("onRoute", (route) => methods.add(route.url, route.method));
  const pathOf = (request: FastifyRequest): string => request.url.split("?", 1)[0] ?? "";
  return { allowFor: (request) => methods.allowFor(pathOf(request)), pathOf };
}
