import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rawRequest } from "../test/http.ts";
import { CapturingSender, startProxy, testConfig, type TestProxy } from "../test/proxy.ts";
import { startTappedAgent, type TappedAgent } from "../test/tapped-agent.ts";

let worker: TappedAgent;
let proxy: TestProxy;
const header = (rawHeaders: string[], name: string) =>
  rawHeaders[rawHeaders.findIndex((h, i) => i % 2 === 0 && h.toLowerCase() === name) + 1];

beforeAll(async () => {
  worker = await startTappedAgent("w1");
  proxy = await startProxy(testConfig({ upstreamUrl: worker.url }), new CapturingSender());
});
afterAll(async () => {
  await proxy?.close();
  await worker?.close();
});

describe("the proxy's own paths", () => {
  it("given another method on an own path, when it arrives, then it is 405 with Allow in the A2A error shape and never reaches the worker", async () => {
    for (const method of ["POST", "DELETE", "TRACE", "QUERY"]) {
      const response = await rawRequest(`${proxy.url}/healthz`, {
        method,
        ...(method === "POST" ? { body: "{}" } : {}),
      });
      expect(response.status, method).toBe(405);
      expect(header(response.rawHeaders, "allow")).toBe("GET, HEAD");
      expect(JSON.parse(response.body.toString())).toMatchObject({
        error: { code: 405, details: [{ reason: "PROXY_METHOD_NOT_ALLOWED" }] },
      });
    }
    expect(worker.exchanges.filter((e) => e.url.startsWith("/healthz"))).toEqual([]);
  });

  it("given HEAD on an own path, then it answers as GET without a body; a worker's /openapi.json stays the worker's", async () => {
    const head = await rawRequest(`${proxy.url}/readyz`, { method: "HEAD" });
    expect(head.status).toBe(200);
    expect(head.body.length).toBe(0);
    const document = await rawRequest(`${proxy.url}/a2a-ledger/openapi.json`);
    expect(Object.keys((JSON.parse(document.body.toString()) as { paths: object }).paths).sort()).toEqual([
      "/healthz",
      "/metrics",
      "/readyz",
    ]);
    await rawRequest(`${proxy.url}/openapi.json`);
    expect(worker.exchanges.map((e) => e.url)).toContain("/openapi.json");
  });
});
