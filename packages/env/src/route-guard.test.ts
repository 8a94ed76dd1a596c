import { describe, expect, it } from "vitest";
import { bearerTokens } from "./bearer-tokens.ts";
import { routeGuard } from "./route-guard.ts";
import { pathVariants } from "./route-guard-battery.ts";

const token = "guard-token-0123456789";
const request = (route: string | undefined, authorization?: string, is404 = false) => ({
  is404,
  routeOptions: { url: route },
  headers: { authorization },
});

describe("routeGuard", () => {
  const guard = routeGuard({ tokens: bearerTokens([token]), publicRoutes: ["/healthz", "/"] });

  it("refuses a matched route that is not public unless the request carries a configured token", () => {
    expect(guard.refuses(request("/v1/tasks"))).toBe(true);
    expect(guard.refuses(request("/v1/tasks", "Bearer wrong-token-0123456789"))).toBe(true);
    expect(guard.refuses(request("/v1/tasks", `Bearer ${token}`))).toBe(false);
  });

  it("opens the public routes by their registered pattern, whole: never a prefix", () => {
    expect(guard.refuses(request("/healthz"))).toBe(false);
    expect(guard.refuses(request("/"))).toBe(false);
    expect(guard.refuses(request("/healthz/x"))).toBe(true);
    expect(guard.isPublic("/v1/tasks")).toBe(false);
  });

  it("leaves a request that matched no route to the 404/405 answer, and refuses a matched one without a pattern", () => {
    expect(guard.refuses(request(undefined, undefined, true))).toBe(false);
    expect(guard.refuses(request(undefined))).toBe(true);
  });

  it("refuses nothing when no token is configured", () => {
    const open = routeGuard({ tokens: bearerTokens([]), publicRoutes: [] });
    expect(open.required).toBe(false);
    expect(open.refuses(request("/v1/tasks"))).toBe(false);
  });
});

describe("pathVariants", () => {
  it("spells a path every way the issue names, each once, with HEAD and OPTIONS", () => {
    const variants = pathVariants("/v1/tasks");
    const paths = variants.map((v) => `${v.method} ${v.path}`);
    expect(new Set(paths).size).toBe(paths.length);
    for (const expected of [
      "GET /%761/tasks",
      "GET /v%31/tasks",
      "GET /V1/TASKS",
      "GET //v1/tasks",
      "GET /v1//tasks",
      "GET /v1/tasks/",
      "GET /x/../v1/tasks",
      "GET /v1/tasks;a=b",
      "HEAD /v1/tasks",
      "OPTIONS /v1/tasks",
    ]) {
      expect(paths, expected).toContain(expected);
    }
    expect(pathVariants("/metrics").map((v) => v.path)).toContain("/%6detrics");
  });
});
