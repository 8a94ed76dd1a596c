/**
 * Proxy configuration from environment variables, validated: each bad value is one clear message, and
 * all of them are reported together. One proxy serves one worker. Its own settings are declared in
 * settings.ts.
 */
import { join, resolve } from "node:path";
import { type CardKeyEntry, cardKeysSetting } from "@a2a-ledger/card-signatures";
import { ConfigError, envReader } from "@a2a-ledger/env";
import { levelFromEnv, type LogLevel } from "@a2a-ledger/logging";
import { parseGrpcTarget, type GrpcTarget } from "./grpc/grpc-target.ts";
import type { FailMode } from "./observation-buffer.ts";
import { configDefaults, proxySettings } from "./settings.ts";

export { configDefaults };

export interface ProxyConfig {
  /** The worker this proxy stands in front of, as the ledger names it. */
  workerId: string;
  /** The worker's base URL (scheme, host, port, optional path prefix); requests keep their path under it. */
  upstreamUrl: string;
  host: string;
  port: number;
  /** The proxy's base URL as clients reach it; default http://host:port once listening. */
  publicUrl: string | null;
  /** Whether the card's worker URLs are rewritten to publicUrl. */
  rewriteCardUrls: boolean;
  /** Further URL prefixes that also mean the worker in its card (e.g. http://localhost:4001 for 127.0.0.1). */
  cardUrlAliases: string[];
  /** Where the gRPC relay listens (on `host`); null: no gRPC relay. 0: any free port. */
  grpcPort: number | null;
  /** The worker's gRPC endpoint; null: the one its card names. */
  grpcUpstream: GrpcTarget | null;
  /** The relay's `host:port` as clients reach it (the card's rewritten GRPC URL); default host:grpcPort once listening. */
  grpcPublicTarget: string | null;
  ingestUrl: string;
  /** Bearer token for the ingest API; never logged. */
  ingestToken: string | null;
  /** The observer name on every observation; default proxy:<workerId>. */
  observer: string;
  failMode: FailMode;
  bufferMax: number;
  /** The directory of the spool (observations waiting for the ledger) and of the correlation memory. */
  spoolDir: string;
  /** Bytes of waiting observations on disk before the fail mode applies (twice that is the hard bound when fail-closed). */
  spoolMaxBytes: number;
  batchMax: number;
  flushDelayMs: number;
  /** How long the worker may take to begin its answer (and, outside streams, to go silent) before the proxy answers 504. */
  upstreamTimeoutMs: number;
  maxBodyBytes: number;
  /** Largest non-streamed answer parsed for observations; larger ones are forwarded unrecorded. */
  maxRecordedBytes: number;
  correlationMemory: number;
  /** A task no request or answer named for this long leaves the correlation memory. */
  correlationMaxAgeMs: number;
  shutdownGraceMs: number;
  retryAfterSeconds: number;
  logLevel: LogLevel;
  /**
   * Which card the proxy serves at the well-known path: `advertised` (the worker's, as it sent it) or
   * `verified` (the projector's verified card of this worker, card-source.ts; the worker's when there is none).
   */
  cardMode: CardMode;
  /** The projector's base URL (A2A_LEDGER_PROXY_PROJECTOR_URL); required with A2A_LEDGER_PROXY_CARD=verified, else null. */
  projectorUrl: string | null;
  /** A read token of the projector's API (A2A_LEDGER_PROXY_PROJECTOR_TOKEN); never logged. */
  projectorToken: string | null;
  /** How long the projector may take to answer a verified-card request, whole, before the worker's card is served. */
  projectorTimeoutMs: number;
  /** Keys trusted to sign cards, per worker pattern (A2A_LEDGER_CARD_KEYS): the card served says what they found. */
  cardKeys: readonly CardKeyEntry[];
}

export type CardMode = "advertised" | "verified";

/** A worker id as one directory name: letters, digits, '_' and '-' kept, every other character as %XX. */
export function pathSegmentOf(workerId: string): string {
  return workerId.replace(/[^A-Za-z0-9_-]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, "0")}`);
}

/**
 * The default spool directory: `<A2A_LEDGER_DATA_DIR>/proxy/<workerId>` (`./.a2a-ledger` when unset), with
 * `.<A2A_LEDGER_TOPIC_SUFFIX>` appended when a suffix selects a side-by-side topic set.
 */
export function defaultSpoolDir(env: NodeJS.ProcessEnv, workerId: string): string {
  const dataDir = resolve(env.A2A_LEDGER_DATA_DIR?.trim() || ".a2a-ledger");
  const suffix = env.A2A_LEDGER_TOPIC_SUFFIX?.trim();
  return join(dataDir, "proxy", `${pathSegmentOf(workerId)}${suffix ? `.${pathSegmentOf(suffix)}` : ""}`);
}

/** The URL as a problem may quote it: a password it carries replaced by `***`. */
function withoutPassword(raw: string): string {
  try {
    const url = new URL(raw);
    if (url.password === "") return raw;
    url.password = "***";
    return url.href;
  } catch {
    return raw;
  }
}

/** An http(s) URL without a trailing slash, query or fragment; null when it is not one. */
export function baseUrl(raw: string): string | null {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return null;
  }
  if (
    (url.protocol !== "http:" && url.protocol !== "https:") ||
    url.search !== "" ||
    url.hash !== "" ||
    url.username !== "" ||
    url.password !== ""
  )
    return null;
  return `${url.protocol}//${url.host}${url.pathname.replace(/\/+$/, "")}`;
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): ProxyConfig {
  const reader = envReader(env, { renamed: { from: "PROXY_", to: "A2A_LEDGER_PROXY_" } });
  const { problems, text } = reader;
  const own = proxySettings.read(reader);
  const url = (name: string, raw: string | undefined): string | null => {
    if (raw === undefined || raw === "") return null;
    const b = baseUrl(raw);
    if (b === null)
      problems.push(
        `${name}=${JSON.stringify(withoutPassword(raw))} must be an http(s) URL without query, fragment or credentials`,
      );
    return b;
  };
  const grpcTarget = (name: string, raw: string | undefined): GrpcTarget | null => {
    if (raw === undefined) return null;
    const target = parseGrpcTarget(raw);
    if (target === null)
      problems.push(
        `${name}=${JSON.stringify(raw)} must be host:port (or http://, https://, grpc://, grpcs:// host:port)`,
      );
    return target;
  };

  const workerId = own.workerId;
  const publicUrl = url("A2A_LEDGER_PROXY_PUBLIC_URL", own.publicUrl);
  const cardUrlAliases = (own.cardUrlAliases ?? "")
    .split(",")
    .map((a) => a.trim())
    .filter((a) => a !== "")
    .map((a) => {
      const b = baseUrl(a);
      if (b === null)
        problems.push(`A2A_LEDGER_PROXY_CARD_URL_ALIASES entry ${JSON.stringify(a)} is not an http(s) base URL`);
      return b ?? "";
    });
  const grpcPort = own.grpcPort ?? null;
  const grpcUpstream = grpcTarget("A2A_LEDGER_PROXY_GRPC_UPSTREAM", own.grpcUpstream);
  const grpcPublicTarget = grpcTarget("A2A_LEDGER_PROXY_GRPC_PUBLIC_TARGET", own.grpcPublicTarget)?.target ?? null;
  if (grpcPort === null && (grpcUpstream !== null || grpcPublicTarget !== null))
    problems.push(
      "A2A_LEDGER_PROXY_GRPC_UPSTREAM and A2A_LEDGER_PROXY_GRPC_PUBLIC_TARGET need A2A_LEDGER_PROXY_GRPC_PORT (the gRPC relay is off without it)",
    );
  const cardMode = (own.cardMode?.toLowerCase() ?? configDefaults.cardMode) as CardMode;
  if (cardMode !== "advertised" && cardMode !== "verified")
    problems.push(`A2A_LEDGER_PROXY_CARD=${JSON.stringify(cardMode)} must be advertised or verified`);
  const projectorUrl = url("A2A_LEDGER_PROXY_PROJECTOR_URL", own.projectorUrl);
  if (cardMode === "verified" && own.projectorUrl === undefined)
    problems.push("A2A_LEDGER_PROXY_CARD=verified needs A2A_LEDGER_PROXY_PROJECTOR_URL (where the projector's API is)");
  const keys = cardKeysSetting(text("A2A_LEDGER_CARD_KEYS"));
  if (keys.problem !== undefined) problems.push(keys.problem);

  const config: ProxyConfig = {
    ...own,
    upstreamUrl: url("A2A_LEDGER_PROXY_UPSTREAM_URL", own.upstreamUrl) ?? "",
    publicUrl,
    cardUrlAliases,
    grpcPort,
    grpcUpstream,
    grpcPublicTarget,
    ingestUrl: url("A2A_LEDGER_PROXY_INGEST_URL", own.ingestUrl) ?? "",
    ingestToken: own.ingestToken ?? null,
    observer: own.observer ?? `proxy:${workerId}`,
    spoolDir: resolve(own.spoolDir ?? defaultSpoolDir(env, workerId === "" ? "_" : workerId)),
    logLevel: own.logLevel ?? levelFromEnv(env, configDefaults.logLevel),
    cardMode,
    projectorUrl,
    projectorToken: own.projectorToken ?? null,
    cardKeys: keys.entries,
  };
  if (problems.length > 0) throw new ConfigError("proxy", "PROXY_CONFIG_INVALID", problems);
  return config;
}
