/**
 * The one catalogue of the proxy's own answers. Everything else a client receives comes from the worker,
 * unchanged. A code never changes meaning once released; clients branch on the reason, humans read the
 * message.
 *
 * Shapes, by the protocol the client spoke:
 * - JSON-RPC (a request body with `jsonrpc` and `method`): the HTTP status below (as a gateway answers)
 *   and a JSON-RPC error envelope with the request's `id`, `code` -32603 (internal error: the proxy is
 *   not the agent, so no A2A code fits) and `data` an array holding one `google.rpc.ErrorInfo` whose
 *   `reason` is the catalogue code and `domain` `a2a-ledger.proxy`.
 * - everything else (HTTP+JSON, the card, unknown requests): the HTTP status below and the A2A HTTP+JSON
 *   error `{error: {code, status, message, details: [ErrorInfo]}}`, content type `application/a2a+json`
 *   for A2A v1.0 clients and `application/json` for v0.3 ones (no `A2A-Version` header).
 */

import { CatalogueError, codesOf, defineErrorCatalogue, type ErrorEntry } from "@a2a-ledger/env";

/** Every service's entry shape (@a2a-ledger/env), and the google.rpc.Code name for the HTTP+JSON `status` field. */
interface CatalogueEntry extends ErrorEntry {
  status: number;
  rpcStatus: string;
}

/** Why the proxy refused to start. */
export const configErrors = defineErrorCatalogue("PROXY", {
  PROXY_CONFIG_INVALID: {
    status: null,
    message: "An environment variable is invalid; every problem is listed (exit 2).",
  },
});

export const errorCatalogue = defineErrorCatalogue("PROXY", {
  PROXY_UPSTREAM_UNREACHABLE: {
    status: 502,
    rpcStatus: "UNAVAILABLE",
    message: "The worker could not be reached (connection refused or reset before it answered).",
  },
  PROXY_UPSTREAM_BAD_RESPONSE: {
    status: 502,
    rpcStatus: "UNAVAILABLE",
    message: "The worker answered with something that is not HTTP.",
  },
  PROXY_UPSTREAM_TIMEOUT: {
    status: 504,
    rpcStatus: "DEADLINE_EXCEEDED",
    message: "The worker did not begin its answer within the proxy's upstream timeout.",
  },
  PROXY_LEDGER_UNAVAILABLE: {
    status: 503,
    rpcStatus: "UNAVAILABLE",
    message:
      "The ledger has been unreachable for longer than the observation buffer holds; new dispatches are refused (fail-closed) until it is back. Retry later.",
  },
  PROXY_SHUTTING_DOWN: { status: 503, rpcStatus: "UNAVAILABLE", message: "The proxy is draining before it stops." },
  PROXY_GRPC_UPSTREAM_UNKNOWN: {
    status: 502,
    rpcStatus: "UNAVAILABLE",
    message:
      "The worker's gRPC endpoint is unknown: A2A_LEDGER_PROXY_GRPC_UPSTREAM is not set and the worker's card names no GRPC interface.",
  },
  PROXY_METHOD_NOT_ALLOWED: {
    status: 405,
    rpcStatus: "UNIMPLEMENTED",
    message:
      "The path is one of the proxy's own (/metrics, /healthz, /readyz, /a2a-ledger/openapi.json) and takes GET and HEAD only; the Allow header says so.",
  },
  PROXY_BODY_TOO_LARGE: {
    status: 413,
    rpcStatus: "RESOURCE_EXHAUSTED",
    message: "The request body is larger than the proxy accepts (A2A_LEDGER_PROXY_MAX_BODY_BYTES).",
  },
  PROXY_INTERNAL: {
    status: 500,
    rpcStatus: "INTERNAL",
    message: "An unexpected proxy error; reported in the logs with the request id.",
  },
} as const satisfies Record<string, CatalogueEntry>);

export type ProxyErrorCode = keyof typeof errorCatalogue;

export const errorCodes = codesOf(errorCatalogue);

export const errorDomain = "a2a-ledger.proxy";

/** JSON-RPC code of every proxy answer to a JSON-RPC request. */
export const jsonRpcInternalError = -32603;

export class ProxyError extends CatalogueError<ProxyErrorCode> {
  override name = "ProxyError";

  constructor(
    code: ProxyErrorCode,
    message: string = errorCatalogue[code].message,
    /** Sent as Retry-After. */
    readonly retryAfterSeconds?: number,
  ) {
    super(errorCatalogue, code, message);
  }
}

/** How the client spoke, as far as the answer's shape is concerned. */
export type ClientDialect =
  | { kind: "jsonrpc"; id: string | number | null; version: "1.0" | "0.3" }
  | { kind: "http"; version: "1.0" | "0.3" };

export interface RenderedError {
  status: number;
  headers: Record<string, string>;
  body: string;
}

function errorInfo(error: ProxyError): Record<string, unknown> {
  return {
    "@type": "type.googleapis.com/google.rpc.ErrorInfo",
    reason: error.code,
    domain: errorDomain,
    metadata: { status: String(error.status) },
  };
}

export function renderError(error: ProxyError, dialect: ClientDialect): RenderedError {
  const headers: Record<string, string> = {};
  if (error.retryAfterSeconds !== undefined) headers["retry-after"] = String(error.retryAfterSeconds);
  if (dialect.kind === "jsonrpc") {
    headers["content-type"] = "application/json";
    const body = {
      jsonrpc: "2.0",
      id: dialect.id,
      error: { code: jsonRpcInternalError, message: error.message, data: [errorInfo(error)] },
    };
    return { status: error.status, headers, body: JSON.stringify(body) };
  }
  headers["content-type"] = dialect.version === "1.0" ? "application/a2a+json" : "application/json";
  const body = {
    error: {
      code: error.status,
      status: errorCatalogue[error.code].rpcStatus,
      message: error.message,
      details: [errorInfo(error)],
    },
  };
  return { status: error.status, headers, body: JSON.stringify(body) };
}
