/**
 * The per-caller rate limit of the HTTP services (ingest, the projector): at most `max` requests per
 * `windowMs` for each caller, counted by @fastify/rate-limit (its in-memory store, a fixed window per caller). The caller is the position of
 * the bearer token presented (`token:0`, `token:1`, …), or the client address when no tokens are
 * configured, so neither a log line nor a metric ever carries the token. `max` 0 switches the limit off.
 */
import rateLimit from "@fastify/rate-limit";
import type { FastifyInstance, FastifyRequest } from "fastify";

export interface RateLimitSettings {
  /** Requests per window per caller; 0: no limit. */
  max: number;
  windowMs: number;
}

/** How long (whole seconds, at least 1) a request over its caller's limit must wait; undefined when it may go on. */
export type RateLimitCheck = (request: FastifyRequest) => Promise<number | undefined>;

/**
 * Registers the limiter on `app` and returns the check a hook calls on each request it limits.
 * `callerOf` names the caller of a request that passed authentication; it must never return a secret.
 */
export function perCallerRateLimit(
  app: FastifyInstance,
  settings: RateLimitSettings,
  callerOf: (request: FastifyRequest) => string,
): RateLimitCheck {
  if (settings.max === 0) return async () => undefined;
  let check: ReturnType<FastifyInstance["createRateLimit"]> | undefined;
  void app.register(rateLimit, {
    global: false,
    max: settings.max,
    timeWindow: settings.windowMs,
    keyGenerator: callerOf,
  });
  app.after((error) => {
    if (error) throw error;
    check = app.createRateLimit();
  });
  return async (request) => {
    // Before the server is ready no request is answered, so the check always exists here.
    if (check === undefined) return undefined;
    const outcome = await check(request);
    return !outcome.isAllowed && outcome.isExceeded ? Math.max(1, outcome.ttlInSeconds) : undefined;
  };
}
