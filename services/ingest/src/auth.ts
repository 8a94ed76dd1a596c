/**
 * Bearer-token check. Tokens are compared as SHA-256 digests with crypto.timingSafeEqual, so the
 * comparison takes the same time whatever the token's length or content; every configured token is
 * compared, so which one matched leaks nothing either. Tokens are never logged.
 */
import { createHash, timingSafeEqual } from "node:crypto";

const digest = (value: string): Buffer => createHash("sha256").update(value, "utf8").digest();

export interface TokenCheck {
  /** True when tokens are configured. */
  readonly required: boolean;
  /** True when the Authorization header carries a configured bearer token (or none is required). */
  allows(authorization: string | undefined): boolean;
}

export function tokenCheck(tokens: readonly string[]): TokenCheck {
  const digests = tokens.map(digest);
  return {
    required: digests.length > 0,
    allows(authorization) {
      if (digests.length === 0) return true;
      const match = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(authorization ?? "");
      const presented = digest(match?.[1] ?? "");
      let ok = false;
      for (const known of digests) ok = timingSafeEqual(known, presented) || ok;
      return ok && match !== null;
    },
  };
}
