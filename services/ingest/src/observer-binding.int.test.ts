/**
 * Tokens scoped to observers, workers and kinds on the real server (Kafka sink, registry serde): an
 * event outside the token's scope refuses the whole batch with 403 and a stable code, and nothing of it
 * reaches the topic. The tokens are those `a2a-ledger up` issues (cli/src/mesh-plan.ts ingestTokenEntries).
 */
import { describe, expect, it } from "vitest";
import { observation } from "../test/observations.ts";
import { endOffsetSum, readTopic, servedTopic, postAs } from "../test/stack.ts";
import { parseTokenEntries } from "./auth.ts";

const proxyToken = "proxy-w1-token-0123456789";
const proxyW2Token = "proxy-w2-token-0123456789";
const guardToken = "guard-w2-token-0123456789";
const dispatcherToken = "dispatcher-token-0123456";
// Entries as `a2a-ledger up` writes them.
const problems: string[] = [];
const tokens = parseTokenEntries(
  [
    `${dispatcherToken}=dispatcher`,
    `${proxyToken}=proxy:W1-*`,
    `${proxyW2Token}=proxy:W2-*`,
    `${guardToken}=guard:W2-*`,
  ],
  "A2A_LEDGER_INGEST_TOKENS",
  problems,
);
const served = servedTopic("observer-binding", { tokens });
const run = `bind-${Date.now()}`;
/** The i-th observation (its type cycles: 0 card, 1 dispatch, 2 state, 3 artifact, 4 not-found, 5 probe) as `observer` about `workerId`. */
const as = (observer: string, i: number, workerId = "W1-run") => ({
  ...observation(run, i, `c-bind-${i}`),
  observer,
  workerId,
});
const post = (events: unknown[], token: string) => postAs(served, token, events);

/** Posts `events`, expects 403 with `code`, and shows that nothing of them reached the topic. */
async function refusedWhole(events: unknown[], token: string, code: string) {
  const before = await endOffsetSum(served.admin, served.topic);
  const response = await post(events, token);
  expect(response.statusCode, response.body).toBe(403);
  const body = response.json() as { code: string; details: { index: number; path: string; message: string }[] };
  expect(body.code).toBe(code);
  expect(JSON.stringify(body)).not.toContain(token);
  // A 202 batch after it shows the refused one never reached the topic: the topic grows by exactly that batch.
  const marker = { ...as("proxy:W1-run", 2), eventId: `${run}-marker-${before}` };
  expect((await post([marker], proxyToken)).statusCode).toBe(202);
  expect(await endOffsetSum(served.admin, served.topic)).toBe(before + 1);
  return body;
}

describe("a token bound to observers", () => {
  it("parses today's entries without a problem", () => expect(problems).toEqual([]));

  it("writes events of the observers it may claim", async () => {
    const response = await post([as("proxy:W1-a", 1, "W1-a"), as("proxy:W1-b", 2, "W1-b")], proxyToken);
    expect(response.statusCode, response.body).toBe(202);
  });

  it("refuses a batch with one foreign observer whole, with 403 and the event's index, producing nothing", async () => {
    const before = await endOffsetSum(served.admin, served.topic);
    const body = await refusedWhole(
      [as("proxy:W1-a", 1), as("dispatcher", 2), as("proxy:W2-a", 3)],
      proxyToken,
      "INGEST_OBSERVER_FORBIDDEN",
    );
    expect(body.details.map((d) => [d.index, d.path])).toEqual([
      [1, "observer"],
      [2, "observer"],
    ]);
    expect(body.details[0]?.message).toContain("proxy:W1-*");
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

describe("a proxy's token speaks only about the workers it fronts (the issue's forgeries with W1's proxy token)", () => {
  it("refuses W2's card: 403 INGEST_WORKER_FORBIDDEN, nothing produced", async () => {
    const body = await refusedWhole([as("proxy:W1-run", 0, "W2-run")], proxyToken, "INGEST_WORKER_FORBIDDEN");
    expect(body.details).toEqual([expect.objectContaining({ index: 0, path: "workerId" })]);
  });

  it("refuses a probe result for W2: 403 INGEST_KIND_FORBIDDEN, nothing produced (probe results are the prober's)", async () => {
    const body = await refusedWhole([as("proxy:W1-run", 5, "W2-run")], proxyToken, "INGEST_KIND_FORBIDDEN");
    expect(body.details[0]?.message).toMatch(/prober/);
    // Even about its own worker.
    await refusedWhole([as("proxy:W1-run", 5, "W1-run")], proxyToken, "INGEST_KIND_FORBIDDEN");
  });

  it("refuses W2's task states, also hidden in a batch of its own worker's: 403, the whole batch, nothing produced", async () => {
    const body = await refusedWhole(
      [as("proxy:W1-run", 2, "W1-run"), as("proxy:W1-run", 8, "W2-run"), as("proxy:W1-run", 3, "W1-run")],
      proxyToken,
      "INGEST_WORKER_FORBIDDEN",
    );
    expect(body.details.map((d) => [d.index, d.path])).toEqual([[1, "workerId"]]);
  });

  it("refuses a guard's events about another worker", async () => {
    await refusedWhole([{ ...as("guard:W2-run", 2, "W1-run") }], guardToken, "INGEST_WORKER_FORBIDDEN");
  });
});

describe("what the demo posts still lands (202)", () => {
  it("takes each proxy's sightings of its own worker, the guard's of its worker and the dispatcher's of any worker, probe results included", async () => {
    const before = await endOffsetSum(served.admin, served.topic);
    // A card, a dispatch, a state, an artifact and a TaskNotFound each.
    const proxyW1 = [0, 1, 2, 3, 4].map((i) => as("proxy:W1-run", 600 + i, "W1-run"));
    const proxyW2 = [0, 1, 2, 3, 4].map((i) => as("proxy:W2-run", 612 + i, "W2-run"));
    const dispatcher = [0, 1, 2, 3, 4, 5].map((i) => ({
      ...as("dispatcher", 300 + i, i % 2 === 0 ? "W1-run" : "W3-run"),
      correlationId: "probe-W3-run",
    }));
    const guard = [{ ...as("guard:W2-run", 402, "W2-run") }];
    for (const [events, token] of [
      [proxyW1, proxyToken],
      [proxyW2, proxyW2Token],
      [dispatcher, dispatcherToken],
      [guard, guardToken],
    ] as const) {
      const response = await post([...events], token);
      expect(response.statusCode, response.body).toBe(202);
    }
    const total = proxyW1.length + proxyW2.length + dispatcher.length + guard.length;
    expect(await endOffsetSum(served.admin, served.topic)).toBe(before + total);
    expect(dispatcher.some((e) => (e as { type?: unknown }).type === "ProbeCompleted")).toBe(true);
  });
});
