/**
 * The paths the proxy answers itself, never forwarded to the worker: exactly `GET /metrics`
 * (Prometheus), `GET /healthz` (200 while the process runs) and `GET /readyz` (503 while new dispatches
 * are refused, or the proxy drains). Every other request, whatever its path, belongs to the worker.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { ProxyMetrics } from "./metrics.ts";

export interface OwnEndpointsContext {
  metrics: ProxyMetrics;
  /** Whether new dispatches are admitted now (and the proxy is not draining). */
  ready(): boolean;
  /** What /healthz and /readyz report beside their status. */
  status(): Record<string, unknown>;
}

/** Answers the request when it is one of the proxy's own endpoints; false when it is to be forwarded. */
export function serveOwnEndpoint(req: IncomingMessage, res: ServerResponse, ctx: OwnEndpointsContext): boolean {
  if (req.method !== "GET") return false;
  const path = req.url?.split("?", 1)[0];
  if (path === "/metrics") {
    void ctx.metrics.registry.metrics().then((text) => {
      res.writeHead(200, { "content-type": ctx.metrics.registry.contentType });
      res.end(text);
    });
    return true;
  }
  if (path === "/healthz" || path === "/readyz") {
    const ok = path === "/healthz" || ctx.ready();
    res.writeHead(ok ? 200 : 503, { "content-type": "application/json" });
    res.end(JSON.stringify({ status: ok ? "ok" : "unavailable", ...ctx.status() }));
    return true;
  }
  return false;
}
