/** What operations read: `/healthz`, `/readyz` (the database, Kafka, the consumer), `/metrics` and `/openapi.json`. */
import type { FastifyPluginAsync } from "fastify";
import { readinessReason } from "@a2a-ledger/kafka";
import { staleness, waitingByStatus } from "../views/lists.ts";
import type { RouteContext } from "./context.ts";

const readinessTimeoutMs = 2_000;

export const operationRoutes: FastifyPluginAsync<RouteContext & { openapiText: string }> = async (app, ctx) => {
  const { store, kafka, metrics, views, now } = ctx;
  app.get("/healthz", async () => ({ status: "ok" }));

  app.get("/readyz", async (_request, reply) => {
    const [database, reachable] = await Promise.all([
      store.ping(readinessTimeoutMs),
      kafka.kafkaReachable(readinessTimeoutMs),
    ]);
    const consuming = kafka.consuming();
    const refused = kafka.accessFailure?.();
    const closing = ctx.closing();
    const ready = database && reachable && consuming && !closing && refused === undefined;
    return reply.code(ready ? 200 : 503).send({
      status: ready ? "ready" : "not ready",
      database,
      kafka: reachable && refused === undefined,
      consuming,
      closing,
      // The reason names the cause and the resource, never a secret (access-failure.ts).
      ...readinessReason(refused),
    });
  });

  app.get("/metrics", async (_request, reply) => {
    const ends = await kafka.endOffsets().catch(() => []);
    const lag = await views((r, t) => staleness(r, t, ends, now())).catch(() => undefined);
    for (const topic of lag?.topics ?? []) {
      metrics.behind.set({ topic: topic.topic }, topic.behindMs / 1_000);
      for (const p of topic.partitions)
        if (p.lagRecords !== null) metrics.lag.set({ topic: p.topic, partition: String(p.partition) }, p.lagRecords);
    }
    const queued = await views((r, t) => waitingByStatus(r, t)).catch(() => undefined);
    for (const [status, q] of Object.entries(queued ?? {})) {
      metrics.waiting.set({ status }, q.count);
      metrics.oldestWaiting.set({ status }, q.oldestSince === null ? 0 : Math.max(0, now() - q.oldestSince) / 1_000);
    }
    return reply.type(metrics.registry.contentType).send(await metrics.registry.metrics());
  });

  app.get("/openapi.json", async (_request, reply) =>
    reply.type("application/json; charset=utf-8").send(ctx.openapiText),
  );
};
