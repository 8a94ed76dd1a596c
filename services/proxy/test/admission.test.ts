/**
 * Admission reserves: N dispatches arriving together at a fail-closed proxy with room for K observations
 * (the ledger unreachable) are admitted exactly K times; the rest are refused before the worker sees them.
 * Without a reservation each was checked against the same empty buffer and all N went through.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { jsonRpc, rawRequest, v1 } from "./http.ts";
import { CapturingSender, startProxy, testConfig, type TestProxy } from "./proxy.ts";
import { startTappedAgent, type TappedAgent } from "./tapped-agent.ts";

let agent: TappedAgent;
let proxy: TestProxy;
const sender = new CapturingSender();
sender.failing = true;

beforeAll(async () => {
  agent = await startTappedAgent("w1");
  proxy = await startProxy(testConfig({ upstreamUrl: agent.url, bufferMax: 3, retryAfterSeconds: 1 }), sender);
});
afterAll(async () => {
  sender.failing = false;
  await proxy?.close();
  await agent?.close();
});

describe("admission near the bound", () => {
  it("admits exactly K of N concurrent dispatches at a bound of K", async () => {
    const n = 8;
    const answers = await Promise.all(
      Array.from({ length: n }, (_, i) =>
        rawRequest(`${proxy.url}/a2a/jsonrpc`, {
          headers: { ...v1, "A2A-Ledger-Correlation-Id": `admit-${i}` },
          body: jsonRpc(
            "SendMessage",
            { message: { messageId: `admit-${i}`, role: "ROLE_USER", parts: [{ text: "slow delay-ms=400" }] } },
            `admit-${i}`,
          ),
        }),
      ),
    );
    const statuses = answers.map((a) => a.status).sort();
    expect(statuses).toEqual([200, 200, 200, 503, 503, 503, 503, 503]);
    expect(agent.exchanges.filter((e) => e.requestBody.toString().includes('"admit-')).length).toBe(3);
    // Every admitted exchange kept its observations (the buffer holds up to twice the bound for them).
    expect(proxy.app.buffer.length).toBeGreaterThanOrEqual(3);
  });
});
