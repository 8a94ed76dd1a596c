/**
 * Signed cards through the real ingest: with keys trusted for W1-* (a JWKS file made in the test), every
 * card ingest accepts carries its own signature check and whom its poster speaks for, stamped over what
 * the client claimed, on the record that lands (real Kafka, registry serde). A card of a worker no key
 * names is not checked; without tokens there is no standing.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type AgentCard, generateAgentCardSignature } from "@a2a-js/sdk";
import { exportJWK, generateKeyPair } from "jose";
import { describe, expect, it } from "vitest";
import { observation } from "../test/observations.ts";
import { readTopic, servedTopic, postAs } from "../test/stack.ts";
import { parseTokenEntries } from "./auth.ts";
import { loadConfig } from "./config.ts";

const proxyToken = "cardsig-proxy-w1-0123456";
const orchestratorToken = "cardsig-orchestrator-0123";
const dispatcherToken = "cardsig-dispatcher-012345";
const tokens = parseTokenEntries(
  [`${proxyToken}=proxy:W1-*`, `${orchestratorToken}=orchestrator:*`, `${dispatcherToken}=dispatcher`],
  "A2A_LEDGER_INGEST_TOKENS",
  [],
);
const dir = mkdtempSync(join(tmpdir(), "ingest-card-keys-"));
const jwks = join(dir, "w1.jwks.json");
// The key is made and its JWKS written before the server starts (it reads the file at start).
const { privateKey, publicKey } = await generateKeyPair("ES256", { extractable: true });
writeFileSync(jwks, JSON.stringify({ keys: [{ ...(await exportJWK(publicKey)), alg: "ES256", kid: "w1-2026" }] }));
const signed = await generateAgentCardSignature(privateKey, { alg: "ES256", kid: "w1-2026", typ: "JOSE" })(
  observation("x", 0, "c")["card"] as unknown as AgentCard,
);
const served = servedTopic("cardsig", { tokens, cardKeys: [{ workers: "W1-*", source: jwks }] });
const run = `cardsig-${Date.now()}`;

const post = (events: unknown[], token: string) => postAs(served, token, events);

let n = 0;
const cardEvent = (workerId: string, observer: string, card: unknown, claimed: Record<string, unknown> = {}) => ({
  ...observation(run, 0, `c-${run}-${n}`),
  eventId: `${run}-card-${n++}`,
  workerId,
  observer,
  card,
  ...claimed,
});

describe("a card's signature and its poster's standing, stamped by ingest", () => {
  it("records what ingest found, over what the client claimed", async () => {
    const tampered = { ...signed, defaultOutputModes: ["text/html"] };
    const unsigned = { ...signed, signatures: undefined };
    const sent = [
      [cardEvent("W1-a", "proxy:W1-a", signed), proxyToken],
      [cardEvent("W1-a", "proxy:W1-a", tampered, { signature: "VERIFIED", signatureKeyId: "w1-2026" }), proxyToken],
      [cardEvent("W1-a", "proxy:W1-a", unsigned, { signature: "VERIFIED", standing: "PROBER" }), proxyToken],
      [cardEvent("W1-a", "orchestrator:acme", signed), orchestratorToken],
      [cardEvent("W1-a", "dispatcher", unsigned), dispatcherToken],
      [cardEvent("W2-b", "orchestrator:acme", signed, { signature: "VERIFIED" }), orchestratorToken],
    ] as const;
    for (const [event, token] of sent) {
      const res = await post([event], token);
      expect(res.statusCode, res.body).toBe(202);
    }
    const records = await readTopic(served.kafka, served.topic, sent.length);
    const stamped = new Map<string, unknown>();
    for (const r of records) {
      const d = (await served.app.serde.decode(r.value)).record as unknown as Record<string, unknown>;
      stamped.set(d["eventId"] as string, [d["signature"], d["signatureKeyId"], d["standing"]]);
    }
    expect(sent.map(([e]) => stamped.get(e.eventId as string))).toEqual([
      ["VERIFIED", "w1-2026", "WORKER"],
      ["INVALID", "w1-2026", "WORKER"],
      ["UNSIGNED", null, "WORKER"],
      ["VERIFIED", "w1-2026", "SIGHTING"],
      ["UNSIGNED", null, "PROBER"],
      // No key is trusted for W2: its card is not checked, whatever the client claimed.
      [null, null, "SIGHTING"],
    ]);
    const metrics = await served.app.server.inject({ method: "GET", url: "/metrics" });
    expect(metrics.body).toContain('ingest_card_signatures_total{status="INVALID"} 1');
    expect(metrics.body).toContain('ingest_card_signatures_total{status="VERIFIED"} 2');
  });

  it("refuses to start on a JWKS file it cannot read, naming it", () => {
    expect(() => loadConfig({ A2A_LEDGER_CARD_KEYS: `W1-*=${join(dir, "gone.json")}` })).toThrow(
      /gone\.json \(ENOENT\)/,
    );
    expect(() => loadConfig({ A2A_LEDGER_CARD_KEYS: "W1-*" })).toThrow(/entry 1 is not WORKERS=JWKS/);
  });
});
