/**
 * Hop-by-hop headers (RFC 9110 §7.6.1) are a connection's, not a message's: the proxy neither forwards
 * them nor the headers a Connection header names. Everything else passes unchanged, in its order and
 * spelling.
 */

const hopByHop = new Set([
  "connection",
  "keep-alive",
  "proxy-connection",
  "proxy-authenticate",
  "proxy-authorization",
  "te",
  "trailer",
  "transfer-encoding",
  "upgrade",
]);

/** `rawHeaders` (name, value, name, value, …) without hop-by-hop headers; names in `drop` (lower-case) go too. */
export function endToEndHeaders(rawHeaders: readonly string[], drop: readonly string[] = []): string[] {
  const named = new Set<string>(drop);
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
    if ((rawHeaders[i] as string).toLowerCase() === "connection") {
      for (const token of (rawHeaders[i + 1] as string).split(",")) named.add(token.trim().toLowerCase());
    }
  }
  const out: string[] = [];
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
    const name = (rawHeaders[i] as string).toLowerCase();
    if (hopByHop.has(name) || named.has(name)) continue;
    out.push(rawHeaders[i] as string, rawHeaders[i + 1] as string);
  }
  return out;
}

/** The first value of a header in a raw header list, by lower-case name. */
export function rawHeader(rawHeaders: readonly string[], name: string): string | undefined {
  for (let i = 0; i + 1 < rawHeaders.length; i += 2)
    if ((rawHeaders[i] as string).toLowerCase() === name) return rawHeaders[i + 1];
  return undefined;
}
