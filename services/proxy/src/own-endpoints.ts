/**
 * The paths the proxy answers itself, for every method, never forwarded to the worker: `GET /metrics`
 * (Prometheus), `GET /healthz` (200 while the process runs), `GET /readyz` (503 while new dispatches are
 * refused, or the proxy drains) and `GET /a2a-ledger/openapi.json` (their OpenAPI document, openapi.ts).
 * HEAD answers as GET without a body; any other method is 405 PROXY_METHOD_NOT_ALLOWED with Allow.
 * Every other request, whatever its path, belongs to the worker.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { routeMethods } from "@a2a-ledger/env";
import { dialectOf, sendError } from "./error-response.ts";
import { ProxyError } from "./errors.ts";
import type { ProxyMetrics } from "./metrics.ts";
import { openApiDocument } from "./openapi.ts";

export interface OwnEndpointsContext {
  metrics: ProxyMetrics;
  /** Whether new dispatches are admitted now (and the proxy is not draining). */
  ready(): boolean;
  /** What /healthz and /readyz report beside their status. */
  status(): Record<string, unknown>;
}

/** Where the proxy serves its own OpenAPI document: a path of its own, so a worker's /openapi.json stays the worker's. */
export const openApiPath = "/a2a-ledger/openapi.json";
const ownPaths = ["/metrics", "/healthz", "/readyz", openApiPath] as const;
const methods = routeMethods();
for (const path of ownPaths) methods.add(path, "GET");
const openapiText = JSON.stringify(openApiDocument());

function send(req: IncomingMessage, res: ServerResponse, status: number, type: string, body: string): void {
  res.writeHead(status, { "content-type": type, "content-length": String(Buffer.byteLength(body)) });
  res.end(req.method === "HEAD" ? undefined : body);
}

/** Answers the request when its path is one of the proxy's own; false when it is to be forwarded. */
export function serveOwnEndpoint(req: IncomingMessage, res: ServerResponse, ctx: OwnEndpointsContext): boolean {
  const path = req.url?.split("?", 1)[0] ?? "";
  const allow = methods.allowFor(path);
  if (allow === undefined) return false;
  if (req.method !== "GET" && req.method !== "HEAD") {
    req.resume();
    res.setHeader("allow", allow);
    sendError(
      res,
      new ProxyError(
        "PROXY_METHOD_NOT_ALLOWED",
        `${String(req.method).slice(0, 20)} is not allowed on ${path}; allowed: ${allow}`,
      ),
      dialectOf(null, req.headers),
    );
    return true;
  }
  if (path === "/metrics") {
    void ctx.metrics.registry.metrics().then((text) => send(req, res, 200, ctx.metrics.registry.contentType, text));
    return true;
  }
  if (path === openApiPath) {
    send(req, res, 200, "application/json", openapiText);
    return true;
  }
  const ok = path === "/healthz" || ctx.ready();
  send(
    req,
    res,
    ok ? 200 : 503,
    "application/json",
    JSON.stringify({ status: ok ? "ok" : "unavailable", ...ctx.status() }),
  );
  return true;
}
