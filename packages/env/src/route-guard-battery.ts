/**
 * The one table of request variants that must not side-step a service's bearer guard, and a raw HTTP
 * request that sends a path byte for byte (fetch and URL normalize `..`, `//` and percent-encoding
 * before sending; an attacker's client does not). Every HTTP service with tokens runs the table
 * against a real server: each variant of a guarded route is refused (401, or 404/405 when it names
 * no route) unless it names a public route.
 */
import { request as httpRequest } from "node:http";

export interface PathVariant {
  /** What the variant tries, for test names. */
  readonly label: string;
  readonly method: string;
  readonly path: string;
}

const hex = (c: string, lower: boolean): string => {
  const h = c.charCodeAt(0).toString(16).padStart(2, "0");
  return `%${lower ? h : h.toUpperCase()}`;
};

/** Encodes the character at `at` of segment `index` of a path like `/a/b`. */
function encodeAt(path: string, index: number, at: number, lower: boolean): string {
  const segments = path.split("/");
  const segment = segments[index] ?? "";
  segments[index] = `${segment.slice(0, at)}${hex(segment.charAt(at), lower)}${segment.slice(at + 1)}`;
  return segments.join("/");
}

const mixedCase = (path: string): string =>
  path.replace(/[a-z]/g, (c, i: number) => (i % 2 === 0 ? c.toUpperCase() : c));

/**
 * The variants of `path` (a guarded route, e.g. `/v1/tasks`) sent with `method`: percent-encoded
 * characters (upper- and lower-case hex, each segment's first and last character, every character),
 * mixed case, double slashes, trailing slashes, `.` and `..` segments (plain and encoded), a `;`
 * parameter and an encoded slash; and the path itself with HEAD and OPTIONS.
 */
export function pathVariants(path: string, method = "GET"): PathVariant[] {
  const segments = path.split("/");
  const variants: PathVariant[] = [{ label: "as registered", method, path }];
  const add = (label: string, p: string, m = method) => {
    if (!variants.some((v) => v.path === p && v.method === m)) variants.push({ label, method: m, path: p });
  };
  segments.forEach((segment, index) => {
    if (segment === "" || segment.startsWith(":")) return;
    add(`segment ${index}: first character percent-encoded`, encodeAt(path, index, 0, false));
    add(`segment ${index}: first character percent-encoded, lower-case hex`, encodeAt(path, index, 0, true));
    add(`segment ${index}: last character percent-encoded`, encodeAt(path, index, segment.length - 1, true));
  });
  add(
    "every character percent-encoded",
    path
      .split("/")
      .map((s) => [...s].map((c) => hex(c, true)).join(""))
      .join("/"),
  );
  if (path.lastIndexOf("/") > 0) add("encoded slash", path.replace(/\/(?=[^/]*$)/, "%2F"));
  add("upper case", path.toUpperCase());
  add("mixed case", mixedCase(path));
  add("leading double slash", `/${path}`);
  add("double slash inside", path.replace(/\/(?=[^/]*$)/, "//"));
  add("trailing slash", `${path}/`);
  add("trailing double slash", `${path}//`);
  add("dot segment", `/.${path}`);
  add("dot-dot segment", `/x/..${path}`);
  add("dot-dot segment inside", `${path.replace(/\/(?=[^/]*$)/, "/x/../")}`);
  add("encoded dot-dot segment", `/x/%2e%2e${path}`);
  add("trailing dot segment", `${path}/.`);
  add("semicolon parameter", `${path};a=b`);
  add("semicolon parameter on the first segment", path.replace(/^(\/[^/]+)/, "$1;a=b"));
  add("query string", `${path}?x=1`);
  add("first character encoded, with a query string", `${encodeAt(path, 1, 0, false)}?x=1`);
  add("HEAD", path, "HEAD");
  add("HEAD, first character encoded", encodeAt(path, 1, 0, false), "HEAD");
  add("OPTIONS", path, "OPTIONS");
  add("OPTIONS, first character encoded", encodeAt(path, 1, 0, false), "OPTIONS");
  return variants;
}

export interface RawAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  /** Up to 64 KiB of the body; a streaming answer is cut off after its first bytes. */
  body: string;
}

/** One request to 127.0.0.1:`port` with `path` sent exactly as given; bounded by `timeoutMs`. */
export function rawRequest(
  port: number,
  method: string,
  path: string,
  headers: Record<string, string> = {},
  body?: string,
  timeoutMs = 5_000,
): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: "127.0.0.1",
        port,
        method,
        path,
        headers: { connection: "close", ...headers },
        timeout: timeoutMs,
        insecureHTTPParser: false,
      },
      (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        const done = () => {
          res.destroy();
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString("utf8") });
        };
        // An event stream never ends: its status and first bytes are the answer.
        const streaming = String(res.headers["content-type"] ?? "").startsWith("text/event-stream");
        res.on("data", (chunk: Buffer) => {
          chunks.push(chunk);
          size += chunk.length;
          if (streaming || size >= 64 * 1024) done();
        });
        res.on("end", done);
        res.on("error", done);
        if (streaming) setTimeout(done, 200).unref();
      },
    );
    req.on("timeout", () => req.destroy(new Error(`${method} ${path}: no answer within ${timeoutMs} ms`)));
    req.on("error", reject);
    req.end(body);
  });
}

/** Statuses that refuse a request without serving it: 400 (a path the server cannot read), 401, 404 and 405. */
export const refusedStatuses: readonly number[] = [400, 401, 404, 405];

export interface GuardedTarget {
  /** A concrete path of a guarded route (`/v1/tasks/x`, not `/v1/tasks/:id`). */
  path: string;
  method?: string;
  /** Sent with every variant (e.g. a JSON body for a POST route). */
  body?: string;
  headers?: Record<string, string>;
}

export interface GuardBatteryOptions {
  /** A configured token: each variant is sent with it first, to learn whether the variant reaches a route. */
  token: string;
  /** The service's codes for "no such route" and "method not allowed", which mean a variant reached no route. */
  unmatchedCodes: readonly string[];
}

export interface GuardBatteryResult {
  /** One line per variant that was not refused without a token. */
  failures: string[];
  /** How many variants reached a route when they carried the token (the ones a raw-URL check could miss). */
  reachedWithToken: number;
  sent: number;
}

function codeOf(body: string): string | undefined {
  try {
    const parsed = JSON.parse(body) as { code?: unknown };
    return typeof parsed.code === "string" ? parsed.code : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Sends every variant of every target twice, with the token and without one. A variant that reached a
 * route with the token must be 401 without it; one that reached none must still be refused
 * (`refusedStatuses`), never served.
 */
export async function runGuardBattery(
  port: number,
  targets: readonly GuardedTarget[],
  options: GuardBatteryOptions,
): Promise<GuardBatteryResult> {
  const result: GuardBatteryResult = { failures: [], reachedWithToken: 0, sent: 0 };
  for (const target of targets) {
    for (const variant of pathVariants(target.path, target.method ?? "GET")) {
      const body =
        variant.method === "HEAD" || variant.method === "OPTIONS" || variant.method === "GET" ? undefined : target.body;
      const headers = { ...(body === undefined ? {} : (target.headers ?? {})) };
      // No answer in time (a stream that never starts its headers) counts as status 0: not refused.
      const send = (h: Record<string, string>) =>
        rawRequest(port, variant.method, variant.path, h, body, 3_000).catch(
          (): RawAnswer => ({ status: 0, headers: {}, body: "" }),
        );
      const authorized = await send({ ...headers, authorization: `Bearer ${options.token}` });
      const anonymous = await send(headers);
      result.sent += 2;
      const code = codeOf(authorized.body);
      const reached = !(
        refusedStatuses.includes(authorized.status) &&
        (code === undefined ? authorized.status !== 400 : options.unmatchedCodes.includes(code))
      );
      if (reached) result.reachedWithToken += 1;
      const what = `${variant.method} ${variant.path} (${variant.label}, of ${target.path})`;
      if (reached && anonymous.status !== 401)
        result.failures.push(
          `${what}: reaches a route with the token (${authorized.status}) but answers ${anonymous.status} without one`,
        );
      else if (!refusedStatuses.includes(anonymous.status))
        result.failures.push(`${what}: answers ${anonymous.status} without a token`);
    }
  }
  return result;
}
