/** The operator's lists: violations, dead letters, the queue, and how far the views are behind. */
import type { FastifyPluginAsync } from "fastify";
import { parsers, queryParams } from "../query-params.ts";
import { deadLetterList, queue, staleness, violationList } from "../views/lists.ts";
import { page, type RouteContext } from "./context.ts";

export const listRoutes: FastifyPluginAsync<RouteContext> = async (app, { views, cursors, kafka, now }) => {
  app.get("/violations", async (request) => {
    const q = queryParams(request.query, {
      kind: parsers.violationKind,
      workerId: parsers.id,
      cursor: parsers.cursor,
      limit: parsers.limit(500),
    });
    return views((r, t) => violationList(r, t, cursors, { kind: q.kind, workerId: q.workerId }, page(q, 100)));
  });

  app.get("/dlq", async (request) => {
    const q = queryParams(request.query, { reason: parsers.reason, cursor: parsers.cursor, limit: parsers.limit(500) });
    return views((r, t) => deadLetterList(r, t, cursors, { reason: q.reason }, page(q, 100)));
  });

  app.get("/queue", async (request) => {
    const q = queryParams(request.query, { cursor: parsers.cursor, limit: parsers.limit(500) });
    return views((r, t) => queue(r, t, cursors, now(), page(q, 100)));
  });

  app.get("/staleness", async (request) => {
    queryParams(request.query, {});
    const ends = await kafka.endOffsets().catch(() => []);
    return views((r, t) => staleness(r, t, ends, now()));
  });
};
