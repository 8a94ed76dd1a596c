/**
 * A graceful shutdown drains: an exchange that finishes after the shutdown grace, while a send to the
 * ledger is still in flight, is answered and keeps its observations (in the spool, for the next start);
 * nothing is dropped for the shutdown while the HTTP server is still open.
 */
import { metricValue } from "@a2a-ledger/env/testing";
import { createLogger } from "@a2a-ledger/logging";
import type { ObservationInput } from "@a2a-ledger/ingest-client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createProxyApp, type ProxyApp } from "../src/app.ts";
import { ObservationSpool, type SpoolMetricsSink } from "../src/observation-spool.ts";
import { jsonRpc, rawRequest, v1 } from "./http.ts";
import { CapturingSender, testConfig } from "./proxy.ts";
import { startTappedAgent, type TappedAgent } from "./tapped-agent.ts";

/** A sender whose sends wait until the gate opens. */
class GatedSender extends CapturingSender {
  private open!: () => void;
  readonly gate = new Promise<void>((resolve) => (this.open = resolve));
  inFlight = 0;
  release(): void {
    this.open();
  }
  override async send(events: readonly ObservationInput[]): Promise<unknown> {
    this.inFlight++;
    await this.gate;
    this.inFlight--;
    return super.send(events);
  }
}

const quiet: SpoolMetricsSink = {
  badRecord: () => undefined,
  writeError: () => undefined,
  failing: () => undefined,
  fsyncSeconds: () => undefined,
  diskBytes: () => undefined,
};
const send = (correlationId: string, text: string) =>
  rawRequest(`${url}/a2a/jsonrpc`, {
    headers: { ...v1, "A2A-Ledger-Correlation-Id": correlationId },
    body: jsonRpc("SendMessage", { message: { messageId: correlationId, role: "ROLE_USER", parts: [{ text }] } }),
  });

let agent: TappedAgent;
let app: ProxyApp;
let url: string;
const sender = new GatedSender();
const config = () => testConfig({ upstreamUrl: agent.url, shutdownGraceMs: 100 });
let spoolDir: string;

beforeAll(async () => {
  agent = await startTappedAgent("w1");
  const c = config();
  spoolDir = c.spoolDir;
  app = createProxyApp(c, { logger: createLogger("proxy", "silent"), sender });
  url = await app.listen();
});
afterAll(async () => {
  sender.release();
  await app?.close();
  await agent?.close();
});

describe("a graceful shutdown", () => {
  it("spools the observations of an exchange that finishes while a send is in flight after the grace", async () => {
    // A send is in flight (the ledger is slow) ...
    expect((await send("drain-a", "quick")).status).toBe(200);
    await expect.poll(() => sender.inFlight).toBe(1);
    // ... an exchange is under way whose worker answers in 800 ms ...
    const slow = send("drain-b", "slow answer delay-ms=800");
    await expect
      .poll(() => agent.exchanges.length + (agent.abandoned.length > 0 ? 100 : 0), { timeout: 2_000 })
      .toBe(1);
    await new Promise((resolve) => setTimeout(resolve, 50));
    // ... and the proxy is told to stop: its 100 ms grace is over long before either ends.
    const closing = app.close();
    const answered = await slow;
    expect(answered.status).toBe(200);
    expect(JSON.parse(answered.body.toString())).toMatchObject({
      result: { task: { status: { state: "TASK_STATE_COMPLETED" } } },
    });
    sender.release();
    await closing;
    // The server no longer answers /metrics: its registry is read directly.
    expect(
      metricValue(await app.metrics.registry.metrics(), "a2a_proxy_observations_dropped_total", { reason: "shutdown" }),
    ).toBe(0);

    // The in-flight send went through; what the slow exchange showed is in the spool for the next start.
    expect(sender.sent.map((o) => o.correlationId)).toEqual(expect.arrayContaining(["drain-a"]));
    const { spool, replayed } = ObservationSpool.open({
      dir: spoolDir,
      log: createLogger("proxy", "silent"),
      metrics: quiet,
    });
    const left = replayed.map((e) => e.observation).filter((o) => o.correlationId === "drain-b");
    expect(left.map((o) => o.type)).toEqual(
      expect.arrayContaining(["TaskDispatched", "TaskStateObserved", "ArtifactEmitted"]),
    );
    // What of the first exchange was not in the send in flight is in the spool too: nothing lost.
    const first = [...sender.sent, ...replayed.map((e) => e.observation)]
      .filter((o) => o.correlationId === "drain-a")
      .map((o) => o.type);
    expect(first).toEqual(expect.arrayContaining(["TaskDispatched", "TaskStateObserved"]));
    await spool.close();
  });
});
