/**
 * Talking to a worker the way the dispatcher must: only through its recording proxy, with the real
 * @a2a-js/sdk client, naming the ledger's correlation (and skill, attempt) on every request so that the
 * proxy records what it forwards under the right correlation.
 *
 * The card is fetched through the proxy. A proxy that rewrites the card's interface URLs to itself serves
 * a card the worker never wrote; the ledger knows the worker's own card (the proxy records that one), so
 * the dispatcher undoes the rewrite — interface URLs under the proxy go back under the worker's base URL —
 * to hash and record the card the worker serves.
 */
import { Role, type AgentCard, type Message } from "@a2a-js/sdk";
import { ClientFactory, ClientFactoryOptions, type Client, type RequestOptions } from "@a2a-js/sdk/client";
import { cardHash } from "@a2a-ledger/core";
import {
  attemptHeaderName,
  attemptMetadataKey,
  correlationHeaderName,
  correlationMetadataKey,
  skillHeaderName,
  skillMetadataKey,
} from "@a2a-ledger/ingest-client";
import { DispatchAlert } from "./errors.ts";
import type { PreferredTransport } from "./worker-config.ts";

export const ledgerHeaders = {
  correlationId: correlationHeaderName,
  skillId: skillHeaderName,
  attempt: attemptHeaderName,
} as const;
export const ledgerMetadata = {
  correlationId: correlationMetadataKey,
  skillId: skillMetadataKey,
  attempt: attemptMetadataKey,
  decisionId: "a2a-ledger.decisionId",
} as const;
export const cardPath = "/.well-known/agent-card.json";

export interface FetchedCard {
  /** The card as the proxy served it (interface URLs under the proxy): what clients are built from. */
  served: Record<string, unknown>;
  /** The card as the worker serves it (`served` with the proxy's rewrite undone); null when the worker's base URL is unknown. */
  worker: Record<string, unknown> | null;
  /** sha256 of the worker's card (RFC 8785), the ledger's card identity; null with `worker`. */
  hash: string | null;
  /** The worker's card URL, or the proxy's when the worker's base URL is unknown. */
  cardUrl: string;
  cacheMaxAgeSeconds: number | null;
  etag: string | null;
  fetchedAt: number;
}

export interface LedgerNames {
  correlationId: string;
  skillId?: string | null;
  attempt?: number;
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** The URL moved from under `from` to under `to`, or null when it is not under `from`. */
function moved(url: string, from: string, to: string): string | null {
  if (!url.startsWith(from)) return null;
  const rest = url.slice(from.length);
  return rest === "" || rest.startsWith("/") || rest.startsWith("?") ? `${to}${rest}` : null;
}

/** Every interface URL of a card: v1.0 `supportedInterfaces[].url`, v0.3 `url` and `additionalInterfaces[].url`. */
export function interfaceUrls(card: Record<string, unknown>): string[] {
  const urls: string[] = [];
  for (const key of ["supportedInterfaces", "additionalInterfaces"]) {
    const list = card[key];
    if (Array.isArray(list))
      for (const entry of list) if (isRecord(entry) && typeof entry.url === "string") urls.push(entry.url);
  }
  if (typeof card.url === "string") urls.push(card.url);
  return urls;
}

/** The card with its interface URLs under `proxyUrl` moved back under `workerUrl`; a copy, the input unchanged. */
export function undoProxyRewrite(
  card: Record<string, unknown>,
  proxyUrl: string,
  workerUrl: string,
): Record<string, unknown> {
  const back = (url: unknown): unknown => (typeof url === "string" ? (moved(url, proxyUrl, workerUrl) ?? url) : url);
  const copy: Record<string, unknown> = { ...card };
  for (const key of ["supportedInterfaces", "additionalInterfaces"]) {
    const list = card[key];
    if (Array.isArray(list))
      copy[key] = list.map((entry: unknown) => (isRecord(entry) ? { ...entry, url: back(entry.url) } : entry));
  }
  if (typeof card.url === "string") copy.url = back(card.url);
  return copy;
}

/** The worker's base URL from its card URL (`…/.well-known/agent-card.json`), or null. */
export function workerBaseOf(cardUrl: string | null): string | null {
  if (cardUrl === null || !cardUrl.endsWith(cardPath)) return null;
  return cardUrl.slice(0, -cardPath.length);
}

export function maxAgeOf(cacheControl: string | null): number | null {
  const match = cacheControl === null ? null : /(?:^|,)\s*max-age\s*=\s*"?(\d{1,10})"?\s*(?:,|$)/i.exec(cacheControl);
  return match === null ? null : Number(match[1]);
}

/** The headers that name the ledger's correlation (and skill and attempt) on a request. */
export function ledgerHeadersOf(names: LedgerNames): Record<string, string> {
  const headers: Record<string, string> = { [ledgerHeaders.correlationId]: names.correlationId };
  if (names.skillId !== undefined && names.skillId !== null) headers[ledgerHeaders.skillId] = names.skillId;
  if (names.attempt !== undefined) headers[ledgerHeaders.attempt] = String(names.attempt);
  return headers;
}

/** Request options of one call: the ledger's headers and a deadline. */
export function callOptions(names: LedgerNames, timeoutMs: number): RequestOptions {
  return { serviceParameters: ledgerHeadersOf(names), signal: AbortSignal.timeout(timeoutMs) };
}

/**
 * Fetches the card through the proxy, naming the correlation so the proxy records the fetch under it.
 * `workerUrl` is the worker's own base URL when known (to undo the proxy's rewrite).
 */
export async function fetchCard(
  proxyUrl: string,
  workerUrl: string | null,
  names: LedgerNames,
  timeoutMs: number,
): Promise<FetchedCard> {
  let response: Response;
  try {
    response = await fetch(`${proxyUrl}${cardPath}`, {
      headers: { accept: "application/json", "A2A-Version": "1.0", ...ledgerHeadersOf(names) },
      signal: AbortSignal.timeout(timeoutMs),
    });
  } catch (e) {
    throw new DispatchAlert(
      "DISPATCHER_CARD_UNAVAILABLE",
      `card of ${proxyUrl} could not be fetched: ${e instanceof Error ? e.message : String(e)}`,
      true,
    );
  }
  const text = await response.text();
  if (response.status !== 200)
    throw new DispatchAlert(
      "DISPATCHER_CARD_UNAVAILABLE",
      `card of ${proxyUrl} answered ${response.status}: ${text.slice(0, 200)}`,
      response.status >= 500 || response.status === 429,
    );
  let served: unknown;
  try {
    served = JSON.parse(text);
  } catch {
    throw new DispatchAlert("DISPATCHER_CARD_UNAVAILABLE", `card of ${proxyUrl} is not JSON`);
  }
  if (!isRecord(served))
    throw new DispatchAlert("DISPATCHER_CARD_UNAVAILABLE", `card of ${proxyUrl} is not a JSON object`);
  const outside = interfaceUrls(served).filter((url) => moved(url, proxyUrl, proxyUrl) === null);
  if (outside.length > 0)
    throw new DispatchAlert(
      "DISPATCHER_INTERFACE_OUTSIDE_PROXY",
      `the card served by ${proxyUrl} sends clients to ${outside.join(", ")}`,
    );
  const worker = workerUrl === null ? null : undoProxyRewrite(served, proxyUrl, workerUrl);
  return {
    served,
    worker,
    hash: worker === null ? null : cardHash(worker),
    cardUrl: `${workerUrl ?? proxyUrl}${cardPath}`,
    cacheMaxAgeSeconds: maxAgeOf(response.headers.get("cache-control")),
    etag: response.headers.get("etag"),
    fetchedAt: Date.now(),
  };
}

/** A new client (its own transport, no state shared with other clients) built from the served card. */
export function clientOf(card: FetchedCard, transport: PreferredTransport | null): Promise<Client> {
  const options = ClientFactoryOptions.createFrom(
    ClientFactoryOptions.default,
    transport === null ? {} : { preferredTransports: [transport] },
  );
  return new ClientFactory(options).createFromAgentCard(card.served as unknown as AgentCard);
}

/** A user message with one text part, carrying the ledger's names in its metadata. */
export function ledgerMessage(
  text: string,
  messageId: string,
  metadata: Record<string, string | number>,
  follow?: { taskId: string; contextId: string },
): Message {
  return {
    messageId,
    contextId: follow?.contextId ?? "",
    taskId: follow?.taskId ?? "",
    role: Role.ROLE_USER,
    parts: [{ content: { $case: "text", value: text }, metadata: undefined, filename: "", mediaType: "text/plain" }],
    metadata,
    extensions: [],
    referenceTaskIds: [],
  };
}
