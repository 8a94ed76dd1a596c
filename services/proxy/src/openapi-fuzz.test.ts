/**
 * schemathesis (schemathesisRun of @a2a-ledger/env/testing) against the proxy's own endpoints
 * (/metrics, /healthz, /readyz, from its document at /a2a-ledger/openapi.json), with the proxy in front
 * of a real @a2a-js/sdk worker: no schema-valid request is rejected (positive_data_acceptance), no answer
 * is a 5xx (not_a_server_error), other methods on these paths get 405 with Allow (unsupported_method),
 * and none of these requests reaches the worker. The worker's forwarded A2A traffic is not the proxy's
 * document; the proxy's other tests cover it.
 */
import { schemathesisRun } from "@a2a-ledger/env/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CapturingSender, startProxy, testConfig, type TestProxy } from "../test/proxy.ts";
import { startTappedAgent, type TappedAgent } from "../test/tapped-agent.ts";
import { openApiPath } from "./own-endpoints.ts";

let worker: TappedAgent;
let proxy: TestProxy;

beforeAll(async () => {
  worker = await startTappedAgent("w1");
  proxy = await startProxy(testConfig({ upstreamUrl: worker.url }), new CapturingSender());
});
afterAll(async () => {
  await proxy?.close();
  await worker?.close();
});

describe("the proxy's own endpoints against their OpenAPI document (schemathesis)", () => {
  it("finds no schema-valid request rejected, no 5xx, 405 with Allow for other methods, and forwards none of it", async () => {
    const result = await schemathesisRun(proxy.url, "proxy", {
      documentUrl: `${proxy.url}${openApiPath}`,
      checks: "not_a_server_error,positive_data_acceptance,unsupported_method",
      phases: "examples,coverage,fuzzing",
      maxExamples: 10,
    });
    expect(result.code, result.output.slice(-8_000)).toBe(0);
    expect(result.operations).toEqual(expect.arrayContaining(["GET /metrics", "GET /healthz", "GET /readyz"]));
    // schemathesis probes an unknown path once (it is the worker's and reached it); none of the proxy's own did.
    const own = new Set(["/metrics", "/healthz", "/readyz", openApiPath]);
    expect(
      worker.exchanges.filter((e) => own.has(e.url.split("?", 1)[0] ?? "")).map((e) => `${e.method} ${e.url}`),
    ).toEqual([]);
  }, 200_000);
});
