/**
 * Bearer tokens, each bound to the observer names it may write. The tokens are checked the way every
 * service checks them (@a2a-ledger/env bearerTokens: constant time, never logged).
 */
import { bearerTokens } from "@a2a-ledger/env";

/** A configured token and the observer patterns it may claim (`*` any run of characters). */
export interface IngestToken {
  token: string;
  /** `["*"]` for a token configured without patterns. */
  observers: readonly string[];
}

/** What a presented token may do. */
export interface ObserverGrant {
  /** The patterns, for messages (never the token). */
  readonly observers: readonly string[];
  mayClaim(observer: string): boolean;
}

export interface TokenCheck {
  /** True when tokens are configured. */
  readonly required: boolean;
  /** The grant of the Authorization header's bearer token; undefined when it carries no configured token. */
  grant(authorization: string | undefined): ObserverGrant | undefined;
  /** True when the Authorization header carries a configured bearer token (or none is required). */
  allows(authorization: string | undefined): boolean;
}

/** An observer pattern as a matcher: `*` is any run of characters, everything else literal. */
export function observerMatcher(pattern: string): (observer: string) => boolean {
  if (pattern === "*") return () => true;
  const regex = new RegExp(`^${pattern.split("*").map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")).join(".*")}$`, "s");
  return (observer) => regex.test(observer);
}

export const anyObserver: ObserverGrant = { observers: ["*"], mayClaim: () => true };

export function tokenCheck(tokens: readonly (IngestToken | string)[]): TokenCheck {
  const entries = tokens.map((t) => (typeof t === "string" ? { token: t, observers: ["*"] } : t));
  const bearer = bearerTokens(entries.map((e) => e.token));
  const grants: ObserverGrant[] = entries.map((e) => {
    const matchers = e.observers.map(observerMatcher);
    return { observers: e.observers, mayClaim: (observer) => matchers.some((m) => m(observer)) };
  });
  const check: TokenCheck = {
    required: bearer.required,
    grant(authorization) {
      if (!bearer.required) return anyObserver;
      const found = bearer.match(authorization);
      return found === undefined ? undefined : grants[found];
    },
    allows: (authorization) => check.grant(authorization) !== undefined,
  };
  return check;
}

/**
 * Token entries of A2A_LEDGER_INGEST_TOKENS (comma-separated) or of a tokens file (one a line, `#` comments):
 * `TOKEN` (may claim any observer, as tokens always could) or `TOKEN=PATTERN[|PATTERN…]`.
 * Problems name the entry by position, never by its token.
 */
export function parseTokenEntries(entries: readonly string[], where: string, problems: string[]): IngestToken[] {
  const tokens: IngestToken[] = [];
  entries.forEach((entry, i) => {
    const at = entry.indexOf("=");
    const token = (at < 0 ? entry : entry.slice(0, at)).trim();
    const patterns = at < 0 ? ["*"] : entry.slice(at + 1).split("|").map((p) => p.trim());
    if (token.length < 16 || /\s/.test(token)) problems.push(`${where} entry ${i + 1}: a token must be at least 16 characters without whitespace (value not shown)`);
    else if (patterns.some((p) => p === "" || p.length > 256 || /[\s,=]/.test(p))) problems.push(`${where} entry ${i + 1}: observer patterns are non-empty, without whitespace, ',' or '=', separated by '|' (e.g. TOKEN=proxy:*|dispatcher)`);
    else tokens.push({ token, observers: patterns });
  });
  if (new Set(tokens.map((t) => t.token)).size !== tokens.length) problems.push(`${where}: a token is listed twice (value not shown)`);
  return tokens;
}
