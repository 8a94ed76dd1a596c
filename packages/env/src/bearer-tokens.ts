/**
 * Bearer tokens as every service checks them: compared as SHA-256 digests with
 * crypto.timingSafeEqual, every configured token compared each time, so neither the time taken nor
 * which token matched leaks anything. Tokens are never logged.
 */
import { createHash, timingSafeEqual } from "node:crypto";

export interface BearerTokens {
  /** True when tokens are configured. */
  readonly required: boolean;
  /** The position of the configured token the Authorization header carries, or undefined. */
  match(authorization: string | undefined): number | undefined;
}

const digest = (value: string): Buffer => createHash("sha256").update(value, "utf8").digest();

export function bearerTokens(tokens: readonly string[]): BearerTokens {
  const digests = tokens.map(digest);
  return {
    required: digests.length > 0,
    match(authorization) {
      const bearer = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(authorization ?? "");
      const presented = digest(bearer?.[1] ?? "");
      let found: number | undefined;
      digests.forEach((known, i) => {
        if (timingSafeEqual(known, presented) && found === undefined) found = i;
      });
      return bearer === null ? undefined : found;
    },
  };
}

/** Comma-separated tokens of a variable, each ≥ 16 characters without whitespace; problems never quote a token. */
export function tokenList(name: string, raw: string | undefined, problems: string[]): string[] {
  const tokens = (raw ?? "")
    .split(",")
    .map((t) => t.trim())
    .filter((t) => t !== "");
  if (tokens.some((t) => t.length < 16 || /\s/.test(t)))
    problems.push(
      `${name} must be a comma-separated list of tokens of at least 16 characters without whitespace (value not shown)`,
    );
  return tokens;
}
