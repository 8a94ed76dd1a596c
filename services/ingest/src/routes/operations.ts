/** What operations read: `/healthz`, `/readyz` (Kafka and the schema registry), `/metrics`, and the API's `/openapi.json` and `/docs`. */
import type { FastifyPluginAsync } from "fastify";
import { readinessReason } from "@a2a-ledger/kafka";
import type { ObservationSink } from "../kafka-sink.ts";
import type { IngestMetrics } from "../metrics.ts";

const readinessTimeoutMs = 2_000;

export interface OperationRouteContext {
  sink: ObservationSink;
  metrics: IngestMetrics;
  /** Whether the schema registry answers. */
  registryReachable: (timeoutMs: number) => Promise<boolean>;
  /** True once the server is draining. */
  closing: () => boolean;
  openapiText: string;
  docs: string;
}

export const operationRoutes: FastifyPluginAsync<OperationRouteContext> = async (app, ctx) => {
  const { sink, metrics, openapiText, docs } = ctx;
  app.get("/healthz", async () => ({ status: "ok" }));

  app.get("/readyz", async (_request, reply) => {
    const [kafka, registry] = await Promise.all([
      sink.kafkaReachable(readinessTimeoutMs),
      ctx.registryReachable(readinessTimeoutMs),
    ]);
    const refused = sink.accessFailure;
    const closing = ctx.closing();
    const ready = kafka && registry && !closing && refused === undefined;
    return reply.code(ready ? 200 : 503).send({
      status: ready ? "ready" : "not ready",
      kafka: kafka && refused === undefined,
      registry,
      closing,
      // The reason names the cause and the resource, never a secret (access-failure.ts).
      ...readinessReason(refused),
    });
  });

  app.get("/metrics", async (_request, reply) => {
    const text = await metrics.registry.metrics();
    return reply.type(metrics.registry.contentType).send(text);
  });

  app.get("/openapi.json", async (_request, reply) => reply.type("application/json; charset=utf-8").send(openapiText));
  app.get("/docs", async (_request, reply) => reply.type("text/html; charset=utf-8").send(docs));
};
