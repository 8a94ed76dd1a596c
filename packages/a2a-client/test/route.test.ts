/**
 * LedgerRoute against an HTTP server that answers in the shapes and error codes the projector's OpenAPI
 * documents for GET /v1/route and GET /v1/workers/:id/verified-card (a stand-in, not a live projector):
 * what it asks, what it returns, and each failure as a stable code.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { A2AClientError, LedgerRoute } from "../src/index.ts";

let server: Server;
let base = "";
const asked: { url: string; authorization: string | undefined }[] = [];
let answer: { status: number; body: string; headers?: Record<string, string> } = { status: 200, body: "{}" };

const routeAnswer = {
  skillId: "answer",
  state: "TASK_STATE_INPUT_REQUIRED",
  resume: true,
  needs: ["TASK_STATE_INPUT_REQUIRED"],
  accept: ["application/json", "text/plain"],
  at: "2026-12-02T00:00:00.000Z",
  eligibleCount: 1,
  ineligibleCount: 1,
  workers: [
    {
      workerId: "w3",
      rank: 1,
      reason: "verified TASK_STATE_INPUT_REQUIRED",
      verifiedStates: ["TASK_STATE_INPUT_REQUIRED", "TASK_STATE_COMPLETED"],
      outputModes: ["text/plain"],
      policy: { mode: "verify" },
      cardHash: "abc",
      validFrom: "2026-12-02T00:00:00.000Z",
    },
  ],
  ineligible: [{ workerId: "w2", eligible: false, reason: "verified states lack TASK_STATE_INPUT_REQUIRED" }],
};

beforeAll(async () => {
  server = createServer((req, res) => {
    asked.push({ url: req.url ?? "", authorization: req.headers.authorization });
    res.writeHead(answer.status, { "content-type": "application/json", ...answer.headers }).end(answer.body);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const codeOf = async (p: Promise<unknown>): Promise<string> => {
  const e = await p.then(
    () => null,
    (err: unknown) => err,
  );
  return e instanceof A2AClientError ? e.code : `not an A2AClientError: ${String(e)}`;
};

describe("asking the ledger's route", () => {
  it("asks with skill, state and accept, and picks rank 1", async () => {
    answer = { status: 200, body: JSON.stringify(routeAnswer) };
    const ledger = new LedgerRoute({ projectorUrl: `${base}/`, token: "read-token" });
    const { chosen, answer: got } = await ledger.pick({
      skillId: "answer",
      state: "TASK_STATE_INPUT_REQUIRED",
      accept: ["application/json", "text/plain"],
    });
    expect(chosen.workerId).toBe("w3");
    expect(got.ineligible[0]?.reason).toContain("lack");
    const last = asked.at(-1);
    expect(new URL(last?.url ?? "", base).pathname).toBe("/v1/route");
    expect(Object.fromEntries(new URL(last?.url ?? "", base).searchParams)).toEqual({
      skill: "answer",
      state: "TASK_STATE_INPUT_REQUIRED",
      accept: "application/json,text/plain",
    });
    expect(last?.authorization).toBe("Bearer read-token");
  });

  it("given no worker is eligible, when picking, then A2A_CLIENT_NO_ELIGIBLE_WORKER carries every worker's reason", async () => {
    answer = { status: 200, body: JSON.stringify({ ...routeAnswer, workers: [], eligibleCount: 0 }) };
    const ledger = new LedgerRoute({ projectorUrl: base });
    expect((await ledger.route({ skillId: "answer" })).workers).toEqual([]);
    const e = await ledger.pick({ skillId: "answer" }).catch((err: unknown) => err);
    expect(e).toBeInstanceOf(A2AClientError);
    expect((e as A2AClientError).code).toBe("A2A_CLIENT_NO_ELIGIBLE_WORKER");
    expect((e as A2AClientError).detail).toEqual({ ineligible: routeAnswer.ineligible });
  });

  it("reads a projector's 4xx as A2A_CLIENT_ROUTE_REFUSED, and anything off the documented shape as A2A_CLIENT_ROUTE_UNAVAILABLE", async () => {
    const ledger = new LedgerRoute({ projectorUrl: base });
    answer = { status: 400, body: JSON.stringify({ error: "bad state", code: "PROJECTOR_BAD_FILTER" }) };
    expect(await codeOf(ledger.route({ skillId: "answer" }))).toBe("A2A_CLIENT_ROUTE_REFUSED");
    answer = { status: 200, body: JSON.stringify({ workers: [{ workerId: 7 }], ineligible: [] }) };
    expect(await codeOf(ledger.route({}))).toBe("A2A_CLIENT_ROUTE_UNAVAILABLE");
    answer = { status: 200, body: "<html>" };
    expect(await codeOf(ledger.route({}))).toBe("A2A_CLIENT_ROUTE_UNAVAILABLE");
    answer = { status: 503, body: JSON.stringify({ error: "not ready" }) };
    expect(await codeOf(ledger.route({}))).toBe("A2A_CLIENT_ROUTE_UNAVAILABLE");
    expect(await codeOf(new LedgerRoute({ projectorUrl: "http://127.0.0.1:9", timeoutMs: 2_000 }).route({}))).toBe(
      "A2A_CLIENT_ROUTE_UNAVAILABLE",
    );
  });
});

describe("reading a verified card", () => {
  it("returns the card to negotiate against with its diff, ETag and Cache-Control", async () => {
    const body = {
      workerId: "w 1",
      cardHash: "h",
      validFrom: "2026-12-02T00:00:00.000Z",
      card: { name: "W1", skills: [] },
      diff: [{ path: "/skills/0/outputModes/0", before: '"application/json"' }],
    };
    answer = { status: 200, body: JSON.stringify(body), headers: { etag: '"v1"', "cache-control": "max-age=60" } };
    const card = await new LedgerRoute({ projectorUrl: base }).verifiedCard("w 1");
    expect(asked.at(-1)?.url).toBe("/v1/workers/w%201/verified-card");
    expect(card).toEqual({ ...body, etag: '"v1"', cacheControl: "max-age=60" });
  });

  it("reads a never-probed worker's 409 as A2A_CLIENT_ROUTE_REFUSED with the projector's code", async () => {
    answer = { status: 409, body: JSON.stringify({ error: "not verified", code: "PROJECTOR_WORKER_NOT_VERIFIED" }) };
    const e = await new LedgerRoute({ projectorUrl: base }).verifiedCard("w2").catch((err: unknown) => err);
    expect((e as A2AClientError).code).toBe("A2A_CLIENT_ROUTE_REFUSED");
    expect((e as A2AClientError).detail).toMatchObject({ status: 409, code: "PROJECTOR_WORKER_NOT_VERIFIED" });
  });
});
