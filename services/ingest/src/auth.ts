/**
 * Bearer tokens, each with a scope: the observer names it may write as, the workers it may speak about
 * and the observation kinds it may post. The tokens are checked the way every service checks them
 * (@a2a-ledger/env bearerTokens: constant time, never logged).
 */
import { createHash } from "node:crypto";
import { bearerTokens, type BearerTokens, starPattern } from "@a2a-ledger/env";
import { type CardStanding, observationTypes, type ObservationType } from "@a2a-ledger/schemas";

/** The observation kinds a token may post (`type` of an observation). */
export type ObservationKind = ObservationType;

/** The prober's observer name (the dispatcher's): only a token that may write as it may post probe results. */
export const proberObserver = "dispatcher";
/** Kinds only the prober's principal may post: a probe result (with its parked canaries) decides what a worker is verified for. */
export const proberKinds: readonly ObservationKind[] = ["ProbeCompleted"];
/** The observer prefix an operator writes as (`operator:alice`): only such an observer posts the operator's kinds. */
export const operatorPrefix = "operator:";
/** Kinds only an operator posts: a resolution decides a blocked correlation's way out. */
export const operatorKinds: readonly ObservationKind[] = ["OperatorResolved"];
/** Whether an observer pattern may write as an operator (`operator:*`, `operator:alice`, `*`). */
const claimsOperator = (pattern: string): boolean =>
  pattern.startsWith(operatorPrefix) || observerMatcher(pattern)(`${operatorPrefix}any`);
/** Observer prefixes of principals that speak for one worker: the part after the prefix names the worker (`proxy:W1-*` → `W1-*`). */
export const workerBoundPrefixes: readonly string[] = ["proxy:", "guard:"];

/**
 * A configured token and its scope: the observers it may write as, the workers it may speak about and
 * the observation kinds it may post. `workers` and `kinds` left out take the meaning of scopeOf.
 */
export interface IngestToken {
  token: string;
  /** `["*"]` for a token configured without patterns. */
  observers: readonly string[];
  /** Patterns of the `workerId`s it may speak about; undefined: each observer pattern's own (scopeOf). */
  workers?: readonly string[];
  /**
   * The kinds it may post; undefined: every kind, but the prober's kinds only if it may write as `dispatcher`
   * and the operator's only if it may write as an operator (`operator:<name>`).
   */
  kinds?: readonly ObservationKind[];
  /** The name stamped on its observations (`;principal=`); undefined: `principalOf` derives one. */
  principal?: string;
}

/**
 * The principal an entry's observations carry: its `;principal=` name, else its observer patterns and
 * the first 8 hex digits of the token's SHA-256 (`proxy:W1-*#3fa2c1d0`): stable, telling two tokens of
 * one pattern apart, and never the token.
 */
export function principalOf(entry: IngestToken): string {
  return (
    entry.principal ??
    `${entry.observers.join("|")}#${createHash("sha256").update(entry.token).digest("hex").slice(0, 8)}`
  );
}

/** What one event of a batch claims, as far as a token's scope is concerned. */
export interface ScopedEvent {
  type: string;
  observer: string;
  /** null: the event names no worker (an operator's resolution left to the rules). */
  workerId: string | null;
}

/** Why an event lies outside a token's scope: which catalogue code, which field, and a message that never quotes the token. */
export interface ScopeRefusal {
  code: "INGEST_OBSERVER_FORBIDDEN" | "INGEST_KIND_FORBIDDEN" | "INGEST_WORKER_FORBIDDEN";
  path: "observer" | "type" | "workerId";
  message: string;
}

/** What a presented token may do. */
export interface ObserverGrant {
  /** The patterns, for messages (never the token). */
  readonly observers: readonly string[];
  /** Who the token is, stamped on every observation it posts; null when no token is configured. */
  readonly principal: string | null;
  mayClaim(observer: string): boolean;
  /** Undefined when the event is inside the token's scope; else why not (observer first, then kind, then worker). */
  refusal(event: ScopedEvent): ScopeRefusal | undefined;
  /**
   * Whom the token speaks for when it posts `event` (inside its scope): PROBER writing as the prober,
   * WORKER when its scope binds it to workers (a proxy's or guard's pattern, or `;workers=` naming no `*`),
   * else SIGHTING; null when no token is configured.
   */
  standing(event: ScopedEvent): CardStanding | null;
}

export interface TokenCheck {
  /** True when tokens are configured. */
  readonly required: boolean;
  /** The tokens alone, for the route guard (@a2a-ledger/env routeGuard). */
  readonly bearer: BearerTokens;
  /** The grant of the Authorization header's bearer token; undefined when it carries no configured token. */
  grant(authorization: string | undefined): ObserverGrant | undefined;
  /** True when the Authorization header carries a configured bearer token (or none is required). */
  allows(authorization: string | undefined): boolean;
}

/** An observer pattern as a matcher: `*` is any run of characters, everything else literal. */
export const observerMatcher: (pattern: string) => (observer: string) => boolean = starPattern;

/**
 * The workers an observer pattern speaks about when the entry names none: a proxy's or a guard's
 * (`proxy:W1-*`, `guard:W2-*`) only the workers its suffix names (`W1-*`, `W2-*`), as the proxy's and the
 * guard's default observer is `proxy:<workerId>` / `guard:<workerId>`; any other (`dispatcher`,
 * `orchestrator:*`, `*`) any worker, as an orchestrator and the prober speak about many.
 */
export function workersOf(observerPattern: string): string {
  const prefix = workerBoundPrefixes.find((p) => observerPattern.startsWith(p) && observerPattern.length > p.length);
  return prefix === undefined ? "*" : observerPattern.slice(prefix.length);
}

/** The scope of an entry with the defaults filled in, for messages and documentation. */
export function scopeOf(entry: IngestToken): {
  observers: readonly string[];
  workers: readonly string[];
  kinds: readonly ObservationKind[];
} {
  const prober = entry.observers.some((p) => observerMatcher(p)(proberObserver));
  const operator = entry.observers.some(claimsOperator);
  return {
    observers: entry.observers,
    workers: entry.workers ?? [...new Set(entry.observers.map(workersOf))],
    kinds:
      entry.kinds ??
      observationTypes.filter((k) => (prober || !proberKinds.includes(k)) && (operator || !operatorKinds.includes(k))),
  };
}

const shown = (text: string): string => JSON.stringify(text.slice(0, 200));

function grantOf(entry: IngestToken): ObserverGrant {
  const observers = entry.observers.map((pattern) => ({
    pattern,
    claims: observerMatcher(pattern),
    workers: observerMatcher(workersOf(pattern)),
  }));
  const workers = entry.workers?.map(observerMatcher);
  const { kinds } = scopeOf(entry);
  const mayClaim = (observer: string) => observers.some((o) => o.claims(observer));
  return {
    observers: entry.observers,
    principal: principalOf(entry),
    mayClaim,
    refusal(event) {
      const claimed = observers.filter((o) => o.claims(event.observer));
      if (claimed.length === 0)
        return {
          code: "INGEST_OBSERVER_FORBIDDEN",
          path: "observer",
          message: `this token may not write as observer ${shown(event.observer)} (it may claim ${entry.observers.join(" | ")})`,
        };
      if (!(kinds as readonly string[]).includes(event.type)) {
        const why = proberKinds.includes(event.type as ObservationKind)
          ? `only the prober's token (one that may write as ${proberObserver}) posts ${event.type}`
          : operatorKinds.includes(event.type as ObservationKind)
            ? `only an operator's token (one that may write as ${operatorPrefix}<name>) posts ${event.type}`
            : `it may post ${kinds.join(" | ")}`;
        return {
          code: "INGEST_KIND_FORBIDDEN",
          path: "type",
          message: `this token may not post ${shown(event.type)} (${why})`,
        };
      }
      if (operatorKinds.includes(event.type as ObservationKind) && !event.observer.startsWith(operatorPrefix))
        return {
          code: "INGEST_OBSERVER_FORBIDDEN",
          path: "observer",
          message: `${event.type} is written as an operator (observer ${operatorPrefix}<name>), not as ${shown(event.observer)}`,
        };
      // An event that names no worker speaks about none.
      if (event.workerId === null) return undefined;
      const workerId = event.workerId;
      // Named workers bind every observer of the entry; else each observer pattern binds its own.
      const speaks =
        workers === undefined ? claimed.some((o) => o.workers(workerId)) : workers.some((w) => w(workerId));
      if (!speaks)
        return {
          code: "INGEST_WORKER_FORBIDDEN",
          path: "workerId",
          message: `this token may not speak about worker ${shown(workerId)} (it may speak about ${scopeOf(entry).workers.join(" | ")} as ${shown(event.observer)})`,
        };
      return undefined;
    },
    standing(event) {
      if (event.observer === proberObserver && mayClaim(proberObserver)) return "PROBER";
      const bound =
        entry.workers === undefined
          ? observers.some((o) => o.claims(event.observer) && workersOf(o.pattern) !== "*")
          : !entry.workers.includes("*");
      return bound ? "WORKER" : "SIGHTING";
    },
  };
}

/** The grant when no token is configured: anything. */
export const anyObserver: ObserverGrant = {
  observers: ["*"],
  principal: null,
  mayClaim: () => true,
  refusal: () => undefined,
  standing: () => null,
};

export function tokenCheck(tokens: readonly (IngestToken | string)[]): TokenCheck {
  const entries = tokens.map((t) => (typeof t === "string" ? { token: t, observers: ["*"] } : t));
  const bearer = bearerTokens(entries.map((e) => e.token));
  const grants: ObserverGrant[] = entries.map(grantOf);
  const check: TokenCheck = {
    required: bearer.required,
    bearer,
    grant(authorization) {
      if (!bearer.required) return anyObserver;
      const found = bearer.match(authorization);
      return found === undefined ? undefined : grants[found];
    },
    allows: (authorization) => check.grant(authorization) !== undefined,
  };
  return check;
}

const patternProblem = (p: string): boolean => p === "" || p.length > 256 || /[\s,=]/.test(p);

/**
 * Token entries of A2A_LEDGER_INGEST_TOKENS (comma-separated) or of a tokens file (one a line, `#` comments):
 * `TOKEN` (may claim any observer, speak about any worker and post any kind, as tokens always could) or
 * `TOKEN=OBSERVERS[;workers=WORKERS][;kinds=KINDS][;principal=NAME]`, each list `|`-separated, patterns with `*` (e.g.
 * `TOKEN=proxy:W1-*`, `TOKEN=orchestrator:*;workers=acme-*;kinds=TaskDispatched|TaskStateObserved`).
 * Left out, `workers` and `kinds` mean what scopeOf says. Problems name the entry by position, never by its token.
 */
export function parseTokenEntries(entries: readonly string[], where: string, problems: string[]): IngestToken[] {
  const tokens: IngestToken[] = [];
  entries.forEach((entry, i) => {
    const at = entry.indexOf("=");
    const token = (at < 0 ? entry : entry.slice(0, at)).trim();
    // `;workers=` and `;kinds=` start the named parts; anything else stays in the observer list (and is refused there).
    const [observerList = "", ...named] =
      at < 0 ? ["*"] : entry.slice(at + 1).split(/;(?=\s*(?:workers|kinds|principal)\s*=)/);
    const patterns = observerList.split("|").map((p) => p.trim());
    const scope: { workers?: string[]; kinds?: ObservationKind[]; principal?: string } = {};
    const problem = (text: string) => problems.push(`${where} entry ${i + 1}: ${text}`);
    if (token.length < 16 || /\s/.test(token))
      return problem("a token must be at least 16 characters without whitespace (value not shown)");
    if (patterns.some(patternProblem))
      return problem(
        "observer patterns are non-empty, without whitespace, ',' or '=', separated by '|' (e.g. TOKEN=proxy:*|dispatcher)",
      );
    for (const part of named) {
      const eq = part.indexOf("=");
      const name = part.slice(0, eq).trim() as "workers" | "kinds" | "principal";
      const values = part
        .slice(eq + 1)
        .split("|")
        .map((v) => v.trim());
      if (scope[name] !== undefined) return problem(`${name}= is given twice`);
      if (name === "principal") {
        const principal = part.slice(eq + 1).trim();
        if (!/^[A-Za-z0-9._:@*|#-]{1,200}$/.test(principal))
          return problem("principal= is a name of letters, digits and . _ : @ * | # - (e.g. ;principal=acme-proxy-w1)");
        scope.principal = principal;
      } else if (name === "workers") {
        if (values.some(patternProblem))
          return problem(
            "worker patterns are non-empty, without whitespace, ',' or '=', separated by '|' (e.g. ;workers=W1-*|W3-*)",
          );
        scope.workers = values;
      } else {
        const unknown = values.filter((v) => !(observationTypes as readonly string[]).includes(v));
        if (unknown.length > 0)
          return problem(
            `kinds= names ${unknown.map((u) => JSON.stringify(u.slice(0, 60))).join(", ")}, not observation types (${observationTypes.join(" | ")})`,
          );
        scope.kinds = values as ObservationKind[];
      }
    }
    const entryScope: IngestToken = { token, observers: patterns, ...scope };
    const prober = patterns.some((p) => observerMatcher(p)(proberObserver));
    const foreign = (scope.kinds ?? []).filter((k) => proberKinds.includes(k));
    if (!prober && foreign.length > 0)
      return problem(
        `${foreign.join(", ")} is posted only by the prober's token: kinds= may name it only when the observers admit ${JSON.stringify(proberObserver)}`,
      );
    const operatorOnly = (scope.kinds ?? []).filter((k) => operatorKinds.includes(k));
    if (operatorOnly.length > 0 && !patterns.some(claimsOperator))
      return problem(
        `${operatorOnly.join(", ")} is posted only as an operator: kinds= may name it only when the observers admit ${operatorPrefix}<name>`,
      );
    tokens.push(entryScope);
  });
  if (new Set(tokens.map((t) => t.token)).size !== tokens.length)
    problems.push(`${where}: a token is listed twice (value not shown)`);
  return tokens;
}
