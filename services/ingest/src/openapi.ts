/**
 * The OpenAPI 3.1 document of the ingest API, built from the Avro-derived JSON Schemas and the error
 * catalogue, so the docs cannot drift from what the server checks and answers.
 */
import { acceptedMediaTypes } from "./body.ts";
import { errorCatalogue, errorCodes } from "./errors.ts";
import { observationJsonSchemas, type JsonSchema } from "./json-schema.ts";

export interface OpenApiOptions {
  authRequired: boolean;
  maxBodyBytes: number;
  maxEvents: number;
  maxDepth: number;
}

const errorResponse = (codes: string[], description: string) => ({
  description: `${description} Codes: ${codes.join(", ")}.`,
  content: { "application/json": { schema: { $ref: "#/components/schemas/Error" } } },
});

const codesWithStatus = (status: number) => errorCodes.filter((c) => errorCatalogue[c].status === status);

export function openApiDocument(options: OpenApiOptions): JsonSchema {
  const { components, observation } = observationJsonSchemas({ maxDepth: options.maxDepth });
  const ndjson = Object.fromEntries(
    acceptedMediaTypes
      .filter((t) => t !== "application/json")
      .map((t) => [
        t,
        {
          schema: { $ref: "#/components/schemas/Observation" },
          description: "NDJSON: one observation per line (the schema is one line's); blank lines are ignored.",
        },
      ]),
  );
  const retryAfter = {
    "Retry-After": {
      description: "Seconds to wait before retrying with the same eventIds.",
      schema: { type: "integer" },
    },
  };
  const security = options.authRequired ? [{ bearer: [] }] : [];
  return {
    openapi: "3.1.0",
    info: {
      title: "a2a-ledger ingest",
      version: "1.0.0",
      description:
        "Records what orchestrators, workers and proxies of an A2A mesh observed. A batch is accepted whole (202 after Kafka acknowledged every record) or rejected whole (nothing produced). `eventId` is the de-duplication key: retrying with the same eventIds is safe.",
    },
    paths: {
      "/v1/observations": {
        post: {
          operationId: "postObservations",
          summary: "Record one observation or a batch",
          description: `One observation object, a JSON array of them, or NDJSON (one per line), in UTF-8 (a charset parameter, if any, must say utf-8). At most ${options.maxEvents} events and ${options.maxBodyBytes} bytes per request; a larger body is answered 413 before it is read. Each record is keyed by correlationId on topic a2a.observations.v1. A request valid under this schema is accepted unless a given cardHash differs from its card's hash or an encoded record exceeds the record size limit.`,
          security,
          requestBody: {
            required: true,
            content: {
              "application/json": {
                schema: {
                  oneOf: [
                    { $ref: "#/components/schemas/Observation" },
                    {
                      type: "array",
                      minItems: 1,
                      maxItems: options.maxEvents,
                      items: { $ref: "#/components/schemas/Observation" },
                    },
                  ],
                },
              },
              ...ndjson,
            },
          },
          responses: {
            "202": {
              description: "Kafka acknowledged every record of the batch (acks=all).",
              content: {
                "application/json": {
                  schema: {
                    type: "object",
                    additionalProperties: false,
                    required: ["accepted"],
                    properties: { accepted: { type: "integer", minimum: 1 } },
                  },
                },
              },
            },
            "400": errorResponse(
              codesWithStatus(400),
              "The batch was rejected whole; `details` lists each issue with the event's index and path.",
            ),
            "401": errorResponse(codesWithStatus(401), "A bearer token is required."),
            "403": errorResponse(
              codesWithStatus(403),
              "An event lies outside the token's scope: an observer it may not write as, a kind it may not post (probe results come only from the prober's token) or a worker it may not speak about (a proxy's or guard's token speaks only about its own workers); the batch was rejected whole and nothing was produced.",
            ),
            "413": errorResponse(codesWithStatus(413), "Over the size or count limit."),
            "415": errorResponse(codesWithStatus(415), "Unsupported Content-Type."),
            "429": {
              ...errorResponse(
                codesWithStatus(429),
                "The token (or, without tokens, the client address) sent more requests than its limit per window; nothing was read or produced. Retry with the same eventIds after Retry-After seconds.",
              ),
              headers: retryAfter,
            },
            "503": {
              ...errorResponse(
                codesWithStatus(503),
                "Not acknowledged by Kafka in time; retry with the same eventIds.",
              ),
              headers: retryAfter,
            },
          },
        },
      },
      "/healthz": {
        get: { operationId: "health", summary: "The process is up", responses: { "200": { description: "Up" } } },
      },
      "/readyz": {
        get: {
          operationId: "ready",
          summary: "Kafka and the schema registry are reachable",
          responses: {
            "200": { description: "Ready" },
            "503": {
              description:
                "Not ready; the body says which dependency is unreachable, and `reason: {code, resource, message}` when Kafka refuses this service (credentials, certificate, ACL)",
            },
          },
        },
      },
      "/metrics": {
        get: {
          operationId: "metrics",
          summary: "Prometheus metrics",
          responses: {
            "200": { description: "Prometheus text format", content: { "text/plain": { schema: { type: "string" } } } },
          },
        },
      },
      "/openapi.json": {
        get: { operationId: "openapi", summary: "This document", responses: { "200": { description: "OpenAPI 3.1" } } },
      },
      "/docs": {
        get: {
          operationId: "docs",
          summary: "Human-readable API documentation",
          responses: { "200": { description: "HTML" } },
        },
      },
    },
    components: {
      securitySchemes: { bearer: { type: "http", scheme: "bearer" } },
      schemas: {
        Observation: observation,
        ...components,
        Error: {
          type: "object",
          required: ["error", "code"],
          properties: {
            error: { type: "string", description: "Human-readable explanation." },
            code: {
              type: "string",
              enum: errorCodes,
              description: "Stable error code; see the catalogue in the docs.",
            },
            details: {
              type: "array",
              items: {
                type: "object",
                required: ["index", "path", "message"],
                properties: {
                  index: { type: "integer", minimum: 0 },
                  path: { type: "string" },
                  message: { type: "string" },
                },
              },
            },
          },
        },
      },
    },
  };
}
