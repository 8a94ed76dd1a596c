import { describe, expect, it } from "vitest";
import { routeMethods } from "./route-methods.ts";

describe("the methods each path takes", () => {
  it("given fastify-style patterns, when a path matches, then Allow lists every method of every matching route, HEAD beside GET", () => {
    const routes = routeMethods();
    routes.add("/v1/tasks", "GET");
    routes.add("/v1/tasks/:id", ["GET"]);
    routes.add("/v1/tasks/:id/events.ndjson", "get");
    routes.add("/v1/observations", "POST");
    expect(routes.allowFor("/v1/tasks?limit=5")).toBe("GET, HEAD");
    expect(routes.allowFor("/v1/tasks/a%2Fb")).toBe("GET, HEAD");
    expect(routes.allowFor("/v1/tasks/x/events.ndjson")).toBe("GET, HEAD");
    expect(routes.allowFor("/v1/observations")).toBe("POST");
  });

  it("given the same patterns, when no route has the path, then there is no Allow (a 404)", () => {
    const routes = routeMethods();
    routes.add("/v1/tasks/:id/events.ndjson", "GET");
    routes.add("/metrics", "GET");
    for (const path of ["/v1/tasks/", "/v1/tasks/x/eventsXndjson", "/v1/tasks/x/y/events.ndjson", "/metricsx", "/"])
      expect(routes.allowFor(path), path).toBeUndefined();
  });
});
