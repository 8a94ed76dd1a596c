/**
 * The card the proxy serves in verified mode (A2A_LEDGER_PROXY_CARD=verified), chosen from the worker's card as it
 * came and the projector's verified card (verified-card-source.ts). Pure.
 *
 * - A signed card (A2A `signatures`) is never altered: the worker's card is served (`signed`).
 * - Without a verified card (projector unreachable, unknown worker, never probed, …) the worker's card
 *   is served with the reason.
 * - A verified card of another card than the worker's (its `cardHash` is not the RFC 8785 hash of the
 *   card the worker serves now) is not served (`card-changed`): the ledger has not verified this card.
 * - Otherwise the proxy takes from the projector's card only what V decides — which of the worker's
 *   skills are kept and their output modes, `defaultOutputModes`, and the task-lifecycle extension's
 *   `states`/`taskStore`/`skills` — onto the worker's card as it came, each value checked; every other
 *   member is the worker's. A projector's card that names a skill the worker lacks or holds a value of
 *   the wrong shape is a bad answer. The result carries the rewrite marker extension.
 */
import { cardHash, lifecycleExtensionUri } from "@a2a-ledger/core";
import type { FallbackReason, VerifiedCardResult } from "./verified-card-source.ts";

/** The marker on a card the proxy rewrote to what the ledger verified (`capabilities.extensions[]`). */
export const verifiedCardExtensionUri = "urn:a2a-ledger:ext:verified-card:v1";

/** Where the original is, for the marker's params. */
export interface OriginalCard {
  /** The worker's card URL (upstream). */
  workerCardUrl: string;
  /** The proxy's URL serving the worker's card as advertised; null while the proxy's URL is unknown. */
  proxyCardUrl: string | null;
}

export type CardChoice =
  | { card: "verified"; body: Record<string, unknown>; cacheControl: string | null }
  | { card: "advertised"; reason: FallbackReason; detail: string };

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** Whether the card carries at least one A2A signature. */
export function isSigned(card: Record<string, unknown>): boolean {
  return Array.isArray(card["signatures"]) && card["signatures"].length > 0;
}

const mediaRange = /^[A-Za-z0-9!#$&^_.+*-]{1,127}\/[A-Za-z0-9!#$&^_.+*-]{1,127}(\s*;[\x20-\x7e]*)?$/;
const stateName = /^[A-Za-z_-]{1,64}$/;

class BadCard extends Error {}

function strings(value: unknown, what: string, pattern: RegExp, max: number): string[] {
  if (!Array.isArray(value) || value.length > max) throw new BadCard(`${what} is not a list of at most ${max}`);
  for (const v of value)
    if (typeof v !== "string" || v.length > 255 || !pattern.test(v))
      throw new BadCard(`${what} holds ${JSON.stringify(String(v).slice(0, 60))}`);
  return [...value] as string[];
}

function skillIds(card: Record<string, unknown>): Set<string> {
  const ids = new Set<string>();
  for (const s of Array.isArray(card["skills"]) ? card["skills"] : [])
    if (isRecord(s) && typeof s["id"] === "string") ids.add(s["id"]);
  return ids;
}

function extensionsOf(card: Record<string, unknown>): unknown[] {
  const capabilities = card["capabilities"];
  return isRecord(capabilities) && Array.isArray(capabilities["extensions"]) ? capabilities["extensions"] : [];
}

/** The verified lifecycle params, checked and copied member by member. */
function lifecycleParams(verified: Record<string, unknown>, known: ReadonlySet<string>): Record<string, unknown> {
  const extension = extensionsOf(verified).find((e) => isRecord(e) && e["uri"] === lifecycleExtensionUri);
  if (!isRecord(extension) || !isRecord(extension["params"]))
    throw new BadCard("the verified card has no task-lifecycle extension");
  const params = extension["params"];
  const out: Record<string, unknown> = { states: strings(params["states"], "the lifecycle states", stateName, 16) };
  if (params["taskStore"] !== undefined) {
    if (typeof params["taskStore"] !== "string" || !/^[a-z]{1,32}$/.test(params["taskStore"]))
      throw new BadCard("the lifecycle taskStore is not a word");
    out["taskStore"] = params["taskStore"];
  }
  if (params["skills"] !== undefined) {
    if (!Array.isArray(params["skills"]) || params["skills"].length > known.size)
      throw new BadCard("the lifecycle skills are not a list of the worker's skills");
    out["skills"] = params["skills"].map((s) => {
      if (!isRecord(s) || typeof s["id"] !== "string" || !known.has(s["id"]))
        throw new BadCard("the lifecycle skills name a skill the worker's card lacks");
      return {
        id: s["id"],
        states: strings(s["states"], `the states of skill ${JSON.stringify(s["id"].slice(0, 60))}`, stateName, 16),
      };
    });
  }
  return out;
}

/** The worker's card with what V decides taken from the verified card, and the marker. Throws BadCard. */
function verifiedInPlace(
  worker: Record<string, unknown>,
  verified: Record<string, unknown>,
  marker: Record<string, unknown>,
): Record<string, unknown> {
  const card = structuredClone(worker);
  const known = skillIds(worker);
  if (!Array.isArray(verified["skills"])) throw new BadCard("the verified card has no skills list");
  const modes = new Map<string, string[]>();
  for (const s of verified["skills"]) {
    if (!isRecord(s) || typeof s["id"] !== "string" || !known.has(s["id"]))
      throw new BadCard("the verified card names a skill the worker's card lacks");
    if (modes.has(s["id"])) throw new BadCard("the verified card names a skill twice");
    modes.set(
      s["id"],
      strings(s["outputModes"], `the output modes of skill ${JSON.stringify(s["id"].slice(0, 60))}`, mediaRange, 64),
    );
  }
  card["skills"] = (Array.isArray(card["skills"]) ? card["skills"] : []).flatMap((s) => {
    if (!isRecord(s) || typeof s["id"] !== "string") return [];
    const kept = modes.get(s["id"]);
    return kept === undefined ? [] : [{ ...s, outputModes: kept }];
  });
  if (Array.isArray(card["defaultOutputModes"]))
    card["defaultOutputModes"] = strings(verified["defaultOutputModes"], "the default output modes", mediaRange, 64);
  const params = lifecycleParams(verified, known);
  const capabilities = isRecord(card["capabilities"]) ? card["capabilities"] : {};
  const own = extensionsOf(card).filter((e) => !(isRecord(e) && e["uri"] === verifiedCardExtensionUri));
  const at = own.findIndex((e) => isRecord(e) && e["uri"] === lifecycleExtensionUri);
  const lifecycle =
    at >= 0 ? { ...(own[at] as Record<string, unknown>), params } : { uri: lifecycleExtensionUri, params };
  const extensions = at >= 0 ? own.map((e, i) => (i === at ? lifecycle : e)) : [...own, lifecycle];
  extensions.push({
    uri: verifiedCardExtensionUri,
    description:
      "This card was rewritten by the a2a-ledger recording proxy: its states and output modes are those the ledger verified, not those the worker advertises. The original is named in params.",
    required: false,
    params: marker,
  });
  card["capabilities"] = { ...capabilities, extensions };
  return card;
}

/** The card to serve, from the worker's card (parsed, as it came) and what the projector answered. */
export function chooseCard(
  worker: Record<string, unknown>,
  projector: VerifiedCardResult,
  original: OriginalCard,
): CardChoice {
  if (isSigned(worker)) return { card: "advertised", reason: "signed", detail: "the worker's card is signed" };
  if (!projector.ok) return { card: "advertised", reason: projector.reason, detail: projector.detail };
  const { view } = projector;
  if (cardHash(worker) !== view.cardHash)
    return {
      card: "advertised",
      reason: "card-changed",
      detail: `the ledger verified card ${view.cardHash.slice(0, 12)}…, the worker serves another`,
    };
  const marker = {
    rewritten: true,
    workerId: view.workerId,
    originalCardUrl: original.workerCardUrl,
    ...(original.proxyCardUrl === null ? {} : { originalCardProxyUrl: original.proxyCardUrl }),
    cardHash: view.cardHash,
    validFrom: view.validFrom,
  };
  try {
    return { card: "verified", body: verifiedInPlace(worker, view.card, marker), cacheControl: view.cacheControl };
  } catch (e) {
    if (e instanceof BadCard) return { card: "advertised", reason: "projector-bad-answer", detail: e.message };
    throw e;
  }
}

/** Whether an If-None-Match header names `etag` (weak comparison, RFC 9110 §13.1.2). */
export function matchesEtag(ifNoneMatch: string | undefined, etag: string | null): boolean {
  if (ifNoneMatch === undefined || etag === null) return false;
  const opaque = (t: string) => t.trim().replace(/^W\//, "");
  if (ifNoneMatch.trim() === "*") return true;
  return ifNoneMatch.split(",").some((t) => opaque(t) === opaque(etag));
}
