/**
 * The OpenAPI 3.1 document of the proxy's own endpoints (own-endpoints.ts), served at
 * `/a2a-ledger/openapi.json`. It covers what the proxy answers itself, not the worker's A2A traffic it
 * forwards (the worker's card and the A2A specification describe that).
 */
import { errorCatalogue, errorCodes, type ProxyErrorCode } from "./errors.ts";

type Json = Record<string, unknown>;

const status: Json = {
  type: "object",
  required: ["status", "workerId", "buffered", "bufferedBytes", "ledgerReachable", "spoolFailing"],
  properties: {
    status: { enum: ["ok", "unavailable"] },
    workerId: { type: "string" },
    buffered: { type: "integer", description: "Observations waiting for the ledger." },
    bufferedBytes: { type: "integer", description: "Bytes of their spool records." },
    ledgerReachable: { type: "boolean" },
    spoolFailing: { type: "boolean" },
  },
};
const json = (description: string, schema: Json): Json => ({
  description,
  content: { "application/json": { schema } },
});
const describe = (codes: readonly ProxyErrorCode[]): string =>
  codes.map((c) => `${c} (${errorCatalogue[c].status}): ${errorCatalogue[c].message}`).join("\n");

export function openApiDocument(): Json {
  return {
    openapi: "3.1.0",
    info: {
      title: "a2a-ledger recording proxy: its own endpoints",
      version: "1",
      description:
        "What the proxy answers itself, for every method: these paths are never forwarded to the worker. Every other path is the worker's, forwarded as it is and recorded. None takes a parameter or a body; another method on these paths is 405 with Allow.",
    },
    paths: {
      "/metrics": {
        get: {
          summary: "Prometheus metrics (text exposition format)",
          responses: { "200": { description: "metrics", content: { "text/plain": { schema: { type: "string" } } } } },
        },
      },
      "/healthz": { get: { summary: "200 while the process runs", responses: { "200": json("running", status) } } },
      "/readyz": {
        get: {
          summary:
            "200 while new dispatches are admitted; 503 while they are refused (fail-closed with the ledger out of reach, or the spool failing) or the proxy drains",
          responses: { "200": json("ready", status), "503": json("not ready", status) },
        },
      },
    },
    components: {
      schemas: {
        Error: {
          description: `The proxy's own error answers (A2A HTTP+JSON shape; ErrorInfo reason is the code):\n${describe(errorCodes)}`,
          type: "object",
          required: ["error"],
          properties: { error: { type: "object", required: ["code", "status", "message", "details"] } },
        },
      },
    },
  };
}
