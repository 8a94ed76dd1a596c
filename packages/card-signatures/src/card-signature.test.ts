/**
 * Cards signed in the test — by the A2A SDK's own signer and by a plain JWS over RFC 8785 — checked
 * against keys made in the test: verified, unsigned, tampered, signed by a wrong key under the trusted
 * kid, by an unknown key, with an expired and a not-yet-valid key, unreadable signatures, and a JWKS URL
 * that rotates a key in.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type AgentCard, generateAgentCardSignature } from "@a2a-js/sdk";
import { canonicalize } from "@a2a-ledger/core";
import { base64url, exportJWK, FlattenedSign, generateKeyPair, type JWK } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CardKeysError, cardKeys, parseCardKeyEntries } from "./card-keys.ts";
import { checkCardSignature } from "./card-signature.ts";

const at = Date.parse("2026-12-01T00:00:00Z");
const card = {
  name: "Acme summarizer",
  description: "summarizes",
  version: "1.0.0",
  provider: { organization: "Acme", url: "https://acme.example" },
  supportedInterfaces: [{ url: "http://127.0.0.1:4001", protocolBinding: "JSONRPC", protocolVersion: "1.0" }],
  capabilities: { streaming: true },
  defaultInputModes: ["text/plain"],
  defaultOutputModes: ["text/plain"],
  skills: [{ id: "summarize", name: "summarize", description: "summarize", tags: ["text"] }],
};

type Pair = { privateKey: CryptoKey; jwk: JWK };
const pair = async (): Promise<Pair> => {
  const { privateKey, publicKey } = await generateKeyPair("ES256", { extractable: true });
  return { privateKey, jwk: { ...(await exportJWK(publicKey)), alg: "ES256" } };
};
let acme: Pair;
let other: Pair;
let dir: string;

/** A plain JWS (detached payload) over the RFC 8785 form of `c` without signatures. */
async function jcsSigned(c: Record<string, unknown>, key: CryptoKey, kid: string) {
  const payload = new TextEncoder().encode(canonicalize(c));
  const jws = await new FlattenedSign(payload).setProtectedHeader({ alg: "ES256", kid, typ: "JOSE" }).sign(key);
  return { ...c, signatures: [{ protected: jws.protected, signature: jws.signature }] };
}

const sdkSigned = async (key: CryptoKey, kid: string) =>
  generateAgentCardSignature(key, { alg: "ES256", kid, typ: "JOSE" })(card as unknown as AgentCard);

function jwksFile(name: string, keys: readonly object[]): string {
  const path = join(dir, name);
  writeFileSync(path, JSON.stringify({ keys }));
  return path;
}

const check = (c: unknown, keys: ReturnType<typeof cardKeys>, workerId = "acme-1", when = at) =>
  checkCardSignature(JSON.stringify(c), workerId, keys, when);

beforeAll(async () => {
  acme = await pair();
  other = await pair();
  dir = mkdtempSync(join(tmpdir(), "card-keys-"));
});

describe("a card's signatures against the keys trusted for its worker", () => {
  const trusted = () =>
    cardKeys([{ workers: "acme-*", source: jwksFile("acme.json", [{ ...acme.jwk, kid: "acme-2026" }]) }]);

  it("verifies a card signed by the A2A SDK's signer, and one signed over its RFC 8785 form", async () => {
    const keys = trusted();
    expect(await check(await sdkSigned(acme.privateKey, "acme-2026"), keys)).toMatchObject({
      status: "VERIFIED",
      keyId: "acme-2026",
    });
    const extra = await jcsSigned({ ...card, "x-vendor": { tier: 1 } }, acme.privateKey, "acme-2026");
    expect(await check(extra, keys)).toMatchObject({ status: "VERIFIED" });
  });

  it("finds an unsigned card unsigned", async () => {
    expect(await check(card, trusted())).toMatchObject({ status: "UNSIGNED", keyId: null });
    expect(await check({ ...card, signatures: [] }, trusted())).toMatchObject({ status: "UNSIGNED" });
  });

  it("finds a card changed after it was signed invalid", async () => {
    const signed = await sdkSigned(acme.privateKey, "acme-2026");
    const tampered = { ...signed, defaultOutputModes: ["text/html"] };
    expect(await check(tampered, trusted())).toMatchObject({ status: "INVALID", keyId: "acme-2026" });
    const moved = {
      ...signed,
      supportedInterfaces: [{ url: "http://evil.example", protocolBinding: "JSONRPC", protocolVersion: "1.0" }],
    };
    expect(await check(moved, trusted())).toMatchObject({ status: "INVALID" });
  });

  it("finds a card signed by another key under the trusted kid invalid", async () => {
    expect(await check(await sdkSigned(other.privateKey, "acme-2026"), trusted())).toMatchObject({
      status: "INVALID",
      reason: expect.stringContaining("does not verify"),
    });
  });

  it("finds a card signed only by a key not trusted for the worker unknown-key, and one trusted for another worker too", async () => {
    expect(await check(await sdkSigned(other.privateKey, "mallory"), trusted())).toMatchObject({
      status: "UNKNOWN_KEY",
      keyId: "mallory",
    });
    const keys = cardKeys([
      { workers: "acme-*", source: jwksFile("a.json", [{ ...acme.jwk, kid: "acme-2026" }]) },
      { workers: "globex-*", source: jwksFile("g.json", [{ ...other.jwk, kid: "globex-2026" }]) },
    ]);
    // Globex's key signs nothing for Acme's worker.
    expect(await check(await sdkSigned(other.privateKey, "globex-2026"), keys, "acme-1")).toMatchObject({
      status: "UNKNOWN_KEY",
    });
    expect(await check(await sdkSigned(other.privateKey, "globex-2026"), keys, "globex-1")).toMatchObject({
      status: "VERIFIED",
    });
  });

  it("finds a card signed by an expired key, or one not yet valid, invalid at the fetch's time", async () => {
    const expiring = cardKeys([
      { workers: "acme-*", source: jwksFile("exp.json", [{ ...acme.jwk, kid: "acme-2025", exp: at / 1000 - 1 }]) },
    ]);
    const signed = await sdkSigned(acme.privateKey, "acme-2025");
    expect(await check(signed, expiring)).toMatchObject({
      status: "INVALID",
      reason: expect.stringContaining("nbf/exp"),
    });
    expect(await check(signed, expiring, "acme-1", at - 10_000)).toMatchObject({ status: "VERIFIED" });
    const early = cardKeys([
      { workers: "acme-*", source: jwksFile("nbf.json", [{ ...acme.jwk, kid: "acme-2025", nbf: at / 1000 + 60 }]) },
    ]);
    expect(await check(signed, early)).toMatchObject({ status: "INVALID" });
  });

  it("verifies when one of several signatures verifies, and prefers a failure of a trusted key to an unknown one", async () => {
    const good = await sdkSigned(acme.privateKey, "acme-2026");
    const bad = await sdkSigned(other.privateKey, "mallory");
    const both = { ...good, signatures: [...(bad.signatures ?? []), ...(good.signatures ?? [])] };
    expect(await check(both, trusted())).toMatchObject({ status: "VERIFIED" });
    const wrong = await sdkSigned(other.privateKey, "acme-2026");
    const neither = { ...card, signatures: [...(bad.signatures ?? []), ...(wrong.signatures ?? [])] };
    expect(await check(neither, trusted())).toMatchObject({ status: "INVALID", keyId: "acme-2026" });
  });

  it("finds unreadable signatures, a forged algorithm and a card that is not an object invalid, never verified", async () => {
    const keys = trusted();
    expect(await check({ ...card, signatures: "yes" }, keys)).toMatchObject({ status: "INVALID" });
    const many = (await sdkSigned(acme.privateKey, "acme-2026")).signatures ?? [];
    const flood = { ...card, signatures: Array.from({ length: 9 }, () => many[0]) };
    expect(await check(flood, keys)).toMatchObject({ status: "INVALID", reason: expect.stringContaining("at most 8") });
    expect(await check({ ...card, signatures: [{ protected: 1 }] }, keys)).toMatchObject({ status: "INVALID" });
    expect(await check({ ...card, signatures: [{ protected: "!!!", signature: "x" }] }, keys)).toMatchObject({
      status: "INVALID",
    });
    const none = base64url.encode(JSON.stringify({ alg: "none", kid: "acme-2026" }));
    expect(await check({ ...card, signatures: [{ protected: none, signature: "" }] }, keys)).toMatchObject({
      status: "INVALID",
      reason: expect.stringContaining("algorithm"),
    });
    const hs = base64url.encode(JSON.stringify({ alg: "HS256", kid: "acme-2026" }));
    expect(await check({ ...card, signatures: [{ protected: hs, signature: "AAAA" }] }, keys)).toMatchObject({
      status: "INVALID",
    });
    expect(await checkCardSignature("[1]", "acme-1", keys, at)).toMatchObject({ status: "INVALID" });
    expect(await checkCardSignature("{", "acme-1", keys, at)).toMatchObject({ status: "INVALID" });
  });

  it("checks nothing for a worker no entry names", async () => {
    expect(await check(await sdkSigned(acme.privateKey, "acme-2026"), trusted(), "globex-1")).toBeNull();
    expect(await check(card, cardKeys([]), "acme-1")).toBeNull();
  });
});

describe("a JWKS URL", () => {
  let served: JWK[] = [];
  let fetches = 0;
  const server = createServer((req, res) => {
    fetches++;
    if (req.url === "/down") {
      res.writeHead(503).end();
      return;
    }
    res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ keys: served }));
  });
  let base: string;
  beforeAll(async () => {
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  it("takes a key rotated in after its cooldown, and keeps the last good keys while the URL is down", async () => {
    let now = at;
    served = [{ ...acme.jwk, kid: "acme-2026" }];
    const keys = cardKeys([{ workers: "acme-*", source: `${base}/jwks` }], {
      now: () => now,
      cooldownMs: 30_000,
      refreshMs: 300_000,
    });
    expect(await check(await sdkSigned(acme.privateKey, "acme-2026"), keys)).toMatchObject({ status: "VERIFIED" });
    served = [...served, { ...other.jwk, kid: "acme-2027" }];
    const rotated = await sdkSigned(other.privateKey, "acme-2027");
    expect(await check(rotated, keys)).toMatchObject({ status: "UNKNOWN_KEY" }); // within the cooldown
    const before = fetches;
    expect(await check(rotated, keys)).toMatchObject({ status: "UNKNOWN_KEY" });
    expect(fetches).toBe(before); // no fetch per card within the cooldown
    now += 30_000;
    expect(await check(rotated, keys)).toMatchObject({ status: "VERIFIED", keyId: "acme-2027" });
  });

  it("lists no key until the URL ever answers", async () => {
    const keys = cardKeys([{ workers: "acme-*", source: `${base}/down` }]);
    expect(await check(await sdkSigned(acme.privateKey, "acme-2026"), keys)).toMatchObject({ status: "UNKNOWN_KEY" });
  });
});

describe("A2A_LEDGER_CARD_KEYS", () => {
  it("reads WORKERS=JWKS entries, and refuses others with the entry's position", () => {
    expect(parseCardKeyEntries(" acme-*=/k/a.json , globex-1=https://g.example/jwks ")).toEqual([
      { workers: "acme-*", source: "/k/a.json" },
      { workers: "globex-1", source: "https://g.example/jwks" },
    ]);
    expect(parseCardKeyEntries("")).toEqual([]);
    expect(parseCardKeyEntries(undefined)).toEqual([]);
    expect(() => parseCardKeyEntries("acme-*=/k/a.json,nothing")).toThrow(/entry 2 is not WORKERS=JWKS/);
    expect(() => parseCardKeyEntries("=/k")).toThrow(CardKeysError);
  });

  it("fails at start on a JWKS file that is missing, not JSON or not a JWKS, naming it", () => {
    expect(() => cardKeys([{ workers: "a", source: join(dir, "missing.json") }])).toThrow(
      /cannot be read.*missing\.json \(ENOENT\)/,
    );
    const notJson = join(dir, "bad.json");
    writeFileSync(notJson, "{");
    expect(() => cardKeys([{ workers: "a", source: notJson }])).toThrow(/not JSON/);
    writeFileSync(notJson, '{"kty":"EC"}');
    expect(() => cardKeys([{ workers: "a", source: notJson }])).toThrow(/not a JWKS/);
  });
});
