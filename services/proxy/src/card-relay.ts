/**
 * The Agent Card on its way from the worker to the client: read whole (it is small), recorded as the
 * worker sent it (`AgentCardObserved`, before any rewriting), and relayed — with its interface URLs moved
 * under the proxy's public URL when configured (card-rewrite.ts; its GRPC one to the gRPC relay's,
 * grpc/grpc-card.ts), every other byte, `ETag` and `Cache-Control` as they were.
 *
 * In verified mode (A2A_LEDGER_PROXY_CARD=verified) the card served in its place is the one verified-card.ts
 * chooses from the worker's card and the projector's verified card: the verified card (its own weak
 * `ETag`, the projector's `Cache-Control`, `A2A-Ledger-Card: verified`), or the worker's card as above
 * with `A2A-Ledger-Card: advertised; reason=<why>` (and `Cache-Control: no-cache` when the reason passes
 * with time). `If-None-Match` is answered here against the ETag of what is served (the worker is asked
 * without it, so that the card the proxy compares and records is always the worker's whole card).
 */
import { createHash } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { type CardKeys, checkCardSignature, type SignatureCheck } from "@a2a-ledger/card-signatures";
import type { Logger } from "@a2a-ledger/logging";
import type { ObservationInput } from "@a2a-ledger/ingest-client";
import { decodedBody } from "./answer-reader.ts";
import { rewriteCardUrls } from "./card-rewrite.ts";
import type { CardMode, ProxyConfig } from "./config.ts";
import type { GrpcCardRewrite } from "./grpc/grpc-card.ts";
import { endToEndHeaders, rawHeader } from "./hop-by-hop.ts";
import type { UnrecordedReason } from "./metrics.ts";
import { cardObservation, maxAgeOf, type ObservationSource } from "@a2a-ledger/ingest-client";
import { chooseCard, isSigned, matchesEtag } from "./verified-card.ts";
import type { FallbackReason, VerifiedCardSource } from "./verified-card-source.ts";

/** Where the proxy serves, in verified mode, the worker's card as advertised: this prefix before the card's path. */
export const originalCardPrefix = "/a2a-ledger/advertised";

export interface CardRelayDeps {
  config: Pick<ProxyConfig, "workerId" | "upstreamUrl" | "cardUrlAliases" | "rewriteCardUrls" | "maxRecordedBytes">;
  source: ObservationSource;
  /** The proxy's base URL as clients reach it; "" until known. */
  publicUrl(): string;
  emit(observation: ObservationInput): void;
  /** Resolves once what was emitted so far is kept safe (the card is relayed only then). */
  kept(): Promise<void>;
  unrecorded(reason: UnrecordedReason): void;
  now(): number;
  /** With the gRPC relay: learns its upstream from each card relayed and rewrites the card's GRPC URL. */
  grpcCard?: GrpcCardRewrite;
  /** In verified mode: the projector's verified cards. */
  verifiedCards?: VerifiedCardSource;
  /** With A2A_LEDGER_CARD_KEYS: the worker's card is checked against them and the answer says what was found. */
  cardKeys?: CardKeys;
  /** Counts a card served in verified mode: which one, and why not the verified one ("" when it was). */
  served(card: "verified" | "advertised", reason: FallbackReason | ""): void;
  log: Logger;
}

export interface CardAnswer {
  status: number;
  /** The worker's end-to-end headers (raw list). */
  headers: string[];
  encoding: string | undefined;
  /** The correlation id the request named, if any. */
  explicit: string | null;
  /** The protocol version the client asked for. */
  version: "1.0" | "0.3";
  /** The card's path, as requested (without the original card's prefix). */
  path: string;
  /** Which card to serve for this request: the configured mode, or advertised on the original card's path. */
  mode: CardMode;
  /** The client's If-None-Match, answered here in verified mode. */
  ifNoneMatch: string | undefined;
}

/** Reads the worker's card answer, records it, and writes it to the client; `done` once the answer is over. */
export function relayCard(
  deps: CardRelayDeps,
  res: ServerResponse,
  upRes: IncomingMessage,
  answer: CardAnswer,
  done: () => void,
): void {
  const { config } = deps;
  const chunks: Buffer[] = [];
  let size = 0;
  upRes.on("data", (chunk: Buffer) => {
    size += chunk.length;
    if (size > config.maxRecordedBytes) {
      upRes.destroy(new Error("card larger than A2A_LEDGER_PROXY_MAX_RECORDED_BYTES"));
      return;
    }
    chunks.push(chunk);
  });
  upRes.on("end", () => {
    const raw = Buffer.concat(chunks, size);
    const plain = decodedBody(raw, answer.encoding, config.maxRecordedBytes);
    if (plain === null) deps.unrecorded("encoded_body");
    const text = plain === null || answer.status !== 200 ? null : plain.toString("utf8");
    const recorded = text === null ? false : recordCard(deps, text, answer);
    const verified = answer.mode === "verified" && deps.verifiedCards !== undefined && answer.status === 200;
    const reply: Promise<Reply> = verified
      ? verifiedReply(deps, raw, plain, text, recorded, answer).catch((err: unknown) => {
          // A fault of the proxy's own must not leave the client without a card: the worker's, as it came.
          deps.log.error({ err }, "choosing the verified card failed; serving the worker's card");
          return { headers: answer.headers, body: raw, notModified: false };
        })
      : Promise.resolve(advertisedReply(deps, raw, plain, text, answer));
    const signature =
      text === null || deps.cardKeys === undefined
        ? Promise.resolve(null)
        : checkCardSignature(text, config.workerId, deps.cardKeys, deps.now()).catch(() => null);
    void Promise.all([reply, deps.kept(), signature]).then(([chosen, , check]) => {
      const r =
        check === null ? chosen : { ...chosen, headers: [...chosen.headers, signatureHeader, signatureValue(check)] };
      if (check !== null && check.status !== "VERIFIED" && check.status !== "UNSIGNED")
        deps.log.warn({ signature: check.status, reason: check.reason }, "the worker's card signature does not verify");
      if (!res.destroyed) {
        if (r.notModified) {
          res.writeHead(304, endToEndHeaders(r.headers, ["content-length"]));
          res.end();
        } else {
          res.writeHead(answer.status, upRes.statusMessage, r.headers);
          res.end(r.body);
        }
      }
      done();
    });
  });
}

interface Reply {
  headers: string[];
  body: Buffer;
  notModified: boolean;
}

/** The worker's card as today: its interface URLs rewritten when configured, every other byte and header as they came. */
function advertisedReply(
  deps: CardRelayDeps,
  raw: Buffer,
  plain: Buffer | null,
  text: string | null,
  answer: CardAnswer,
  alter = true,
): Reply {
  if (text === null) return { headers: answer.headers, body: raw, notModified: false };
  // Computed even when not used: the gRPC relay learns the worker's endpoint from every card it sees.
  const rewritten = rewrittenText(deps, text, text);
  // A content-encoded card is relayed as it is: rewriting it would mean encoding it again.
  if (!alter || plain !== raw || rewritten === text) return { headers: answer.headers, body: raw, notModified: false };
  const body = Buffer.from(rewritten, "utf8");
  return {
    headers: [...endToEndHeaders(answer.headers, ["content-length"]), "Content-Length", String(body.length)],
    body,
    notModified: false,
  };
}

function rewrittenText(deps: CardRelayDeps, workerText: string, text: string): string {
  const { config } = deps;
  const publicUrl = deps.publicUrl();
  const moved =
    config.rewriteCardUrls && publicUrl !== ""
      ? rewriteCardUrls(text, [config.upstreamUrl, ...config.cardUrlAliases], publicUrl)
      : text;
  return deps.grpcCard?.(workerText, moved) ?? moved;
}

/**
 * The header saying what the worker's card signature is against the keys trusted for the worker
 * (`VERIFIED; kid=w1-2026`, `UNSIGNED`, `INVALID; kid=…`, `UNKNOWN_KEY; kid=…`); absent when no key is
 * trusted for it. It describes the worker's card, whichever card is served.
 */
export const signatureHeader = "A2A-Ledger-Card-Signature";

/** The header's value; a kid that is not a plain token (a hostile card's) is left out. */
function signatureValue(check: SignatureCheck): string {
  return check.keyId !== null && /^[A-Za-z0-9._:@#+/=-]{1,128}$/.test(check.keyId)
    ? `${check.status}; kid=${check.keyId}`
    : check.status;
}

/** The header saying which card was served, and why not the verified one. */
export const cardHeader = "A2A-Ledger-Card";

/** Reasons that pass with time (the ledger catches up, the projector comes back): such an answer is not cached. */
const transient: ReadonlySet<FallbackReason> = new Set([
  "projector-unreachable",
  "projector-refused",
  "unknown-worker",
  "not-verified",
  "card-changed",
  "projector-bad-answer",
]);

async function verifiedReply(
  deps: CardRelayDeps,
  raw: Buffer,
  plain: Buffer | null,
  text: string | null,
  recorded: boolean,
  answer: CardAnswer,
): Promise<Reply> {
  const fallback = (reason: FallbackReason, detail: string): Reply => {
    deps.served("advertised", reason);
    if (reason !== "signed") deps.log.warn({ reason, detail }, "serving the worker's card: no verified card to serve");
    const base = advertisedReply(deps, raw, plain, text, answer, reason !== "signed");
    const headers = transient.has(reason)
      ? [...endToEndHeaders(base.headers, ["cache-control"]), "Cache-Control", "no-cache"]
      : [...base.headers];
    headers.push(cardHeader, `advertised; reason=${reason}`);
    return {
      headers,
      body: base.body,
      notModified: matchesEtag(answer.ifNoneMatch, rawHeader(base.headers, "etag") ?? null),
    };
  };
  let worker: unknown = null;
  try {
    worker = text === null ? null : JSON.parse(text);
  } catch {
    worker = null;
  }
  if (typeof worker !== "object" || worker === null || Array.isArray(worker))
    return fallback("unreadable-card", "the worker's card is not a JSON object the proxy can read");
  const card = worker as Record<string, unknown>;
  if (isSigned(card)) return fallback("signed", "");
  if (!recorded) return fallback("v03-card", "a v0.3 card served beside the worker's v1.0 card");
  const source = deps.verifiedCards as VerifiedCardSource;
  const publicUrl = deps.publicUrl();
  const choice = chooseCard(card, await source.fetch(), {
    workerCardUrl: `${deps.config.upstreamUrl}${answer.path}`,
    proxyCardUrl: publicUrl === "" ? null : `${publicUrl}${originalCardPrefix}${answer.path}`,
  });
  if (choice.card === "advertised") return fallback(choice.reason, choice.detail);
  deps.served("verified", "");
  const workerText = text as string;
  const body = Buffer.from(rewrittenText(deps, workerText, JSON.stringify(choice.body)), "utf8");
  const etag = `W/"vc-${createHash("sha256").update(body).digest("base64url").slice(0, 27)}"`;
  const cacheControl = choice.cacheControl ?? "no-cache";
  const headers = [
    ...endToEndHeaders(answer.headers, [
      "content-length",
      "content-encoding",
      "etag",
      "cache-control",
      "last-modified",
      "content-md5",
      "digest",
      "content-digest",
    ]),
    "ETag",
    etag,
    "Cache-Control",
    cacheControl,
    cardHeader,
    "verified",
    "Content-Length",
    String(body.length),
  ];
  return { headers, body, notModified: matchesEtag(answer.ifNoneMatch, etag) };
}

/** Records the card as the worker sent it; false when it is not recorded (a v0.3 translation, or not a JSON object). */
function recordCard(deps: CardRelayDeps, text: string, answer: CardAnswer): boolean {
  // A worker that serves a v0.3 translation beside its v1.0 card (Vary: A2A-Version) is recorded by its
  // v1.0 card only, so that the two shapes of one card do not read as card changes.
  const vary = rawHeader(answer.headers, "vary")?.toLowerCase() ?? "";
  if (answer.version === "0.3" && vary.includes("a2a-version")) {
    deps.unrecorded("v03_card");
    return false;
  }
  let card: unknown;
  try {
    card = JSON.parse(text);
  } catch {
    return false;
  }
  if (typeof card !== "object" || card === null || Array.isArray(card)) return false;
  const fetched = {
    cardUrl: `${deps.config.upstreamUrl}${answer.path}`,
    card: text,
    cacheMaxAgeSeconds: maxAgeOf(rawHeader(answer.headers, "cache-control")),
    etag: rawHeader(answer.headers, "etag") ?? null,
  };
  deps.emit(cardObservation(deps.source, answer.explicit ?? `card:${deps.config.workerId}`, fetched, deps.now()));
  return true;
}
