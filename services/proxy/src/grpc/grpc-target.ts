/**
 * Where a gRPC server is: the `url` of a card's GRPC interface, or the proxy's configuration. A2A cards
 * name gRPC endpoints as `host:port` (what gRPC clients dial; both SDKs write and read that form); the
 * forms `http://host:port` and `grpc://host:port` (cleartext HTTP/2) and `https://` / `grpcs://` (TLS)
 * are read too. Pure.
 */

export interface GrpcTarget {
  /** `host:port`, as gRPC clients dial it and cards name it. */
  target: string;
  /** The origin HTTP/2 connects to: `http://host:port` or `https://host:port`. */
  origin: string;
}

const hostPattern = /^(?:\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9](?:[A-Za-z0-9.-]{0,252}))$/;

/** A gRPC target from its text, or null when it is not `host:port` (optionally with one of the schemes above). */
export function parseGrpcTarget(raw: string): GrpcTarget | null {
  const text = raw.trim();
  const scheme = /^([a-z]+):\/\//.exec(text);
  let tls = false;
  let rest = text;
  if (scheme !== null) {
    const name = scheme[1];
    if (name === "https" || name === "grpcs") tls = true;
    else if (name !== "http" && name !== "grpc") return null;
    rest = text.slice(scheme[0].length).replace(/\/$/, "");
  }
  const m = /^(.*):(\d{1,5})$/.exec(rest);
  if (m === null) return null;
  const host = m[1] as string;
  const port = Number(m[2]);
  if (!hostPattern.test(host) || port < 1 || port > 65535) return null;
  const target = `${host}:${port}`;
  return { target, origin: `${tls ? "https" : "http"}://${target}` };
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** The card's gRPC interfaces: v1.0 `supportedInterfaces[]` with `protocolBinding` GRPC, v0.3 ones with `transport` GRPC. */
export function grpcInterfaces(card: unknown): { url: string; protocolVersion: string | null }[] {
  if (!isRecord(card)) return [];
  const out: { url: string; protocolVersion: string | null }[] = [];
  for (const key of ["supportedInterfaces", "additionalInterfaces"]) {
    const list = card[key];
    if (!Array.isArray(list)) continue;
    for (const entry of list) {
      if (!isRecord(entry) || typeof entry["url"] !== "string") continue;
      const binding = entry["protocolBinding"] ?? entry["transport"];
      if (typeof binding === "string" && binding.toUpperCase() === "GRPC")
        out.push({
          url: entry["url"],
          protocolVersion: typeof entry["protocolVersion"] === "string" ? entry["protocolVersion"] : null,
        });
    }
  }
  return out;
}

/** The v1.0 gRPC endpoint a card names (its first GRPC interface of protocol version 1.x, else its first GRPC interface), or null. */
export function grpcTargetOfCard(card: unknown): GrpcTarget | null {
  const interfaces = grpcInterfaces(card);
  const v1 =
    interfaces.find((i) => i.protocolVersion !== null && /^1(\.\d+)?$/.test(i.protocolVersion)) ?? interfaces[0];
  return v1 === undefined ? null : parseGrpcTarget(v1.url);
}

const escapeRegExp = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/**
 * The card text with every GRPC interface URL that names `worker` replaced by `proxyTarget` (written as
 * `host:port`); every other byte as it was. The replacement is made in the text, on exactly those
 * `"url": "…"` members, as card-rewrite.ts does for the HTTP interfaces.
 */
export function rewriteGrpcCardUrls(cardText: string, worker: GrpcTarget, proxyTarget: string): string {
  let card: unknown;
  try {
    card = JSON.parse(cardText);
  } catch {
    return cardText;
  }
  const urls = new Set(
    grpcInterfaces(card)
      .map((i) => i.url)
      .filter((url) => parseGrpcTarget(url)?.target === worker.target),
  );
  let text = cardText;
  for (const url of urls) {
    const member = new RegExp(`("url"\\s*:\\s*)${escapeRegExp(JSON.stringify(url))}`, "g");
    text = text.replace(member, (_m, key: string) => `${key}${JSON.stringify(proxyTarget)}`);
  }
  return text;
}
