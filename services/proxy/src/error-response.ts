/**
 * Writing one of the proxy's own error answers (errors.ts) in the shape of the protocol the client spoke:
 * a JSON-RPC envelope with the request's id to a JSON-RPC client, the A2A HTTP+JSON error otherwise.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { A2ARequest } from "./a2a-request.ts";
import { renderError, type ClientDialect, type ProxyError } from "./errors.ts";

/** How the client spoke, from what the request was (null: not read yet) and its headers. */
export function dialectOf(request: A2ARequest | null, headers: IncomingMessage["headers"]): ClientDialect {
  const version = request?.version ?? (/^1(\.\d+)?$/.test(String(headers["a2a-version"] ?? "").trim()) ? "1.0" : "0.3");
  if (request?.kind === "jsonrpc") return { kind: "jsonrpc", id: request.id, version };
  if (request?.kind === "malformed-jsonrpc") return { kind: "jsonrpc", id: null, version };
  return { kind: "http", version };
}

/**
 * Answers with the error; the HTTP status written, or null when an answer had already begun (the
 * connection is then cut, as the client would see a worker that went away).
 */
export function sendError(res: ServerResponse, error: ProxyError, dialect: ClientDialect): number | null {
  if (res.headersSent || res.destroyed) {
    res.destroy();
    return null;
  }
  const rendered = renderError(error, dialect);
  res.writeHead(rendered.status, { ...rendered.headers, "content-length": String(Buffer.byteLength(rendered.body)) });
  res.end(rendered.body);
  return rendered.status;
}
