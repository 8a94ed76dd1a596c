/**
 * HTTP to the schema registry with a registry security: basic auth and a CA or client certificate
 * for https. Every call to the registry (the serde's client, the compatibility calls, readiness
 * checks) goes through these. A program passes the one its client configuration names
 * (`processClientConfig().registry` of @a2a-ledger/kafka: `basic.auth.user.info`,
 * `schema.registry.ssl.*`), so one configuration governs them all; these functions read no
 * configuration themselves. Credentials never appear in an error.
 */
import http from "node:http";
import https from "node:https";

/**
 * How to reach a registry: the shape of the `registry` part of @a2a-ledger/kafka's client
 * configuration, which fits here as it is. `password`, `key` and `passphrase` may be non-enumerable.
 */
export interface RegistrySecurity {
  basicAuth?: { username: string; password: string };
  tls?: { ca?: string; cert?: string; key?: string; passphrase?: string; rejectUnauthorized: boolean };
}

const agents = new WeakMap<RegistrySecurity, https.Agent>();

/** The https agent for a registry security (its CA and client certificate), shared per configuration. */
export function registryAgent(security: RegistrySecurity): https.Agent | undefined {
  const tls = security.tls;
  if (tls === undefined) return undefined;
  let agent = agents.get(security);
  if (agent === undefined) {
    agent = new https.Agent({
      keepAlive: true,
      rejectUnauthorized: tls.rejectUnauthorized,
      ...(tls.ca === undefined ? {} : { ca: tls.ca }),
      ...(tls.cert === undefined ? {} : { cert: tls.cert }),
      ...(tls.key === undefined ? {} : { key: tls.key }),
      ...(tls.passphrase === undefined ? {} : { passphrase: tls.passphrase }),
    });
    agents.set(security, agent);
  }
  return agent;
}

/** The Authorization header value for a registry security, if it has credentials. */
export function registryAuthorization(security: RegistrySecurity): string | undefined {
  const auth = security.basicAuth;
  return auth === undefined
    ? undefined
    : `Basic ${Buffer.from(`${auth.username}:${auth.password}`).toString("base64")}`;
}

export interface RegistryResponse {
  status: number;
  text: string;
}

export interface RegistryRequest {
  method?: string;
  body?: string;
  headers?: Record<string, string>;
  timeoutMs?: number;
}

export class RegistryUnreachableError extends Error {
  override name = "RegistryUnreachableError";
}

/** One request to the registry; rejects with RegistryUnreachableError when no answer comes. */
export function registryRequest(
  url: string,
  request: RegistryRequest,
  security: RegistrySecurity,
): Promise<RegistryResponse> {
  const target = new URL(url);
  const secure = target.protocol === "https:";
  const authorization = registryAuthorization(security);
  const timeoutMs = request.timeoutMs ?? 15_000;
  return new Promise((resolve, reject) => {
    const options: https.RequestOptions = {
      method: request.method ?? "GET",
      headers: {
        ...(request.headers ?? {}),
        ...(authorization === undefined ? {} : { authorization }),
        ...(request.body === undefined ? {} : { "content-length": String(Buffer.byteLength(request.body)) }),
      },
      timeout: timeoutMs,
      ...(secure ? { agent: registryAgent(security) } : {}),
    };
    const req = (secure ? https : http).request(target, options, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString("utf8") }));
      res.on("error", (e) =>
        reject(new RegistryUnreachableError(`the registry at ${target.origin} broke off its answer: ${e.message}`)),
      );
    });
    req.on("timeout", () => req.destroy(new Error(`no answer within ${timeoutMs} ms`)));
    req.on("error", (e: NodeJS.ErrnoException) =>
      reject(
        new RegistryUnreachableError(
          `the registry at ${target.origin} cannot be reached: ${e.code ?? ""}${e.code ? " " : ""}${e.message}`,
        ),
      ),
    );
    if (request.body !== undefined) req.write(request.body);
    req.end();
  });
}

/** Why a registry answer is a refusal of these credentials, or undefined. */
export function registryRefusal(status: number, origin: string): string | undefined {
  if (status === 401) return `the registry at ${origin} refused the credentials (401): check basic.auth.user.info`;
  if (status === 403) return `the registry at ${origin} denied access (403) to these credentials`;
  return undefined;
}
