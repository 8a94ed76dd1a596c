/**
 * Proxy configuration from environment variables, validated: each bad value is one clear message, and
 * all of them are reported together. One proxy serves one worker.
 */
import { join, resolve } from "node:path";
import { type CardKeyEntry, cardKeysSetting } from "@a2a-ledger/card-signatures";
import { envReader } from "@a2a-ledger/env";
import { isLogLevel, levelFromEnv, logLevels, type LogLevel } from "@a2a-ledger/logging";
import { parseGrpcTarget, type GrpcTarget } from "./grpc/grpc-target.ts";
import type { FailMode } from "./observation-buffer.ts";

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

export class ProxyConfigError extends Error {
  override name = "ProxyConfigError";
  constructor(readonly problems: string[]) {
    super(`Invalid proxy configuration:\n${problems.map((p) => `  - ${p}`).join("\n")}`);
  }
}

export const configDefaults = {
  host: "127.0.0.1",
  port: 18100,
  ingestUrl: "http://127.0.0.1:18090",
  failMode: "closed",
  bufferMax: 10_000,
  spoolMaxBytes: 128 * 1024 * 1024,
  batchMax: 500,
  flushDelayMs: 50,
  upstreamTimeoutMs: 60_000,
  maxBodyBytes: 16 * 1024 * 1024,
  maxRecordedBytes: 8 * 1024 * 1024,
  correlationMemory: 100_000,
  correlationMaxAgeMs: 30 * 24 * 3_600_000,
  shutdownGraceMs: 10_000,
  retryAfterSeconds: 5,
  logLevel: "info",
  cardMode: "advertised",
  projectorTimeoutMs: 2_000,
  cardKeys: [],
} as const;

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
  const { problems, text, int } = reader;
  const url = (name: string, fallback?: string): string => {
    const raw = text(name) ?? fallback;
    if (raw === undefined) {
      problems.push(`${name} is required`);
      return "";
    }
    const b = baseUrl(raw);
    if (b === null)
      problems.push(`${name}=${JSON.stringify(raw)} must be an http(s) URL without query, fragment or credentials`);
    return b ?? "";
  };
  const bool = (name: string): boolean => {
    const raw = text(name)?.toLowerCase();
    if (raw === undefined || raw === "false" || raw === "0" || raw === "no") return false;
    if (raw === "true" || raw === "1" || raw === "yes") return true;
    problems.push(`${name}=${JSON.stringify(raw)} must be true or false`);
    return false;
  };

  const workerId = text("A2A_LEDGER_PROXY_WORKER_ID") ?? "";
  if (!/^[\x21-\x7e]{1,200}$/.test(workerId))
    problems.push(
      workerId === ""
        ? "A2A_LEDGER_PROXY_WORKER_ID is required"
        : `A2A_LEDGER_PROXY_WORKER_ID=${JSON.stringify(workerId)} must be 1–200 visible ASCII characters`,
    );
  const host = text("A2A_LEDGER_PROXY_HOST") ?? configDefaults.host;
  if (!/^[A-Za-z0-9.:\-[\]]+$/.test(host))
    problems.push(`A2A_LEDGER_PROXY_HOST=${JSON.stringify(host)} is not a host name or IP address`);
  const publicRaw = text("A2A_LEDGER_PROXY_PUBLIC_URL");
  const publicUrl = publicRaw === undefined ? null : url("A2A_LEDGER_PROXY_PUBLIC_URL");
  const aliases = (text("A2A_LEDGER_PROXY_CARD_URL_ALIASES") ?? "")
    .split(",")
    .map((a) => a.trim())
    .filter((a) => a !== "");
  const cardUrlAliases = aliases.map((a) => {
    const b = baseUrl(a);
    if (b === null)
      problems.push(`A2A_LEDGER_PROXY_CARD_URL_ALIASES entry ${JSON.stringify(a)} is not an http(s) base URL`);
    return b ?? "";
  });
  const grpcPort =
    text("A2A_LEDGER_PROXY_GRPC_PORT") === undefined ? null : int("A2A_LEDGER_PROXY_GRPC_PORT", 0, 0, 65535);
  const grpcTarget = (name: string): GrpcTarget | null => {
    const raw = text(name);
    if (raw === undefined) return null;
    const target = parseGrpcTarget(raw);
    if (target === null)
      problems.push(
        `${name}=${JSON.stringify(raw)} must be host:port (or http://, https://, grpc://, grpcs:// host:port)`,
      );
    return target;
  };
  const grpcUpstream = grpcTarget("A2A_LEDGER_PROXY_GRPC_UPSTREAM");
  const grpcPublicTarget = grpcTarget("A2A_LEDGER_PROXY_GRPC_PUBLIC_TARGET")?.target ?? null;
  if (grpcPort === null && (grpcUpstream !== null || grpcPublicTarget !== null))
    problems.push(
      "A2A_LEDGER_PROXY_GRPC_UPSTREAM and A2A_LEDGER_PROXY_GRPC_PUBLIC_TARGET need A2A_LEDGER_PROXY_GRPC_PORT (the gRPC relay is off without it)",
    );
  const ingestToken = text("A2A_LEDGER_PROXY_INGEST_TOKEN") ?? null;
  if (ingestToken !== null && /\s/.test(ingestToken))
    problems.push("A2A_LEDGER_PROXY_INGEST_TOKEN must not contain whitespace (value not shown)");
  const failMode = (text("A2A_LEDGER_PROXY_FAIL_MODE") ?? configDefaults.failMode) as FailMode;
  if (failMode !== "closed" && failMode !== "open")
    problems.push(`A2A_LEDGER_PROXY_FAIL_MODE=${JSON.stringify(failMode)} must be closed or open`);
  const logLevelRaw = text("A2A_LEDGER_PROXY_LOG_LEVEL") ?? levelFromEnv(env, configDefaults.logLevel);
  if (!isLogLevel(logLevelRaw))
    problems.push(`A2A_LEDGER_PROXY_LOG_LEVEL=${JSON.stringify(logLevelRaw)} must be one of ${logLevels.join(", ")}`);
  const logLevel: LogLevel = isLogLevel(logLevelRaw) ? logLevelRaw : configDefaults.logLevel;
  const cardMode = (text("A2A_LEDGER_PROXY_CARD")?.toLowerCase() ?? configDefaults.cardMode) as CardMode;
  if (cardMode !== "advertised" && cardMode !== "verified")
    problems.push(`A2A_LEDGER_PROXY_CARD=${JSON.stringify(cardMode)} must be advertised or verified`);
  const projectorUrl =
    text("A2A_LEDGER_PROXY_PROJECTOR_URL") === undefined ? null : url("A2A_LEDGER_PROXY_PROJECTOR_URL");
  if (cardMode === "verified" && projectorUrl === null)
    problems.push("A2A_LEDGER_PROXY_CARD=verified needs A2A_LEDGER_PROXY_PROJECTOR_URL (where the projector's API is)");
  const keys = cardKeysSetting(text("A2A_LEDGER_CARD_KEYS"));
  if (keys.problem !== undefined) problems.push(keys.problem);
  const projectorToken = text("A2A_LEDGER_PROXY_PROJECTOR_TOKEN") ?? null;
  if (projectorToken !== null && /\s/.test(projectorToken))
    problems.push("A2A_LEDGER_PROXY_PROJECTOR_TOKEN must not contain whitespace (value not shown)");

  const config: ProxyConfig = {
    workerId,
    upstreamUrl: url("A2A_LEDGER_PROXY_UPSTREAM_URL"),
    host,
    port: int("A2A_LEDGER_PROXY_PORT", configDefaults.port, 0, 65535),
    publicUrl,
    rewriteCardUrls: bool("A2A_LEDGER_PROXY_REWRITE_CARD_URLS"),
    cardUrlAliases,
    grpcPort,
    grpcUpstream,
    grpcPublicTarget,
    ingestUrl: url("A2A_LEDGER_PROXY_INGEST_URL", configDefaults.ingestUrl),
    ingestToken,
    observer: text("A2A_LEDGER_PROXY_OBSERVER") ?? `proxy:${workerId}`,
    failMode,
    bufferMax: int("A2A_LEDGER_PROXY_BUFFER_MAX", configDefaults.bufferMax, 1, 10_000_000),
    spoolDir: resolve(text("A2A_LEDGER_PROXY_SPOOL_DIR") ?? defaultSpoolDir(env, workerId === "" ? "_" : workerId)),
    spoolMaxBytes: int(
      "A2A_LEDGER_PROXY_SPOOL_MAX_BYTES",
      configDefaults.spoolMaxBytes,
      64 * 1024,
      1024 * 1024 * 1024 * 1024,
    ),
    batchMax: int("A2A_LEDGER_PROXY_BATCH_MAX", configDefaults.batchMax, 1, 5_000),
    flushDelayMs: int("A2A_LEDGER_PROXY_FLUSH_DELAY_MS", configDefaults.flushDelayMs, 0, 60_000),
    upstreamTimeoutMs: int("A2A_LEDGER_PROXY_UPSTREAM_TIMEOUT_MS", configDefaults.upstreamTimeoutMs, 100, 3_600_000),
    maxBodyBytes: int("A2A_LEDGER_PROXY_MAX_BODY_BYTES", configDefaults.maxBodyBytes, 1024, 1024 * 1024 * 1024),
    maxRecordedBytes: int(
      "A2A_LEDGER_PROXY_MAX_RECORDED_BYTES",
      configDefaults.maxRecordedBytes,
      1024,
      1024 * 1024 * 1024,
    ),
    correlationMemory: int("A2A_LEDGER_PROXY_CORRELATION_MEMORY", configDefaults.correlationMemory, 1, 100_000_000),
    correlationMaxAgeMs: int(
      "A2A_LEDGER_PROXY_CORRELATION_MAX_AGE_MS",
      configDefaults.correlationMaxAgeMs,
      1_000,
      3_650 * 24 * 3_600_000,
    ),
    shutdownGraceMs: int("A2A_LEDGER_PROXY_SHUTDOWN_GRACE_MS", configDefaults.shutdownGraceMs, 0, 600_000),
    retryAfterSeconds: int("A2A_LEDGER_PROXY_RETRY_AFTER_SECONDS", configDefaults.retryAfterSeconds, 1, 3600),
    logLevel,
    cardMode,
    projectorUrl,
    projectorToken,
    projectorTimeoutMs: int("A2A_LEDGER_PROXY_PROJECTOR_TIMEOUT_MS", configDefaults.projectorTimeoutMs, 50, 60_000),
    cardKeys: keys.entries,
  };
  if (problems.length > 0) throw new ProxyConfigError(problems);
  return config;
}
