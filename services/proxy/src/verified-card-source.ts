/**
 * Where the verified card comes from: the projector's `GET /v1/workers/:id/verified-card`, asked with
 * the proxy's read token. The answer is untrusted input: it is read only up to a size bound and a
 * deadline for the whole answer (connect to last byte), never followed through a redirect, and taken
 * only when it is a 200 JSON object naming this worker, a card hash, a `validFrom` and a card object.
 * Anything else is a reason the worker's own card is served instead (card-selection.ts), never an error
 * for the client.
 */
import http from "node:http";
import https from "node:https";

/** Why the worker's own card was served in verified mode; the value of the `A2A-Ledger-Card` header's `reason`. */
export type FallbackReason =
  /** The card carries A2A signatures: served exactly as the worker sent it. */
  | "signed"
  /** No connection, no complete answer within A2A_LEDGER_PROXY_PROJECTOR_TIMEOUT_MS, or a 5xx. */
  | "projector-unreachable"
  /** 401/403: the projector refused the read token. */
  | "projector-refused"
  /** 404 PROJECTOR_UNKNOWN_WORKER: the ledger has not seen this worker's card yet. */
  | "unknown-worker"
  /** 409 PROJECTOR_WORKER_NOT_VERIFIED: no probe verified the worker's card in force yet. */
  | "not-verified"
  /** The verified card is of another card than the one the worker serves now (the card changed; the ledger has not verified the new one). */
  | "card-changed"
  /** An answer that is not a verified card: another status, too large, not JSON, the wrong worker, a malformed card. */
  | "projector-bad-answer"
  /** The worker's card could not be read (not a JSON object, or in a content encoding the proxy does not read). */
  | "unreadable-card"
  /** A v0.3 card (served beside the v1.0 one): the ledger verifies the v1.0 card only. */
  | "v03-card";

export interface ProjectorVerifiedCard {
  workerId: string;
  cardHash: string;
  validFrom: string;
  card: Record<string, unknown>;
  /** The projector's Cache-Control, when it is one the proxy passes on (`max-age=N` or `no-cache`). */
  cacheControl: string | null;
}

export type VerifiedCardResult =
  | { ok: true; view: ProjectorVerifiedCard }
  | { ok: false; reason: FallbackReason; detail: string };

export interface VerifiedCardSourceOptions {
  projectorUrl: string;
  token: string | null;
  workerId: string;
  timeoutMs: number;
  /** Largest answer read; a larger one is a bad answer. */
  maxBytes: number;
}

export interface VerifiedCardSource {
  fetch(): Promise<VerifiedCardResult>;
  close(): void;
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
const fail = (reason: FallbackReason, detail: string): VerifiedCardResult => ({ ok: false, reason, detail });

/** The projector's error code in an error answer's body, if it has one. */
function errorCode(body: string): string | null {
  try {
    const parsed: unknown = JSON.parse(body);
    return isRecord(parsed) && typeof parsed["code"] === "string" ? parsed["code"] : null;
  } catch {
    return null;
  }
}

/** What a complete answer of the projector means. Pure. */
export function readProjectorAnswer(
  status: number,
  body: string,
  cacheControl: string | undefined,
  workerId: string,
): VerifiedCardResult {
  if (status === 404 && errorCode(body) === "PROJECTOR_UNKNOWN_WORKER")
    return fail("unknown-worker", "the projector knows no card of this worker");
  if (status === 409 && errorCode(body) === "PROJECTOR_WORKER_NOT_VERIFIED")
    return fail("not-verified", "no probe verified the worker's card in force");
  if (status === 401 || status === 403)
    return fail("projector-refused", `the projector answered ${status} (A2A_LEDGER_PROXY_PROJECTOR_TOKEN)`);
  if (status >= 500) return fail("projector-unreachable", `the projector answered ${status}`);
  if (status !== 200) return fail("projector-bad-answer", `the projector answered ${status}`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return fail("projector-bad-answer", "the projector's answer is not JSON");
  }
  if (!isRecord(parsed)) return fail("projector-bad-answer", "the projector's answer is not a JSON object");
  const { workerId: named, cardHash, validFrom, card } = parsed;
  if (named !== workerId) return fail("projector-bad-answer", "the projector's answer is of another worker");
  if (typeof cardHash !== "string" || !/^[0-9a-f]{64}$/.test(cardHash))
    return fail("projector-bad-answer", "the projector's answer has no card hash");
  if (typeof validFrom !== "string" || Number.isNaN(Date.parse(validFrom)))
    return fail("projector-bad-answer", "the projector's answer has no validFrom");
  if (!isRecord(card)) return fail("projector-bad-answer", "the projector's answer has no card object");
  const cache = cacheControl?.trim().toLowerCase();
  return {
    ok: true,
    view: {
      workerId,
      cardHash,
      validFrom,
      card,
      cacheControl: cache !== undefined && /^(max-age=\d{1,9}|no-cache)$/.test(cache) ? cache : null,
    },
  };
}

export function createVerifiedCardSource(options: VerifiedCardSourceOptions): VerifiedCardSource {
  const base = new URL(options.projectorUrl);
  const transport = base.protocol === "https:" ? https : http;
  const agent = new transport.Agent({ keepAlive: true, maxSockets: 16, timeout: 4_000 });
  const path = `${base.pathname.replace(/\/+$/, "")}/v1/workers/${encodeURIComponent(options.workerId)}/verified-card`;
  const headers: Record<string, string> = { accept: "application/json" };
  if (options.token !== null) headers["authorization"] = `Bearer ${options.token}`;

  function fetchOnce(): Promise<VerifiedCardResult> {
    return new Promise((resolve) => {
      let settled = false;
      const settle = (result: VerifiedCardResult) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolve(result);
      };
      const req = transport.request({
        protocol: base.protocol,
        hostname: base.hostname,
        port: base.port,
        method: "GET",
        path,
        headers,
        agent,
      });
      const timer = setTimeout(() => {
        settle(fail("projector-unreachable", `no complete answer within ${options.timeoutMs} ms`));
        req.destroy();
      }, options.timeoutMs);
      req.on("error", (err) => settle(fail("projector-unreachable", err.message)));
      req.on("response", (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on("data", (chunk: Buffer) => {
          size += chunk.length;
          if (size > options.maxBytes) {
            settle(fail("projector-bad-answer", `the projector's answer is larger than ${options.maxBytes} bytes`));
            req.destroy();
            return;
          }
          chunks.push(chunk);
        });
        res.on("error", (err) => settle(fail("projector-unreachable", err.message)));
        res.on("aborted", () => settle(fail("projector-unreachable", "the projector's answer was cut off")));
        res.on("end", () => {
          const encoding = res.headers["content-encoding"]?.trim().toLowerCase();
          if (encoding !== undefined && encoding !== "" && encoding !== "identity")
            return settle(
              fail(
                "projector-bad-answer",
                `the projector's answer is in content encoding ${JSON.stringify(encoding.slice(0, 40))}`,
              ),
            );
          const cacheControl = res.headers["cache-control"];
          settle(
            readProjectorAnswer(
              res.statusCode ?? 0,
              Buffer.concat(chunks, size).toString("utf8"),
              cacheControl,
              options.workerId,
            ),
          );
        });
      });
      req.end();
    });
  }

  return { fetch: fetchOnce, close: () => agent.destroy() };
}
