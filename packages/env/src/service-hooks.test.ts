import Fastify from "fastify";
import { describe, expect, it } from "vitest";
import { requestIdOptions, serviceHooks } from "./service-hooks.ts";

function service() {
  const app = Fastify({ logger: false, ...requestIdOptions });
  const answers: string[] = [];
  const hooks = serviceHooks(app, {
    echoRequestId: true,
    countAnswer: (route, method, status) => answers.push(`${method} ${route} ${status}`),
  });
  app.setNotFoundHandler((request, reply) => {
    const allow = hooks.allowFor(request);
    if (allow === undefined) return reply.code(404).send({ path: hooks.pathOf(request) });
    return reply
      .code(405)
      .header("allow", allow)
      .send({ path: hooks.pathOf(request) });
  });
  app.get("/v1/items/:id", async () => ({ ok: true }));
  app.post("/v1/items", async () => ({ ok: true }));
  return { app, answers };
}

describe("every service's request hooks", () => {
  it("echo a sane caller's request id, and replace any other by a fresh one", async () => {
    const { app } = service();
    const kept = await app.inject({ method: "GET", url: "/v1/items/1", headers: { "x-request-id": "req-1.a:b" } });
    expect(kept.headers["x-request-id"]).toBe("req-1.a:b");
    const replaced = await app.inject({ method: "GET", url: "/v1/items/1", headers: { "x-request-id": "a b\u0001" } });
    expect(replaced.headers["x-request-id"]).toMatch(/^[0-9a-f-]{36}$/);
    const long = await app.inject({ method: "GET", url: "/v1/items/1", headers: { "x-request-id": "x".repeat(129) } });
    expect(long.headers["x-request-id"]).not.toBe("x".repeat(129));
  });

  it("count every answer by the route it matched, and name the methods of a path no route of that method takes", async () => {
    const { app, answers } = service();
    await app.inject({ method: "GET", url: "/v1/items/7?x=1" });
    const wrongMethod = await app.inject({ method: "DELETE", url: "/v1/items/7?x=1" });
    expect(wrongMethod.statusCode).toBe(405);
    expect(wrongMethod.headers.allow).toBe("GET, HEAD");
    expect(wrongMethod.json()).toEqual({ path: "/v1/items/7" });
    const listWrong = await app.inject({ method: "GET", url: "/v1/items" });
    expect(listWrong.headers.allow).toBe("POST");
    expect((await app.inject({ method: "GET", url: "/v2/nothing" })).statusCode).toBe(404);
    expect(answers).toEqual([
      "GET /v1/items/:id 200",
      "DELETE unmatched 405",
      "GET unmatched 405",
      "GET unmatched 404",
    ]);
  });
});
