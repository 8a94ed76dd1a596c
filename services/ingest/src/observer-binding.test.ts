/**
 * Tokens bound to observers on the real server (Kafka sink, registry serde): an event whose observer
 * the token may not claim refuses the whole batch with 403, and nothing of it reaches the topic.
 */
import { describe, expect, it } from "vitest";
import { observation } from "../test/observations.ts";
import { endOffsetSum, readTopic, servedTopic } from "../test/stack.ts";

const proxyToken = "proxy-w1-token-0123456789";
const served = servedTopic("observer-binding", { tokens: [{ token: proxyToken, observers: ["proxy:W1-*"] }, { token: "dispatcher-token-0123456", observers: ["dispatcher"] }] });
const as = (observer: string, i: number) => ({ ...observation(`bind-${Date.now()}`, i, `c-bind-${i}`), observer });
const post = (events: unknown[], token: string) =>
  served.app.server.inject({ method: "POST", url: "/v1/observations", headers: { "content-type": "application/json", authorization: `Bearer ${token}` }, payload: JSON.stringify(events) });

describe("a token bound to observers", () => {
  it("writes events of the observers it may claim", async () => {
    const response = await post([as("proxy:W1-a", 1), as("proxy:W1-b", 2)], proxyToken);
    expect(response.statusCode, response.body).toBe(202);
  });

  it("refuses a batch with one foreign observer whole, with 403 and the event's index, producing nothing", async () => {
    const before = await endOffsetSum(served.admin, served.topic);
    const response = await post([as("proxy:W1-a", 1), as("dispatcher", 2), as("proxy:W2-a", 3)], proxyToken);
    expect(response.statusCode).toBe(403);
    const body = response.json() as { code: string; details: { index: number; path: string; message: string }[] };
    expect(body.code).toBe("INGEST_OBSERVER_FORBIDDEN");
    expect(body.details.map((d) => [d.index, d.path])).toEqual([[1, "observer"], [2, "observer"]]);
    expect(body.details[0]?.message).toContain("proxy:W1-*");
    expect(JSON.stringify(body)).not.toContain(proxyToken);
    // A 202 batch after it shows the refused one never reached the topic: the topic grows by exactly that batch.
    expect((await post([as("proxy:W1-c", 4)], proxyToken)).statusCode).toBe(202);
    expect(await endOffsetSum(served.admin, served.topic)).toBe(before + 1);
    const records = await readTopic(served.kafka, served.topic, before + 1);
    expect(records.map((r) => r.value?.toString("latin1") ?? "").some((v) => v.includes("dispatcher"))).toBe(false);
  });

  it("refuses hostile observer names that only look like a claimable one", async () => {
    for (const observer of ["proxy:W1", "Proxy:W1-a", " proxy:W1-a", "proxy:W2-a\nproxy:W1-a", "x".repeat(10_000)]) {
      const response = await post([as(observer, 5)], proxyToken);
      expect([400, 403], JSON.stringify(observer.slice(0, 20))).toContain(response.statusCode);
    }
  });
});
