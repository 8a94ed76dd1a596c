/**
 * The Agent Card on its way from the worker to the client: read whole (it is small), recorded as the
 * worker sent it (`AgentCardObserved`, before any rewriting), and relayed — with its interface URLs moved
 * under the proxy's public URL when configured (card-rewrite.ts; its GRPC one to the gRPC relay's,
 * grpc/grpc-card.ts), every other byte, `ETag` and `Cache-Control` as they were.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { ObservationInput } from "@a2a-ledger/ingest-client";
import { decodedBody } from "./answer-reader.ts";
import { rewriteCardUrls } from "./card-rewrite.ts";
import type { ProxyConfig } from "./config.ts";
import type { GrpcCardRewrite } from "./grpc/grpc-card.ts";
import { endToEndHeaders, rawHeader } from "./hop-by-hop.ts";
import type { UnrecordedReason } from "./metrics.ts";
import { cardObservation, maxAgeOf, type ObservationSource } from "./observations.ts";

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
  /** The card's path, as requested. */
  path: string;
}

/** Reads the worker's card answer, records it, and writes it to the client; `done` once the answer is over. */
export function relayCard(deps: CardRelayDeps, res: ServerResponse, upRes: IncomingMessage, answer: CardAnswer, done: () => void): void {
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
    let sent = raw;
    let headers = answer.headers;
    if (plain === null) deps.unrecorded("encoded_body");
    else if (answer.status === 200) {
      const text = plain.toString("utf8");
      recordCard(deps, text, answer);
      const publicUrl = deps.publicUrl();
      let rewritten = config.rewriteCardUrls && publicUrl !== "" ? rewriteCardUrls(text, [config.upstreamUrl, ...config.cardUrlAliases], publicUrl) : text;
      rewritten = deps.grpcCard?.(text, rewritten) ?? rewritten;
      // A content-encoded card is relayed as it is: rewriting it would mean encoding it again.
      if (plain === raw) {
        if (rewritten !== text) {
          sent = Buffer.from(rewritten, "utf8");
          headers = endToEndHeaders(answer.headers, ["content-length"]);
          headers.push("Content-Length", String(sent.length));
        }
      }
    }
    void deps.kept().then(() => {
      if (!res.destroyed) {
        res.writeHead(answer.status, upRes.statusMessage, headers);
        res.end(sent);
      }
      done();
    });
  });
}

function recordCard(deps: CardRelayDeps, text: string, answer: CardAnswer): void {
  // A worker that serves a v0.3 translation beside its v1.0 card (Vary: A2A-Version) is recorded by its
  // v1.0 card only, so that the two shapes of one card do not read as card changes.
  const vary = rawHeader(answer.headers, "vary")?.toLowerCase() ?? "";
  if (answer.version === "0.3" && vary.includes("a2a-version")) return deps.unrecorded("v03_card");
  let card: unknown;
  try {
    card = JSON.parse(text);
  } catch {
    return;
  }
  if (typeof card !== "object" || card === null || Array.isArray(card)) return;
  const fetched = {
    cardUrl: `${deps.config.upstreamUrl}${answer.path}`,
    card: text,
    cacheMaxAgeSeconds: maxAgeOf(rawHeader(answer.headers, "cache-control")),
    etag: rawHeader(answer.headers, "etag") ?? null,
  };
  deps.emit(cardObservation(deps.source, answer.explicit ?? `card:${deps.config.workerId}`, fetched, deps.now()));
}
