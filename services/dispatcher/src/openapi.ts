/** The OpenAPI 3.1 document of the dispatcher's own HTTP endpoints, served at /openapi.json. */
import { errorCatalogue, type HttpCode } from "./errors.ts";

type Json = Record<string, unknown>;

const error = (...codes: HttpCode[]): Json => ({
  description: codes.map((c) => `${c}: ${errorCatalogue[c].message}`).join("\n"),
  content: { "application/json": { schema: { $ref: "#/components/schemas/Error" } } },
});
const httpCodes = (Object.keys(errorCatalogue) as (keyof typeof errorCatalogue)[]).filter(
  (c): c is HttpCode => errorCatalogue[c].kind === "http",
);

/** Both operations take no parameters and no body; every other method on their paths is 405 with Allow. */
export function openApiDocument(): Json {
  return {
    openapi: "3.1.0",
    info: {
      title: "a2a-ledger dispatcher",
      version: "1",
      description:
        "The dispatcher's own endpoints: Prometheus metrics and its health. It has no API; commands reach it through Kafka.",
    },
    paths: {
      "/metrics": {
        get: {
          summary: "Prometheus metrics (text exposition format)",
          responses: { "200": { description: "metrics", content: { "text/plain": { schema: { type: "string" } } } } },
        },
      },
      "/healthz": {
        get: {
          summary:
            "200 while the command consumer runs, with the journal's counts per status; 503 otherwise (starting, stopping, crashed, or refused by Kafka with the reason)",
          responses: {
            "200": {
              description: "healthy",
              content: {
                "application/json": {
                  schema: {
                    type: "object",
                    required: ["status", "commands"],
                    properties: {
                      status: { const: "ok" },
                      commands: { type: "object", additionalProperties: { type: "integer" } },
                    },
                  },
                },
              },
            },
            "503": error("DISPATCHER_UNHEALTHY"),
          },
        },
      },
    },
    components: {
      schemas: {
        Error: {
          type: "object",
          required: ["error", "code"],
          properties: {
            error: { type: "string", description: "What went wrong, for people." },
            code: { type: "string", enum: httpCodes },
          },
        },
      },
    },
  };
}
