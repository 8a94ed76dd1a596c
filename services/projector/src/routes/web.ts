/** The page: index.html at `/`, and every script module and stylesheet of web/ under its own name. */
import { readdirSync, readFileSync } from "node:fs";
import { extname } from "node:path";
import type { FastifyPluginAsync } from "fastify";
import { queryParams } from "../query-params.ts";

const webDir = new URL("../web/", import.meta.url);
const webTypes: Readonly<Record<string, string>> = {
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
};

/** The page's files by path, read once (every one a public route: the page asks for a token itself). */
export function webAssets(): Map<string, { type: string; body: Buffer }> {
  const files: [string, string][] = [
    ["/", "index.html"],
    ...readdirSync(webDir).flatMap((file): [string, string][] =>
      webTypes[extname(file)] === undefined ? [] : [[`/${file}`, file]],
    ),
  ];
  return new Map(
    files.map(([path, file]) => [
      path,
      { type: webTypes[extname(file)] ?? "text/html; charset=utf-8", body: readFileSync(new URL(file, webDir)) },
    ]),
  );
}

const contentSecurityPolicy =
  "default-src 'self'; connect-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; frame-ancestors 'none'";

export const webRoutes: FastifyPluginAsync<{ assets: ReadonlyMap<string, { type: string; body: Buffer }> }> = async (
  app,
  { assets },
) => {
  for (const [path, asset] of assets)
    app.get(path, async (request, reply) => {
      queryParams(request.query, {});
      return reply
        .type(asset.type)
        .header("content-security-policy", contentSecurityPolicy)
        .header("cache-control", "no-cache")
        .send(asset.body);
    });
};
