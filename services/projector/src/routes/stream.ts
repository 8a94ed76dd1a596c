/** `/v1/stream`: server-sent events of view changes, with a heartbeat, at most `maxStreams` at once. */
import type { FastifyPluginAsync } from "fastify";
import { ProjectorError } from "../errors.ts";
import type { StreamEvent } from "../live-stream.ts";
import { parsers, queryParams } from "../query-params.ts";
import { exact, type RouteContext } from "./context.ts";

const heartbeatMs = 15_000;

export const streamRoutes: FastifyPluginAsync<RouteContext> = async (app, { stream, metrics, maxStreams }) => {
  app.get("/", exact, async (request, reply) => {
    const q = queryParams(request.query, { correlationId: parsers.id, workerId: parsers.id });
    if (stream.size >= maxStreams) throw new ProjectorError("PROJECTOR_TOO_MANY_STREAMS");
    reply.hijack();
    const raw = reply.raw;
    raw.writeHead(200, {
      "content-type": "text/event-stream; charset=utf-8",
      "cache-control": "no-cache, no-transform",
      connection: "keep-alive",
      "x-accel-buffering": "no",
      "x-request-id": request.id,
    });
    let id = 0;
    const send = (e: StreamEvent) => raw.write(`id: ${++id}\nevent: ${e.event}\ndata: ${JSON.stringify(e.data)}\n\n`);
    raw.write(`retry: 2000\n: connected\n\n`);
    send({ event: "refresh", data: { reason: "connected" } });
    const unsubscribe = stream.subscribe({ correlationId: q.correlationId, workerId: q.workerId }, send);
    metrics.streams.set(stream.size);
    const heartbeat = setInterval(() => raw.write(": keep-alive\n\n"), heartbeatMs);
    const close = () => {
      clearInterval(heartbeat);
      unsubscribe();
      metrics.streams.set(stream.size);
    };
    raw.on("close", close);
    raw.on("error", close);
  });
};
