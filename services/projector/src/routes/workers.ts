/** `/v1/workers` (the workers, one worker, its verified card) and `/v1/route` (who may take a task over). */
import type { FastifyPluginAsync } from "fastify";
import { ProjectorError } from "../errors.ts";
import { parsers, pathId, queryParams } from "../query-params.ts";
import { routeView } from "../views/route.ts";
import { workerDetail, workerList, workerVerifiedCard } from "../views/workers.ts";
import { exact, page, type RouteContext } from "./context.ts";

const unknownWorker = (workerId: string) =>
  new ProjectorError(
    "PROJECTOR_UNKNOWN_WORKER",
    `No worker ${JSON.stringify(workerId.slice(0, 200))} is in the views`,
    "workerId",
  );

const workerOf = (params: unknown): string => pathId((params as { workerId?: unknown }).workerId, "workerId");

export const workerRoutes: FastifyPluginAsync<RouteContext> = async (app, { views, cursors, policy }) => {
  app.get("/", exact, async (request) => {
    const q = queryParams(request.query, { cursor: parsers.cursor, limit: parsers.limit(500) });
    return views((r, t) => workerList(r, t, cursors, policy, page(q, 100)));
  });

  app.get("/:workerId", async (request) => {
    const workerId = workerOf(request.params);
    queryParams(request.query, {});
    const view = await views((r, t) => workerDetail(r, t, policy, workerId));
    if (view === undefined) throw unknownWorker(workerId);
    return view;
  });

  app.get("/:workerId/verified-card", async (request, reply) => {
    const workerId = workerOf(request.params);
    queryParams(request.query, {});
    const view = await views((r, t) => workerVerifiedCard(r, t, workerId));
    if (view === undefined) throw unknownWorker(workerId);
    if (view === "unprobed")
      throw new ProjectorError(
        "PROJECTOR_WORKER_NOT_VERIFIED",
        `No probe verified the card in force of worker ${JSON.stringify(workerId.slice(0, 200))} yet`,
        "workerId",
      );
    reply.header("etag", view.etag).header("cache-control", view.cacheControl);
    if (request.headers["if-none-match"] === view.etag) return reply.code(304).send();
    return view;
  });
};

export const routeRoutes: FastifyPluginAsync<RouteContext> = async (app, { views, policy, now }) => {
  app.get("/", exact, async (request) => {
    const q = queryParams(request.query, {
      skill: parsers.id,
      state: parsers.taskState,
      accept: parsers.accept,
      limit: parsers.limit(1_000),
    });
    return views((r, t) =>
      routeView(
        r,
        t,
        policy,
        { skillId: q.skill ?? null, state: q.state ?? null, accept: q.accept ?? [] },
        now(),
        q.limit ?? 100,
      ),
    );
  });
};
