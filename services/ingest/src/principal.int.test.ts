/**
 * Who said it: ingest stamps the authenticated principal on every observation it accepts (the token's
 * `;principal=` name, else its observer patterns and a digest of the token), over whatever the client
 * sent, and the record on the topic carries it (real Kafka, registry serde).
 */
import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { observation } from "../test/observations.ts";
import { readTopic, servedTopic, postAs } from "../test/stack.ts";
import { parseTokenEntries, principalOf } from "./auth.ts";

const proxyToken = "principal-proxy-w1-0123456";
const orchestratorToken = "principal-orch-012345678";
const problems: string[] = [];
const tokens = parseTokenEntries(
  [`${proxyToken}=proxy:W1-*`, `${orchestratorToken}=orchestrator:*;principal=acme-orchestrator`],
  "A2A_LEDGER_INGEST_TOKENS",
  problems,
);
const served = servedTopic("principal", { tokens });
const run = `principal-${Date.now()}`;
const post = (events: unknown[], token: string) => postAs(served, token, events);

describe("the principal on every observation", () => {
  it("names a token by its principal= entry, else by its patterns and a digest that is not the token", () => {
    expect(problems).toEqual([]);
    const digest = createHash("sha256").update(proxyToken).digest("hex").slice(0, 8);
    expect(tokens.map(principalOf)).toEqual([`proxy:W1-*#${digest}`, "acme-orchestrator"]);
    expect(principalOf(tokens[0] as (typeof tokens)[number])).not.toContain(proxyToken);
    const bad: string[] = [];
    parseTokenEntries([`${proxyToken}=proxy:W1-*;principal=has space`], "X", bad);
    expect(bad).toEqual([
      "X entry 1: principal= is a name of letters, digits and . _ : @ * | # - (e.g. ;principal=acme-proxy-w1)",
    ]);
  });

  it("stamps the token's principal, over a principal the client sent, on the records that land", async () => {
    const digest = createHash("sha256").update(proxyToken).digest("hex").slice(0, 8);
    // The proxy's events claim to come from someone else: ingest writes who really said it.
    const fromProxy: Record<string, unknown>[] = [0, 1, 2].map((i) => ({
      ...observation(run, i, `c-${run}-${i}`),
      observer: "proxy:W1-a",
      workerId: "W1-a",
      principal: "dispatcher#00000000",
    }));
    const fromOrchestrator: Record<string, unknown>[] = [3, 4].map((i) => ({
      ...observation(run, 10 + i, `c-${run}-o${i}`),
      observer: "orchestrator:acme",
      workerId: "W2-b",
    }));
    const first = await post(fromProxy, proxyToken);
    expect(first.statusCode, first.body).toBe(202);
    expect((await post(fromOrchestrator, orchestratorToken)).statusCode).toBe(202);
    const records = await readTopic(served.kafka, served.topic, fromProxy.length + fromOrchestrator.length);
    const principals = new Map<string, unknown>();
    for (const r of records) {
      const decoded = (await served.app.serde.decode(r.value)).record as { eventId: string; principal: unknown };
      principals.set(decoded.eventId, decoded.principal);
    }
    for (const e of fromProxy) expect(principals.get(e.eventId as string)).toBe(`proxy:W1-*#${digest}`);
    for (const e of fromOrchestrator) expect(principals.get(e.eventId as string)).toBe("acme-orchestrator");
  });
});
