/**
 * The bearer guard every HTTP service puts in front of its routes. It decides on the route the router
 * matched (fastify's `request.routeOptions.url`, the pattern as registered), never on the raw URL: a
 * path that the router decodes or normalizes onto a guarded route (`/%761/tasks`, `/v%31/tasks`) is the
 * guarded route. Public routes are named one by one, by their registered pattern; every other route
 * needs a configured token. A request that matches no route is left to the service's 404/405 answer,
 * which carries no data.
 */
import type { BearerTokens } from "./bearer-tokens.ts";

/** What the guard reads of a fastify request (structurally, so this package does not depend on fastify). */
export interface MatchedRequest {
  /** True when the router matched no route. */
  readonly is404: boolean;
  readonly routeOptions: { readonly url?: string | undefined };
  readonly headers: { readonly authorization?: string | undefined };
}

export interface RouteGuard {
  /** True when tokens are configured. */
  readonly required: boolean;
  /** Whether a registered route pattern is open to requests without a token. */
  isPublic(route: string): boolean;
  /**
   * True when the request must be refused (401): tokens are configured, it matched a route that is not
   * public, and its Authorization header carries no configured token.
   */
  refuses(request: MatchedRequest): boolean;
}

export interface RouteGuardOptions {
  tokens: BearerTokens;
  /** Registered route patterns anyone may call (`/healthz`, `/app.js`); compared whole, never as prefixes. */
  publicRoutes: Iterable<string>;
}

export function routeGuard(options: RouteGuardOptions): RouteGuard {
  const open = new Set(options.publicRoutes);
  const { tokens } = options;
  const isPublic = (route: string): boolean => open.has(route);
  return {
    required: tokens.required,
    isPublic,
    refuses(request) {
      if (!tokens.required || request.is404) return false;
      const route = request.routeOptions.url;
      // A matched request always has its pattern; without one it is refused rather than guessed at.
      if (route !== undefined && isPublic(route)) return false;
      return tokens.match(request.headers.authorization) === undefined;
    },
  };
}
