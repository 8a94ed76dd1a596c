/**
 * Rewrites the worker's own URLs in an Agent Card to the proxy's, so that clients that read the card
 * keep talking through the proxy. Only interface URLs are touched — v1.0 `supportedInterfaces[].url`,
 * and v0.3 `url` and `additionalInterfaces[].url` — and only those under the worker's base URL (or a
 * configured alias of it). Everything else in the card stays byte for byte as the worker sent it: the
 * replacement is made in the text, on exactly those `"url": "…"` members.
 */

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

function interfaceUrls(card: Record<string, unknown>): string[] {
  const urls: string[] = [];
  for (const key of ["supportedInterfaces", "additionalInterfaces"]) {
    const list = card[key];
    if (Array.isArray(list))
      for (const entry of list) if (isRecord(entry) && typeof entry["url"] === "string") urls.push(entry["url"]);
  }
  if (typeof card["url"] === "string") urls.push(card["url"]);
  return urls;
}

/** The URL moved from under `from` to under `to`, or null when it is not under `from`. */
function moved(url: string, from: string, to: string): string | null {
  if (!url.startsWith(from)) return null;
  const rest = url.slice(from.length);
  return rest === "" || rest.startsWith("/") || rest.startsWith("?") ? `${to}${rest}` : null;
}

const escapeRegExp = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/**
 * The card text with the worker's interface URLs under any of `workerPrefixes` moved under `publicUrl`;
 * the text unchanged when the card is not a JSON object or names no such URL.
 */
export function rewriteCardUrls(cardText: string, workerPrefixes: readonly string[], publicUrl: string): string {
  let card: unknown;
  try {
    card = JSON.parse(cardText);
  } catch {
    return cardText;
  }
  if (!isRecord(card)) return cardText;
  const replacements = new Map<string, string>();
  for (const url of interfaceUrls(card)) {
    for (const prefix of workerPrefixes) {
      const to = moved(url, prefix, publicUrl);
      if (to !== null) {
        replacements.set(url, to);
        break;
      }
    }
  }
  let text = cardText;
  for (const [from, to] of replacements) {
    const member = new RegExp(`("url"\\s*:\\s*)${escapeRegExp(JSON.stringify(from))}`, "g");
    text = text.replace(member, (_m, key: string) => `${key}${JSON.stringify(to)}`);
  }
  return text;
}
