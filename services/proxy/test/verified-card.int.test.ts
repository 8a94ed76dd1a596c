/**
 * A2A_LEDGER_PROXY_CARD=verified against the real ledger: a real @a2a-js/sdk worker (W1) behind the proxy, the
 * proxy recording through the real ingest service onto a private suffixed topic set on the running
 * Kafka cluster, the real reconciler deciding, and the real projector (in this process, with a read
 * token) answering the proxy's verified-card requests. The orchestrator is the SDK's client resolving
 * the card through the proxy.
 *
 * The story: the first card fetch finds a ledger that never saw W1 (404: W1's card, reason
 * unknown-worker); once the reconciler and the projector took the card in, W1 is known but not
 * probed (409: not-verified); a probe result posted through ingest verifies less than W1 advertises
 * (no input-required, durability unknown); from then on the SDK's client sees V, marked as rewritten,
 * and still talks through the proxy. Every card the ledger recorded is W1's own, byte for byte.
 */
import { randomUUID } from "node:crypto";
import { cardHash, lifecycleExtensionUri } from "@a2a-ledger/core";
import { createIngestApp, loadConfig as loadIngestConfig } from "@a2a-ledger/ingest";
import {
  createKafka,
  endpointsFromEnv,
  ensureTopics,
  suffixedTopicNames,
  topicSpecs,
  type Admin,
  type TopicNames,
} from "@a2a-ledger/kafka";
import { readMessages, waitForGroupAtEnd } from "@a2a-ledger/kafka/testing";
import { clientFor, userMessage } from "@a2a-ledger/mesh-agents";
import {
  buildServer,
  createLogger as projectorLogger,
  createMetrics,
  LiveStream,
  loadConfig as loadProjectorConfig,
  migrate,
  openStore,
  Projector,
} from "@a2a-ledger/projector";
import { loadReconcilerConfig, Reconciler } from "@a2a-ledger/reconciler";
import type { Observation } from "@a2a-ledger/schemas";
import { Serde } from "@a2a-ledger/schemas/serde";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { verifiedCardExtensionUri } from "../src/verified-card.ts";
import { endToEnd, rawRequest, v1, blockingJson } from "./http.ts";
import { drained, metric, startProxy, testConfig, type TestProxy } from "./proxy.ts";
import { startTappedAgent, type TappedAgent } from "./tapped-agent.ts";

process.env.A2A_LEDGER_KAFKA_LOG_LEVEL ??= "nothing";
const endpoints = endpointsFromEnv();
const kafka = createKafka({ brokers: endpoints.brokers, clientId: `proxy-vcard-${randomUUID().slice(0, 8)}` });
const serde = new Serde(endpoints.registryUrl);
const token = "vcard-read-token-0123456789";
const dir = mkdtempSync(join(tmpdir(), "proxy-vcard-"));
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

let admin: Admin;
let topics: TopicNames;
let reconcilerGroup: string;
let ingest: { url: string; close(): Promise<void> };
let reconciler: Reconciler;
let projector: { url: string; projector: Projector; stop(): Promise<void> };
let agent: TappedAgent;
let proxy: TestProxy;

beforeAll(async () => {
  admin = kafka.admin();
  await admin.connect();
  await serde.registerAll();
  const suffix = `proxy-vcard-${randomUUID().slice(0, 8)}`;
  topics = suffixedTopicNames(suffix);
  await ensureTopics(admin, topicSpecs(topics));
  reconcilerGroup = `reconciler-${suffix}`;
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    A2A_LEDGER_TOPIC_SUFFIX: suffix,
    A2A_LEDGER_RECONCILER_GROUP: reconcilerGroup,
    A2A_LEDGER_RECONCILER_SESSION_TIMEOUT_MS: "6000",
    A2A_LEDGER_PROJECTOR_GROUP: `projector-${suffix}`,
    A2A_LEDGER_PROJECTOR_SESSION_TIMEOUT_MS: "6000",
    A2A_LEDGER_PROJECTOR_LOG_LEVEL: "warn",
    A2A_LEDGER_PROJECTOR_TOKENS: token,
    A2A_LEDGER_PROJECTOR_SQLITE_PATH: join(dir, "projector.sqlite"),
  };
  const ingestApp = createIngestApp(
    loadIngestConfig({
      ...env,
      A2A_LEDGER_INGEST_TOPIC: topics.observations,
      A2A_LEDGER_INGEST_PORT: "0",
      A2A_LEDGER_INGEST_LOG_LEVEL: "silent",
    }),
    { logger: false },
  );
  ingest = {
    url: await ingestApp.server.listen({ host: "127.0.0.1", port: 0 }),
    close: () => ingestApp.server.close(),
  };
  reconciler = new Reconciler(loadReconcilerConfig(env), projectorLogger("silent", "reconciler"));
  await reconciler.start();
  const config = loadProjectorConfig(env);
  const store = openStore(config.store);
  await migrate(store);
  const metrics = createMetrics();
  const p = new Projector(config, store, projectorLogger("warn"), metrics);
  const stream = new LiveStream(store, 200);
  await stream.start();
  const server = buildServer({ config, store, stream, metrics, kafka: p, logger: false });
  await p.start();
  const url = await server.listen({ host: "127.0.0.1", port: 0 });
  projector = {
    url,
    projector: p,
    stop: async () => {
      await server.close();
      stream.stop();
      await p.stop();
      await store.close();
    },
  };
  agent = await startTappedAgent("w1");
  proxy = await startProxy(
    testConfig({
      upstreamUrl: agent.url,
      ingestUrl: ingest.url,
      rewriteCardUrls: true,
      cardMode: "verified",
      projectorUrl: projector.url,
      projectorToken: token,
      // The projector shares this test's one thread with the reconciler and the proxy: a look-up it
      // answers late is not what these tests are about (the 2 s default is the proxy config test's).
      projectorTimeoutMs: 15_000,
    }),
  );
}, 240_000);

afterAll(async () => {
  await proxy?.close();
  await agent?.close();
  await projector?.stop();
  await reconciler?.stop();
  await ingest?.close();
  if (topics !== undefined) await admin.deleteTopics({ topics: Object.values(topics) }).catch(() => undefined);
  await admin?.disconnect();
  rmSync(dir, { recursive: true, force: true });
});

const cardPath = "/.well-known/agent-card.json";
const header = (rawHeaders: string[], name: string) => endToEnd(rawHeaders).find(([n]) => n === name)?.[1];
/** The projector's verified-card status for W1, asked with the read token. */
const projectorStatus = async () =>
  (await fetch(`${projector.url}/v1/workers/W1/verified-card`, { headers: { authorization: `Bearer ${token}` } }))
    .status;

/** Waits until the reconciler and the projector took in everything the proxy recorded. */
async function ledgerCaughtUp(): Promise<void> {
  await drained(proxy.app, 30_000);
  await waitForGroupAtEnd(admin, reconcilerGroup, topics.observations);
  await projector.projector.caughtUp(60_000);
}

async function waitForStatus(status: number, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const seen = await projectorStatus();
    if (seen === status) return;
    if (Date.now() > deadline) throw new Error(`the projector answered ${seen} for W1's verified card, not ${status}`);
    await sleep(200);
  }
}

describe("A2A_LEDGER_PROXY_CARD=verified with the real ledger", () => {
  it("serves W1's card, saying why, while the ledger does not know W1 (404) or never probed it (409)", async () => {
    expect(await projectorStatus()).toBe(404);
    const first = await rawRequest(`${proxy.url}${cardPath}`, { headers: v1 });
    expect(first.status).toBe(200);
    expect(header(first.rawHeaders, "a2a-ledger-card")).toBe("advertised; reason=unknown-worker");
    expect(header(first.rawHeaders, "cache-control")).toBe("no-cache");
    const direct = JSON.parse(agent.last(cardPath).body.toString("utf8")) as { supportedInterfaces: { url: string }[] };
    const served = JSON.parse(first.body.toString("utf8")) as typeof direct & {
      capabilities: { extensions: { uri: string }[] };
    };
    // The advertised card, with the URL rewriting of today.
    expect(served.supportedInterfaces.map((i) => i.url)).toEqual(
      direct.supportedInterfaces.map((i) => i.url.replace(agent.url, proxy.url)),
    );
    expect(served.capabilities.extensions.map((e) => e.uri)).not.toContain(verifiedCardExtensionUri);

    await ledgerCaughtUp();
    await waitForStatus(409);
    const second = await rawRequest(`${proxy.url}${cardPath}`, { headers: v1 });
    expect(header(second.rawHeaders, "a2a-ledger-card")).toBe("advertised; reason=not-verified");
    expect(
      await metric(proxy.url, "a2a_proxy_cards_served_total", { card: "advertised", reason: "not-verified" }),
    ).toBe(1);
  });

  it("serves V once a probe verified W1's card: the SDK's client resolves it through the proxy, sees V, and keeps talking through the proxy", async () => {
    const workerCard = agent.last(cardPath).body.toString("utf8");
    const hash = cardHash(JSON.parse(workerCard));
    const probe = {
      type: "ProbeCompleted",
      eventId: `probe-done-${randomUUID()}`,
      correlationId: "probe-W1",
      occurredAt: new Date().toISOString(),
      observer: "dispatcher",
      workerId: "W1",
      cardHash: hash,
      skillId: "answer",
      statesObserved: ["submitted", "working", "completed"],
      reobservable: ["submitted", "working", "completed"],
      emittedModes: ["application/json"],
      durable: null,
    };
    const posted = await fetch(`${ingest.url}/v1/observations`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(probe),
    });
    expect(posted.status).toBe(202);
    await waitForGroupAtEnd(admin, reconcilerGroup, topics.observations);
    await waitForStatus(200);

    const client = await clientFor(proxy.url);
    const card = await client.getAgentCard();
    const extensions = card.capabilities?.extensions ?? [];
    const lifecycle = extensions.find((e) => e.uri === lifecycleExtensionUri);
    // V: no input-required (never re-observed), durability unknown (W1 claims durable), application/json verified.
    expect(lifecycle?.params).toEqual({
      states: ["submitted", "working", "completed"],
      taskStore: "unknown",
      skills: [{ id: "answer", states: ["submitted", "working", "completed"] }],
    });
    expect(card.skills.map((s) => [s.id, s.outputModes])).toEqual([["answer", ["application/json"]]]);
    const marker = extensions.find((e) => e.uri === verifiedCardExtensionUri);
    expect(marker?.params).toMatchObject({
      rewritten: true,
      workerId: "W1",
      originalCardUrl: `${agent.url}${cardPath}`,
      originalCardProxyUrl: `${proxy.url}/a2a-ledger/advertised${cardPath}`,
      cardHash: hash,
    });
    expect(card.supportedInterfaces.every((i) => i.url.startsWith(proxy.url))).toBe(true);

    const reply = await client.sendMessage({
      tenant: "",
      message: userMessage("what is a ledger?", {
        messageId: `msg-${randomUUID()}`,
        metadata: { "a2a-ledger.correlationId": "corr-vcard" },
      }),
      configuration: blockingJson,
      metadata: undefined,
    });
    expect("id" in reply).toBe(true);
    // Through the proxy: it forwarded (and recorded) the SendMessage.
    expect(
      await metric(proxy.url, "a2a_proxy_requests_total", { kind: "jsonrpc", method: "SendMessage", status: "200" }),
    ).toBe(1);

    const served = await rawRequest(`${proxy.url}${cardPath}`, { headers: v1 });
    expect(header(served.rawHeaders, "a2a-ledger-card")).toBe("verified");
    const etag = header(served.rawHeaders, "etag") ?? "";
    expect(etag).toMatch(/^W\/"vc-[A-Za-z0-9_-]{27}"$/);
    expect(header(served.rawHeaders, "cache-control")).toBe("max-age=3600");
    const again = await rawRequest(`${proxy.url}${cardPath}`, { headers: { ...v1, "if-none-match": etag } });
    expect(again.status).toBe(304);
    expect(again.body.length).toBe(0);
    // The worker was asked for its whole card each time (no conditional request), so each fetch is recorded.
    expect(agent.last(cardPath).status).toBe(200);
  });

  it("serves W1's card as advertised at the proxy path the marker names", async () => {
    const original = await rawRequest(`${proxy.url}/a2a-ledger/advertised${cardPath}`, { headers: v1 });
    expect(original.status).toBe(200);
    expect(header(original.rawHeaders, "a2a-ledger-card")).toBeUndefined();
    const worker = agent.last(cardPath).body.toString("utf8");
    expect(original.body.toString("utf8")).toBe(worker.split(agent.url).join(proxy.url));
  });

  it("records every card fetch as W1's own card, never the card it served", async () => {
    await drained(proxy.app, 30_000);
    const sent = await metric(proxy.url, "a2a_proxy_observations_sent_total");
    const messages = await readMessages(kafka, topics.observations, sent + 1, 30_000);
    const cards: Extract<Observation, { type: "AgentCardObserved" }>[] = [];
    for (const m of messages) {
      const o = (await serde.decode(m.value ?? Buffer.alloc(0))).record as Observation;
      if (o.type === "AgentCardObserved") cards.push(o);
    }
    const workerCards = new Set(agent.exchanges.filter((e) => e.url === cardPath).map((e) => e.body.toString("utf8")));
    expect(cards.length).toBe(agent.exchanges.filter((e) => e.url === cardPath && e.status === 200).length);
    expect(cards.length).toBeGreaterThanOrEqual(5);
    for (const c of cards) {
      expect(workerCards.has(c.card)).toBe(true);
      expect(c.card).not.toContain(verifiedCardExtensionUri);
      expect(c.cardUrl).toBe(`${agent.url}${cardPath}`);
      expect(c.etag).toMatch(/^W\//);
    }
  });
});
