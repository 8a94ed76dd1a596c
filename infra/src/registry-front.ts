/**
 * The registry's TLS front in the launcher's secured mode: an https server on loopback that checks
 * HTTP basic auth against the launcher's principals before it forwards the request, unchanged, to
 * the real Apicurio Registry (plain HTTP on loopback). Apicurio's own authentication needs an identity
 * server; this is what an operator's reverse proxy does in front of it.
 *
 *   node --import tsx infra/src/registry-front.ts <front.json>
 *
 * front.json: { port, upstreamPort, certFile, keyFile, passwordsFile }. Credentials are compared as
 * SHA-256 digests in constant time and never logged.
 */
import { createHash, timingSafeEqual } from "node:crypto";
import { readFileSync } from "node:fs";
import http from "node:http";
import https from "node:https";

export interface FrontConfig {
  port: number;
  upstreamPort: number;
  certFile: string;
  keyFile: string;
  /** JSON object of user name to password. */
  passwordsFile: string;
}

const digest = (text: string): Buffer => createHash("sha256").update(text, "utf8").digest();

/** Whether an Authorization header carries one of `users`' credentials. */
export function basicAuthAllows(users: Readonly<Record<string, string>>, authorization: string | undefined): boolean {
  const match = /^Basic[ \t]+([A-Za-z0-9+/=]+)[ \t]*$/i.exec(authorization ?? "");
  const presented = digest(match === null ? "" : Buffer.from(match[1] as string, "base64").toString("utf8"));
  let ok = false;
  for (const [user, password] of Object.entries(users))
    ok = timingSafeEqual(digest(`${user}:${password}`), presented) || ok;
  return ok && match !== null;
}

export function startFront(config: FrontConfig): https.Server {
  const users = JSON.parse(readFileSync(config.passwordsFile, "utf8")) as Record<string, string>;
  const server = https.createServer(
    { cert: readFileSync(config.certFile), key: readFileSync(config.keyFile) },
    (req, res) => {
      if (!basicAuthAllows(users, req.headers.authorization)) {
        res.writeHead(401, {
          "www-authenticate": 'Basic realm="a2a-ledger registry", charset="UTF-8"',
          "content-type": "application/json",
        });
        res.end(JSON.stringify({ error_code: 40101, message: "Unauthorized: basic auth credentials required" }));
        return;
      }
      const headers = { ...req.headers };
      delete headers.authorization;
      const upstream = http.request(
        { host: "127.0.0.1", port: config.upstreamPort, method: req.method, path: req.url, headers },
        (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
        },
      );
      upstream.on("error", () => {
        if (!res.headersSent) res.writeHead(502, { "content-type": "application/json" });
        res.end(JSON.stringify({ error_code: 50201, message: "the registry behind this front does not answer" }));
      });
      req.pipe(upstream);
    },
  );
  server.listen(config.port, "127.0.0.1");
  return server;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const file = process.argv[2];
  if (file === undefined) {
    console.error("usage: registry-front <front.json>");
    process.exit(2);
  }
  const server = startFront(JSON.parse(readFileSync(file, "utf8")) as FrontConfig);
  server.on("listening", () =>
    console.log(JSON.stringify({ msg: "registry front listening", address: server.address() })),
  );
  for (const signal of ["SIGTERM", "SIGINT"] as const) process.on(signal, () => server.close(() => process.exit(0)));
}
