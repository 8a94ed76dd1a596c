/** `/v1/tasks`: the task list, a correlation's lineage, its observations as NDJSON, and its A2A timeline. */
import { Readable } from "node:stream";
import type { FastifyPluginAsync } from "fastify";
import { ProjectorError } from "../errors.ts";
import { parsers, pathId, queryParams } from "../query-params.ts";
import { lineage, observationsNdjson } from "../views/lineage.ts";
import { a2aTimeline } from "../views/a2a-timeline.ts";
import { taskList } from "../views/lists.ts";
import { exact, page, type RouteContext } from "./context.ts";

const unknownTask = (correlationId: string) =>
  new ProjectorError(
    "PROJECTOR_UNKNOWN_TASK",
    `No correlation ${JSON.stringify(correlationId.slice(0, 200))} is in the views`,
    "correlationId",
  );

const correlationOf = (params: unknown): string =>
  pathId((params as { correlationId?: unknown }).correlationId, "correlationId");

export const taskRoutes: FastifyPluginAsync<RouteContext> = async (app, { views, cursors }) => {
  app.get("/", exact, async (request) => {
    const q = queryParams(request.query, {
      status: parsers.status,
      workerId: parsers.id,
      since: parsers.time,
      until: parsers.time,
      q: parsers.id,
      cursor: parsers.cursor,
      limit: parsers.limit(500),
    });
    return views((r, t) =>
      taskList(
        r,
        t,
        cursors,
        { status: q.status, workerId: q.workerId, since: q.since, until: q.until, q: q.q },
        page(q, 50),
      ),
    );
  });

  app.get("/:correlationId", async (request) => {
    const correlationId = correlationOf(request.params);
    const q = queryParams(request.query, { cursor: parsers.cursor, limit: parsers.limit(1_000) });
    const view = await views((r, t) => lineage(r, t, cursors, correlationId, page(q, 200)));
    if (view === undefined) throw unknownTask(correlationId);
    return view;
  });

  app.get("/:correlationId/events.ndjson", async (request, reply) => {
    const correlationId = correlationOf(request.params);
    queryParams(request.query, {});
    // Read and written page by page (lineage.ts): the correlation is never held whole.
    const pages = await observationsNdjson(views, correlationId);
    if (pages === undefined) throw unknownTask(correlationId);
    const file = `${correlationId.replace(/[^A-Za-z0-9._-]/g, "_").slice(0, 100)}.ndjson`;
    return reply
      .type("application/x-ndjson; charset=utf-8")
      .header("content-disposition", `attachment; filename="${file}"`)
      .send(Readable.from(pages));
  });

  app.get("/:correlationId/timeline", async (request) => {
    const correlationId = correlationOf(request.params);
    const q = queryParams(request.query, { format: parsers.timelineFormat, timelineLength: parsers.limit(100_000) });
    const view = await views((r, t) => a2aTimeline(r, t, correlationId, q.timelineLength));
    if (view === undefined) throw unknownTask(correlationId);
    return view;
  });
};
