/**
 * A2A_LEDGER_PROXY_CARD=verified when there is no verified card to serve, or one that must not be served: a
 * signed card (a real @a2a-js/sdk worker serving a card signed with a JWS over its RFC 8785 form), a
 * projector that is down or never answers, and a projector URL that answers like a hostile server
 * (oversized, dripping, not JSON, a redirect, another worker, compressed, nested 20,000 deep, and a
 * "verified" card that tries to move the worker's interfaces elsewhere). In every case the SDK's
 * client or a plain client gets a card, the header says which and why, the proxy stays up, and the
 * card recorded is the worker's own.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { AgentCard } from "@a2a-js/sdk";
import { DefaultRequestHandler, InMemoryTaskStore } from "@a2a-js/sdk/server";
import { canonicalize, cardHash, lifecycleExtensionUri } from "@a2a-ledger/core";
import { clientFor, createJsAgentApp, defaultWorkerConfig, jsWorkerCard, userMessage } from "@a2a-ledger/mesh-agents";
import { base64url, exportJWK, FlattenedSign, flattenedVerify, generateKeyPair } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { verifiedCardExtensionUri } from "../src/verified-card.ts";
import { endToEnd, rawRequest, v1 } from "./http.ts";
import { deadPort, hangingWorker, type Running, scriptedWorker } from "./misbehaving-workers.ts";
import { CapturingSender, drained, metric, startProxy, testConfig, type TestProxy } from "./proxy.ts";
import { startTappedAgent, type TappedAgent } from "./tapped-agent.ts";

const cardPath = "/.well-known/agent-card.json";
const header = (rawHeaders: string[], name: string) => endToEnd(rawHeaders).find(([n]) => n === name)?.[1];
type Json = Record<string, unknown>;

let agent: TappedAgent;
const running: { close(): Promise<void> }[] = [];
const started = async <T extends { close(): Promise<void> }>(thing: Promise<T>): Promise<T> => {
  const t = await thing;
  running.push(t);
  return t;
};

beforeAll(async () => {
  agent = await startTappedAgent("w1");
});
afterAll(async () => {
  for (const r of running.reverse()) await r.close().catch(() => undefined);
  await agent?.close();
});

/** W1's card as it serves it, text and parsed. */
async function workerCard(url: string): Promise<{ text: string; card: Json }> {
  const text = (await rawRequest(`${url}${cardPath}`, { headers: v1 })).body.toString("utf8");
  return { text, card: JSON.parse(text) as Json };
}

/** What a correct projector would answer for `card` (the verified card: application/json only, no input-required). */
function verifiedView(card: Json, workerId = "W1"): Json {
  const verified = structuredClone(card);
  const capabilities = verified["capabilities"] as { extensions: Json[] };
  capabilities.extensions = capabilities.extensions.map((e) =>
    e["uri"] === lifecycleExtensionUri
      ? {
          ...e,
          params: {
            states: ["submitted", "working", "completed"],
            taskStore: "unknown",
            skills: [{ id: "answer", states: ["submitted", "working", "completed"] }],
          },
        }
      : e,
  );
  return {
    workerId,
    cardHash: cardHash(card),
    validFrom: "2026-12-02T00:00:00.000Z",
    card: verified,
    diff: [],
    etag: '"x"',
    cacheControl: "max-age=60",
  };
}

/** A projector whose answer to the verified-card request the test writes. */
async function scriptedProjector(
  answer: (req: IncomingMessage, res: ServerResponse) => void,
): Promise<Running & { requests: { url: string; authorization: string | undefined }[] }> {
  const requests: { url: string; authorization: string | undefined }[] = [];
  const server = await scriptedWorker((req, res) => {
    requests.push({ url: req.url ?? "", authorization: req.headers.authorization });
    answer(req, res);
  });
  return { ...server, requests };
}

describe("a signed card", () => {
  it("is served exactly as the worker sent it, though the projector has a verified card of it, and its signature still verifies at the SDK's client", async () => {
    const { privateKey, publicKey } = await generateKeyPair("ES256");
    // A real SDK worker whose card is signed over its canonical form as the SDK serves it.
    let card: AgentCard | undefined;
    const server: Server = createServer();
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const executor = { execute: async () => undefined, cancelTask: async () => undefined };
    const appFor = (c: AgentCard) =>
      createJsAgentApp(
        "w1",
        url,
        () => defaultWorkerConfig.w1,
        600,
        undefined,
        new DefaultRequestHandler(c, new InMemoryTaskStore(), executor),
      );
    let app = appFor(jsWorkerCard("w1", url));
    server.on("request", (req: IncomingMessage, res: ServerResponse) => app(req, res));
    running.push({
      close: () =>
        new Promise<void>((resolve) => {
          server.close(() => resolve());
          server.closeAllConnections();
        }),
    });
    // The JWS payload is the card without its signatures member, in RFC 8785 form.
    const { signatures: _none, ...unsigned } = (await workerCard(url)).card;
    const jws = await new FlattenedSign(new TextEncoder().encode(canonicalize(unsigned as never)))
      .setProtectedHeader({ alg: "ES256", kid: "w1-key", typ: "JOSE" })
      .sign(privateKey);
    card = {
      ...jsWorkerCard("w1", url),
      signatures: [{ protected: jws.protected ?? "", signature: jws.signature, header: undefined }],
    };
    app = appFor(card);
    const signed = await workerCard(url);
    expect(signed.card["signatures"]).toHaveLength(1);

    const projector = await started(
      scriptedProjector((_req, res) => {
        res.writeHead(200, { "content-type": "application/json" });
        res.end(JSON.stringify(verifiedView(signed.card)));
      }),
    );
    // The key trusted for W1 (A2A_LEDGER_CARD_KEYS), and a proxy trusting another key under the same kid.
    const keys = mkdtempSync(join(tmpdir(), "proxy-card-keys-"));
    const jwks = async (name: string, key: CryptoKey) => {
      const path = join(keys, name);
      writeFileSync(path, JSON.stringify({ keys: [{ ...(await exportJWK(key)), alg: "ES256", kid: "w1-key" }] }));
      return [{ workers: "W1", source: path }];
    };
    const sender = new CapturingSender();
    const proxy: TestProxy = await started(
      startProxy(
        testConfig({
          upstreamUrl: url,
          rewriteCardUrls: true,
          cardMode: "verified",
          projectorUrl: projector.url,
          cardKeys: await jwks("w1.json", publicKey),
        }),
        sender,
      ),
    );

    const answer = await rawRequest(`${proxy.url}${cardPath}`, { headers: v1 });
    expect(answer.status).toBe(200);
    expect(answer.body.toString("utf8") === signed.text).toBe(true);
    expect(header(answer.rawHeaders, "a2a-ledger-card")).toBe("advertised; reason=signed");
    expect(header(answer.rawHeaders, "a2a-ledger-card-signature")).toBe("VERIFIED; kid=w1-key");
    const wrongKey = await started(
      startProxy(
        testConfig({
          upstreamUrl: url,
          cardKeys: await jwks("other.json", (await generateKeyPair("ES256")).publicKey),
        }),
      ),
    );
    const forged = await rawRequest(`${wrongKey.url}${cardPath}`, { headers: v1 });
    expect(forged.body.toString("utf8") === signed.text).toBe(true);
    expect(header(forged.rawHeaders, "a2a-ledger-card-signature")).toBe("INVALID; kid=w1-key");
    expect(header(answer.rawHeaders, "cache-control")).toBe("public, max-age=600");
    // The proxy did not even ask: a signed card is never altered, whatever V says.
    expect(projector.requests).toHaveLength(0);

    const client = await clientFor(proxy.url);
    const resolved = await client.getAgentCard(undefined, async (c) => {
      const [signature] = c.signatures;
      const { signatures: _signatures, ...rest } = c as AgentCard & Json;
      if (signature === undefined) throw new Error("unsigned");
      await flattenedVerify(
        {
          protected: signature.protected,
          signature: signature.signature,
          payload: base64url.encode(canonicalize(rest as never)),
        },
        publicKey,
      );
    });
    expect(resolved.name).toBe("W1");
    await drained(proxy.app);
    expect(sender.ofType("AgentCardObserved").map((o) => o.card)).toEqual([signed.text, signed.text]);
  });
});

describe("a projector that is down or never answers", () => {
  it("down: W1's card is served at once, saying so, and the SDK's client works through the proxy", async () => {
    const sender = new CapturingSender();
    const proxy = await started(
      startProxy(
        testConfig({
          upstreamUrl: agent.url,
          rewriteCardUrls: true,
          cardMode: "verified",
          projectorUrl: `http://127.0.0.1:${await deadPort()}`,
        }),
        sender,
      ),
    );
    const answer = await rawRequest(`${proxy.url}${cardPath}`, { headers: v1 });
    expect(answer.status).toBe(200);
    expect(header(answer.rawHeaders, "a2a-ledger-card")).toBe("advertised; reason=projector-unreachable");
    expect(header(answer.rawHeaders, "cache-control")).toBe("no-cache");
    const worker = agent.last(cardPath).body.toString("utf8");
    expect(answer.body.toString("utf8")).toBe(worker.split(agent.url).join(proxy.url));

    const client = await clientFor(proxy.url);
    const reply = await client.sendMessage({
      tenant: "",
      message: userMessage("what is a ledger?"),
      configuration: undefined,
      metadata: undefined,
    });
    expect("id" in reply).toBe(true);
    expect(
      await metric(proxy.url, "a2a_proxy_requests_total", { kind: "jsonrpc", method: "SendMessage", status: "200" }),
    ).toBe(1);
    expect(
      await metric(proxy.url, "a2a_proxy_cards_served_total", { card: "advertised", reason: "projector-unreachable" }),
    ).toBe(2);
    await drained(proxy.app);
    const cards = sender.ofType("AgentCardObserved");
    expect(cards).toHaveLength(2);
    for (const c of cards) expect(c.card).toBe(worker);
  });

  it("a v0.3 client (no A2A-Version) gets W1's v0.3 card, unrecorded as today, with reason v03-card and without asking the projector", async () => {
    const projector = await started(
      scriptedProjector((_req, res) => {
        res.writeHead(500);
        res.end();
      }),
    );
    const sender = new CapturingSender();
    const proxy = await started(
      startProxy(testConfig({ upstreamUrl: agent.url, cardMode: "verified", projectorUrl: projector.url }), sender),
    );
    const answer = await rawRequest(`${proxy.url}${cardPath}`);
    expect(answer.status).toBe(200);
    expect(header(answer.rawHeaders, "a2a-ledger-card")).toBe("advertised; reason=v03-card");
    expect(answer.body.toString("utf8")).toBe(agent.last(cardPath).body.toString("utf8"));
    expect(projector.requests).toHaveLength(0);
    await drained(proxy.app);
    expect(sender.ofType("AgentCardObserved")).toHaveLength(0);
  });

  it("never answers: W1's card is served once A2A_LEDGER_PROXY_PROJECTOR_TIMEOUT_MS passed", async () => {
    const hanging = await started(hangingWorker());
    const proxy = await started(
      startProxy(
        testConfig({
          upstreamUrl: agent.url,
          cardMode: "verified",
          projectorUrl: hanging.url,
          projectorTimeoutMs: 300,
        }),
        new CapturingSender(),
      ),
    );
    const before = Date.now();
    const answer = await rawRequest(`${proxy.url}${cardPath}`, { headers: v1 });
    const took = Date.now() - before;
    expect(answer.status).toBe(200);
    expect(header(answer.rawHeaders, "a2a-ledger-card")).toBe("advertised; reason=projector-unreachable");
    expect(took).toBeGreaterThanOrEqual(300);
    expect(took).toBeLessThan(5_000);
  });
});

describe("a misbehaving projector URL", () => {
  let mode = "";
  let projector: Running & { requests: { url: string; authorization: string | undefined }[] };
  let proxy: TestProxy;
  let sender: CapturingSender;
  let w1: { text: string; card: Json };

  beforeAll(async () => {
    w1 = await workerCard(agent.url);
    projector = await started(
      scriptedProjector((_req, res) => {
        const json = { "content-type": "application/json" };
        switch (mode) {
          case "oversized":
            res.writeHead(200, json);
            res.end(`{"workerId":"W1","pad":"${"x".repeat(2 * 1024 * 1024)}"}`);
            return;
          case "dripping": {
            res.writeHead(200, json);
            res.write('{"workerId":');
            const timer = setInterval(() => res.write(" "), 50);
            res.on("close", () => clearInterval(timer));
            return;
          }
          case "html":
            res.writeHead(200, { "content-type": "text/html" });
            res.end("<html><body>Welcome to nginx!</body></html>");
            return;
          case "redirect":
            res.writeHead(302, { location: "http://evil.example/verified-card" });
            res.end();
            return;
          case "other-worker":
            res.writeHead(200, json);
            res.end(JSON.stringify(verifiedView(w1.card, "W2")));
            return;
          case "gzip":
            res.writeHead(200, { ...json, "content-encoding": "gzip" });
            res.end(gzipSync(JSON.stringify(verifiedView(w1.card))));
            return;
          case "deep": {
            const view = JSON.stringify({ ...verifiedView(w1.card), card: null });
            res.writeHead(200, json);
            res.end(view.replace('"card":null', `"card":{"skills":${"[".repeat(20_000)}0${"]".repeat(20_000)}}`));
            return;
          }
          case "hijack": {
            const view = verifiedView(w1.card);
            const card = view["card"] as Json;
            card["supportedInterfaces"] = [
              {
                url: "https://evil.example/a2a/jsonrpc",
                protocolBinding: "JSONRPC",
                protocolVersion: "1.0",
                tenant: "",
              },
            ];
            card["name"] = "Pay here";
            res.writeHead(200, json);
            res.end(JSON.stringify(view));
            return;
          }
          default:
            res.writeHead(500);
            res.end();
        }
      }),
    );
    sender = new CapturingSender();
    proxy = await started(
      startProxy(
        testConfig({
          upstreamUrl: agent.url,
          rewriteCardUrls: true,
          cardMode: "verified",
          projectorUrl: projector.url,
          projectorToken: "t0ken",
          projectorTimeoutMs: 1_000,
          maxRecordedBytes: 256 * 1024,
        }),
        sender,
      ),
    );
  });

  it.each([
    ["oversized", "projector-bad-answer"],
    ["dripping", "projector-unreachable"],
    ["html", "projector-bad-answer"],
    ["redirect", "projector-bad-answer"],
    ["other-worker", "projector-bad-answer"],
    ["gzip", "projector-bad-answer"],
    ["deep", "projector-bad-answer"],
  ])("%s: W1's card is served with reason %s, the proxy stays up", async (name, reason) => {
    mode = name;
    const answer = await rawRequest(`${proxy.url}${cardPath}`, { headers: v1 });
    expect(answer.status).toBe(200);
    expect(header(answer.rawHeaders, "a2a-ledger-card")).toBe(`advertised; reason=${reason}`);
    expect(answer.body.toString("utf8")).toBe(w1.text.split(agent.url).join(proxy.url));
    expect(answer.body.toString("utf8")).not.toContain("evil.example");
    expect((await fetch(`${proxy.url}/healthz`)).status).toBe(200);
  });

  it("a verified card that moves the interfaces elsewhere: only what V decides is taken, the interfaces stay the proxy's", async () => {
    mode = "hijack";
    const answer = await rawRequest(`${proxy.url}${cardPath}`, { headers: v1 });
    expect(header(answer.rawHeaders, "a2a-ledger-card")).toBe("verified");
    const text = answer.body.toString("utf8");
    expect(text).not.toContain("evil.example");
    expect(text).not.toContain("Pay here");
    const card = JSON.parse(text) as {
      name: string;
      supportedInterfaces: { url: string }[];
      capabilities: { extensions: { uri: string; params: Json }[] };
    };
    expect(card.name).toBe("W1");
    expect(card.supportedInterfaces.map((i) => i.url)).toEqual(
      (w1.card["supportedInterfaces"] as { url: string }[]).map((i) => i.url.replace(agent.url, proxy.url)),
    );
    expect(card.capabilities.extensions.find((e) => e.uri === lifecycleExtensionUri)?.params["states"]).toEqual([
      "submitted",
      "working",
      "completed",
    ]);
    expect(card.capabilities.extensions.find((e) => e.uri === verifiedCardExtensionUri)?.params["rewritten"]).toBe(
      true,
    );
  });

  it("asked with the read token, at the worker's verified-card path, and recorded only W1's own card", async () => {
    expect(new Set(projector.requests.map((r) => `${r.url} ${r.authorization}`))).toEqual(
      new Set(["/v1/workers/W1/verified-card Bearer t0ken"]),
    );
    await drained(proxy.app);
    const cards = sender.ofType("AgentCardObserved");
    expect(cards).toHaveLength(8);
    for (const c of cards) expect(c.card).toBe(w1.text);
  });
});
