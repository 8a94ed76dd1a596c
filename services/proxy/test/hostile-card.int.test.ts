/**
 * A worker serving a hostile Agent Card (nested 20,000 arrays deep) behind the proxy, with the real
 * ledger (ingest on a throwaway topic): the proxy relays the card to the client byte for byte, stays
 * up, the ledger refuses the card observation with a 400 naming the place past the depth limit, the
 * proxy drops just that observation (counted as rejected) and what it records afterwards still lands.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rawRequest, v1 } from "./http.ts";
import { ledgerTopic, type Ledger, type LedgerTopic } from "./ledger.ts";
import { type Running, scriptedWorker } from "./misbehaving-workers.ts";
import { drained, metric, startProxy, testConfig, type TestProxy } from "./proxy.ts";

const depth = 20_000;
const deepCard = `{"name":"deep","skills":${"[".repeat(depth)}0${"]".repeat(depth)}}`;
const plainCard = JSON.stringify({ name: "plain", version: "1.0.0", skills: [] });

let topic: LedgerTopic;
let ledger: Ledger;
let worker: Running;
let proxy: TestProxy;

beforeAll(async () => {
  topic = await ledgerTopic("hostile-card");
  ledger = await topic.start();
  worker = await scriptedWorker((req, res) => {
    res.writeHead(200, { "content-type": "application/json", "cache-control": "max-age=60" });
    res.end(req.url?.startsWith("/deep/") === true ? deepCard : plainCard);
  });
  proxy = await startProxy(testConfig({ upstreamUrl: worker.url, ingestUrl: ledger.url }));
});
afterAll(async () => {
  await proxy?.close();
  await worker?.close();
  await ledger?.stop();
  await topic?.remove();
});

describe("a worker serving a card nested 20,000 arrays deep", () => {
  it("is relayed unchanged; the ledger refuses its observation with 400, the proxy drops only that one and keeps recording", async () => {
    const deep = await rawRequest(`${proxy.url}/deep/.well-known/agent-card.json`, { method: "GET", headers: v1 });
    expect(deep.status).toBe(200);
    expect(deep.body.toString("utf8") === deepCard).toBe(true);
    await drained(proxy.app, 30_000);
    expect(await metric(proxy.url, "a2a_proxy_observations_dropped_total", { reason: "rejected" })).toBe(1);
    expect(await metric(proxy.url, "a2a_proxy_ingest_failures_total")).toBe(0);

    // Still up, and the next card is recorded.
    const plain = await rawRequest(`${proxy.url}/.well-known/agent-card.json`, { method: "GET", headers: v1 });
    expect(plain.status).toBe(200);
    expect(plain.body.toString("utf8")).toBe(plainCard);
    await drained(proxy.app, 30_000);
    expect(await metric(proxy.url, "a2a_proxy_observations_sent_total")).toBe(1);
    const records = await ledger.records(1);
    expect(
      records.map((r) => r.observation.type === "AgentCardObserved" && [r.observation.cardUrl, r.observation.card]),
    ).toEqual([[`${worker.url}/.well-known/agent-card.json`, plainCard]]);
  }, 60_000);
});
