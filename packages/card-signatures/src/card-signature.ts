/**
 * An Agent Card's signatures checked against the keys trusted for its worker. A2A v1.0 (§8.4) signs a
 * card with JWS (flattened JSON serialization, detached payload) over the RFC 8785 canonical card without
 * its `signatures`. Two canonical forms are tried, and a signature over either verifies:
 * - the A2A SDKs' (`canonicalizeAgentCard` of @a2a-js/sdk: the card through the v1.0 schema, fields at
 *   their default left out, as the Python SDK's `MessageToDict`), which is what their signers produce;
 * - RFC 8785 of the card as served, without `signatures`, which also covers fields outside the schema.
 *
 * The outcome is one of the `CardSignature` symbols, with the kid that decided it:
 * - `VERIFIED`: a signature verifies with a key trusted for the worker, valid at the fetch's time;
 * - `UNSIGNED`: the card carries no signatures;
 * - `INVALID`: a signature by a trusted key does not verify, that key is outside its `nbf`/`exp`, or the
 *   signatures cannot be read;
 * - `UNKNOWN_KEY`: every signature names a key not trusted for the worker.
 * A card of a worker no configured entry names is not checked (null).
 */
import { type AgentCard, canonicalizeAgentCard } from "@a2a-js/sdk";
import { canonicalize } from "@a2a-ledger/core";
import type { CardSignature } from "@a2a-ledger/schemas";
import { base64url, flattenedVerify, importJWK, type JWSHeaderParameters } from "jose";
import type { CardKeys, TrustedJwk } from "./card-keys.ts";

export interface SignatureCheck {
  status: CardSignature;
  /** The kid that verified (VERIFIED), or of the signature that decided otherwise (INVALID, UNKNOWN_KEY); null when none. */
  keyId: string | null;
  /** Why, in words, for logs and tests (never a key). */
  reason: string;
}

/** Most signatures one card may carry: each costs a verification, so a card listing thousands is refused. */
export const maxSignatures = 8;

/** The algorithms a card signature may use; `none` and the HMAC family never verify a card. */
const algorithms = [
  "ES256",
  "ES384",
  "ES512",
  "EdDSA",
  "Ed25519",
  "RS256",
  "RS384",
  "RS512",
  "PS256",
  "PS384",
  "PS512",
];

interface CardSignatureJson {
  protected: string;
  signature: string;
  header?: JWSHeaderParameters;
}

function readSignatures(card: Record<string, unknown>): CardSignatureJson[] | "unsigned" | "unreadable" {
  const value = card["signatures"];
  if (value === undefined || value === null || (Array.isArray(value) && value.length === 0)) return "unsigned";
  if (!Array.isArray(value) || value.length > maxSignatures) return "unreadable";
  for (const s of value)
    if (
      s === null ||
      typeof s !== "object" ||
      typeof (s as { protected?: unknown }).protected !== "string" ||
      typeof (s as { signature?: unknown }).signature !== "string"
    )
      return "unreadable";
  return value as CardSignatureJson[];
}

function protectedHeader(s: CardSignatureJson): JWSHeaderParameters | undefined {
  try {
    const header = JSON.parse(new TextDecoder().decode(base64url.decode(s.protected))) as unknown;
    return header !== null && typeof header === "object" && !Array.isArray(header)
      ? (header as JWSHeaderParameters)
      : undefined;
  } catch {
    return undefined;
  }
}

/** The canonical forms a signature may cover, base64url-encoded as the JWS payload. */
function payloads(card: Record<string, unknown>): string[] {
  const { signatures: _signatures, ...unsigned } = card;
  const forms = new Set<string>();
  try {
    forms.add(canonicalizeAgentCard(unsigned as unknown as AgentCard));
  } catch {
    // Not a v1.0 card the SDK can read: the served form alone.
  }
  forms.add(canonicalize(unsigned));
  return [...forms].map((f) => base64url.encode(f));
}

/** Whether the key is valid at `at` (epoch ms) by its own `nbf`/`exp` (seconds). */
function validAt(key: TrustedJwk, at: number): boolean {
  if (typeof key.exp === "number" && at >= key.exp * 1000) return false;
  if (typeof key.nbf === "number" && at < key.nbf * 1000) return false;
  return true;
}

async function verifiesWith(
  s: CardSignatureJson,
  key: TrustedJwk,
  forms: readonly string[],
  alg: string,
): Promise<boolean> {
  const { exp: _exp, nbf: _nbf, ...jwk } = key;
  let imported: Awaited<ReturnType<typeof importJWK>>;
  try {
    imported = await importJWK(jwk, alg);
  } catch {
    return false;
  }
  for (const payload of forms) {
    try {
      await flattenedVerify(
        { protected: s.protected, signature: s.signature, payload, ...(s.header ? { header: s.header } : {}) },
        imported,
        { algorithms },
      );
      return true;
    } catch {
      // The next canonical form.
    }
  }
  return false;
}

/**
 * The check of `cardText` (the card as fetched, JSON text) for `workerId`, fetched at `at` (epoch ms);
 * null when no configured entry speaks for the worker.
 */
export async function checkCardSignature(
  cardText: string,
  workerId: string,
  keys: CardKeys,
  at: number,
): Promise<SignatureCheck | null> {
  if (!keys.covers(workerId)) return null;
  let card: unknown;
  try {
    card = JSON.parse(cardText);
  } catch {
    return { status: "INVALID", keyId: null, reason: "the card is not JSON" };
  }
  if (card === null || typeof card !== "object" || Array.isArray(card))
    return { status: "INVALID", keyId: null, reason: "the card is not a JSON object" };
  const signatures = readSignatures(card as Record<string, unknown>);
  if (signatures === "unsigned") return { status: "UNSIGNED", keyId: null, reason: "the card carries no signatures" };
  if (signatures === "unreadable")
    return {
      status: "INVALID",
      keyId: null,
      reason: `signatures is not a list of at most ${maxSignatures} {protected, signature}`,
    };
  const forms = payloads(card as Record<string, unknown>);
  let failed: SignatureCheck | undefined;
  let unknown: SignatureCheck | undefined;
  for (const s of signatures) {
    const header = protectedHeader(s);
    if (header === undefined) {
      failed ??= { status: "INVALID", keyId: null, reason: "a signature's protected header cannot be read" };
      continue;
    }
    const kid =
      typeof header.kid === "string" ? header.kid : typeof s.header?.kid === "string" ? s.header.kid : undefined;
    const alg = typeof header.alg === "string" ? header.alg : "";
    const candidates = await keys.candidates(workerId, kid);
    if (candidates.length === 0) {
      unknown ??= {
        status: "UNKNOWN_KEY",
        keyId: kid ?? null,
        reason: `no key ${kid ?? "(no kid)"} is trusted for ${workerId}`,
      };
      continue;
    }
    if (!algorithms.includes(alg)) {
      failed ??= {
        status: "INVALID",
        keyId: kid ?? null,
        reason: `algorithm ${JSON.stringify(alg)} is not accepted for a card`,
      };
      continue;
    }
    for (const key of candidates) {
      if (!validAt(key, at)) {
        failed ??= {
          status: "INVALID",
          keyId: kid ?? null,
          reason: `key ${kid ?? ""} is not valid at the fetch's time (nbf/exp)`,
        };
        continue;
      }
      if (await verifiesWith(s, key, forms, alg))
        return {
          status: "VERIFIED",
          keyId: kid ?? key.kid ?? null,
          reason: `verified with key ${kid ?? key.kid ?? ""}`,
        };
      failed ??= {
        status: "INVALID",
        keyId: kid ?? null,
        reason: `the signature by key ${kid ?? ""} does not verify over the card`,
      };
    }
  }
  return failed ?? unknown ?? { status: "UNKNOWN_KEY", keyId: null, reason: "no signature names a trusted key" };
}
