/**
 * A full disk under the proxy's spool: the proxy keeps answering under fail-closed (new dispatches 503
 * PROXY_LEDGER_UNAVAILABLE, the rest forwarded), the spool stops rolling and backs off (a bounded number
 * of segment files and descriptors), and when space returns it recovers by itself: dispatches are admitted
 * again and their observations are spooled and delivered.
 */
import { readdirSync } from "node:fs";
import { createLogger } from "@a2a-ledger/logging";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createProxyApp, type ProxyApp } from "../src/app.ts";
import { fillableFs } from "./fillable-fs.ts";
import { jsonRpc, rawRequest, v1 } from "./http.ts";
import { CapturingSender, drained, metric, testConfig } from "./proxy.ts";
import { startTappedAgent, type TappedAgent } from "./tapped-agent.ts";

let agent: TappedAgent;
let app: ProxyApp;
let url: string;
const sender = new CapturingSender();
const disk = fillableFs();
const config = (upstreamUrl: string) => testConfig({ upstreamUrl, retryAfterSeconds: 1 });
let spoolDir: string;

beforeAll(async () => {
  agent = await startTappedAgent("w1");
  const c = config(agent.url);
  spoolDir = c.spoolDir;
  app = createProxyApp(c, { logger: createLogger("proxy", "silent"), sender, spoolFs: disk.fs });
  url = await app.listen();
});
afterAll(async () => {
  await app?.close();
  await agent?.close();
});

const dispatch = (messageId: string) =>
  rawRequest(`${url}/a2a/jsonrpc`, {
    headers: { ...v1, "A2A-Ledger-Correlation-Id": `full-${messageId}` },
    body: jsonRpc(
      "SendMessage",
      { message: { messageId, role: "ROLE_USER", parts: [{ text: "need-input wait" }] } },
      messageId,
    ),
  });
const segmentFiles = () => readdirSync(spoolDir).filter((n) => n.endsWith(".seg")).length;

describe("the spool's disk full", () => {
  it("answers under fail-closed, backs off without rolling, and recovers by itself when space returns", async () => {
    const first = await dispatch("d-1");
    expect(first.status).toBe(200);
    await drained(app);
    const taskId = (JSON.parse(first.body.toString()) as { result: { task: { id: string } } }).result.task.id;

    disk.state.full = true;
    // The first exchange after the disk filled up is answered (its observations are in memory and sent).
    const during = await dispatch("d-2");
    expect(during.status).toBe(200);
    await expect.poll(() => app.buffer.status().spoolFailing).toBe(true);
    const writesBefore = disk.state.writes;

    // For a second and a half: new dispatches are refused before the worker sees them, everything else is answered.
    const until = Date.now() + 1_500;
    let refused = 0;
    let polled = 0;
    for (let i = 0; Date.now() < until; i++) {
      const d = await dispatch(`refused-${i}`);
      expect(d.status).toBe(503);
      expect(JSON.parse(d.body.toString())).toMatchObject({
        error: { data: [{ reason: "PROXY_LEDGER_UNAVAILABLE" }] },
      });
      refused++;
      const poll = await rawRequest(`${url}/a2a/jsonrpc`, { headers: v1, body: jsonRpc("GetTask", { id: taskId }) });
      expect(poll.status).toBe(200);
      polled++;
    }
    expect(refused).toBeGreaterThan(5);
    expect(agent.exchanges.some((e) => e.requestBody.toString().includes('"refused-'))).toBe(false);
    expect((await rawRequest(`${url}/readyz`)).status).toBe(503);
    expect((await rawRequest(`${url}/healthz`)).status).toBe(200);
    // Backoff 0, 100 ms, 200 ms … 5 s: a handful of attempts in 1.5 s however much traffic, few files, few descriptors.
    expect(disk.state.writes - writesBefore).toBeLessThanOrEqual(8);
    expect(segmentFiles()).toBeLessThanOrEqual(4);
    expect(disk.state.maxOpen).toBeLessThanOrEqual(4);
    expect(await metric(url, "a2a_proxy_spool_failing")).toBe(1);
    // What was polled meanwhile was sent from memory.
    await drained(app);
    expect(sender.ofType("TaskStateObserved").filter((o) => o.via === "GET")).toHaveLength(polled);

    // Space returns: nothing but the spool's own retry is needed to find out.
    disk.state.full = false;
    await expect.poll(() => app.buffer.status().spoolFailing, { timeout: 10_000, interval: 50 }).toBe(false);
    expect((await rawRequest(`${url}/readyz`)).status).toBe(200);
    const back = await dispatch("d-3");
    expect(back.status).toBe(200);
    await drained(app);
    const delivered = sender.ofType("TaskDispatched").map((o) => o.correlationId);
    expect(delivered).toEqual(["full-d-1", "full-d-2", "full-d-3"]);
    const eventId = sender.ofType("TaskDispatched")[2]?.eventId ?? "";
    expect(disk.state.written.some((b) => b.includes(eventId))).toBe(true);
    expect(await metric(url, "a2a_proxy_spool_failing")).toBe(0);
    expect(await metric(url, "a2a_proxy_observations_dropped_total", { reason: "overflow" })).toBe(0);
  });
});
