/**
 * The keys an operator trusts to sign Agent Cards, per worker: `A2A_LEDGER_CARD_KEYS`, comma-separated
 * `WORKERS=SOURCE` entries. WORKERS is a `workerId` pattern (`*` any run of characters; a vendor's keys
 * are its workers' pattern, e.g. `acme-*`); SOURCE a JWKS file or an `http(s)://` JWKS URL. A key may
 * carry `exp` and `nbf` (seconds since the epoch, as in a JWT): outside them it verifies nothing.
 *
 * A file is read once, at start; a URL is fetched when first needed, again after `refreshMs`, and at
 * most once per `cooldownMs` when a card names a kid it does not list (a key rotated in). A URL that
 * cannot be fetched keeps its last good keys; until it ever answers, it lists none.
 */
import { readFileSync } from "node:fs";
import { starPattern } from "@a2a-ledger/env";

/** One JSON Web Key as a JWKS lists it (RFC 7517), with the optional validity window. */
export interface TrustedJwk {
  kid?: string;
  kty: string;
  alg?: string;
  use?: string;
  exp?: number;
  nbf?: number;
  [member: string]: unknown;
}

export interface CardKeyEntry {
  /** The workerId pattern the keys speak for. */
  workers: string;
  /** A JWKS file path or an http(s) URL. */
  source: string;
}

/** A configuration that cannot be used, with a message that says which entry and why. */
export class CardKeysError extends Error {
  override name = "CardKeysError";
}

/** Entries of `A2A_LEDGER_CARD_KEYS`; an empty or absent value is no entries (no card is checked). */
export function parseCardKeyEntries(text: string | undefined, variable = "A2A_LEDGER_CARD_KEYS"): CardKeyEntry[] {
  if (text === undefined || text.trim() === "") return [];
  return text.split(",").map((raw, i) => {
    const entry = raw.trim();
    const eq = entry.indexOf("=");
    const workers = eq < 0 ? "" : entry.slice(0, eq).trim();
    const source = eq < 0 ? "" : entry.slice(eq + 1).trim();
    if (workers === "" || source === "" || /\s/.test(workers))
      throw new CardKeysError(
        `${variable}: entry ${i + 1} is not WORKERS=JWKS (a workerId pattern, then a JWKS file or URL), e.g. acme-*=/etc/a2a-ledger/acme.jwks.json`,
      );
    return { workers, source };
  });
}

/** A workerId pattern as a matcher: `*` is any run of characters, everything else literal. */
export const workerMatcher: (pattern: string) => (workerId: string) => boolean = starPattern;

function keysOfJwks(value: unknown, where: string): TrustedJwk[] {
  const keys = (value as { keys?: unknown } | null)?.keys;
  if (!Array.isArray(keys)) throw new CardKeysError(`${where} is not a JWKS: expected {"keys": [...]}`);
  return keys.filter(
    (k): k is TrustedJwk => k !== null && typeof k === "object" && typeof (k as { kty?: unknown }).kty === "string",
  );
}

/** The keys of one source, fetched or read. */
interface KeySource {
  readonly matches: (workerId: string) => boolean;
  /** The keys now; `kid` a card names that none lists may refresh a URL source (within its cooldown). */
  keys(kid: string | undefined): Promise<readonly TrustedJwk[]>;
}

export interface CardKeysOptions {
  refreshMs?: number;
  cooldownMs?: number;
  timeoutMs?: number;
  /** Injected clock (tests). */
  now?: () => number;
}

function fileSource(entry: CardKeyEntry): KeySource {
  let text: string;
  try {
    text = readFileSync(entry.source, "utf8");
  } catch (e) {
    throw new CardKeysError(
      `A2A_LEDGER_CARD_KEYS: the JWKS file of ${entry.workers} cannot be read: ${entry.source} (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`,
    );
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new CardKeysError(`A2A_LEDGER_CARD_KEYS: the JWKS file of ${entry.workers} is not JSON: ${entry.source}`);
  }
  const keys = keysOfJwks(parsed, `A2A_LEDGER_CARD_KEYS: the JWKS file of ${entry.workers} (${entry.source})`);
  return { matches: workerMatcher(entry.workers), keys: async () => keys };
}

function urlSource(entry: CardKeyEntry, options: Required<CardKeysOptions>): KeySource {
  let keys: readonly TrustedJwk[] = [];
  let fetchedAt = Number.NEGATIVE_INFINITY;
  let pending: Promise<void> | undefined;
  const refresh = () => {
    pending ??= (async () => {
      fetchedAt = options.now();
      try {
        const res = await fetch(entry.source, {
          signal: AbortSignal.timeout(options.timeoutMs),
          headers: { accept: "application/json" },
        });
        if (res.ok) keys = keysOfJwks(await res.json(), entry.source);
      } catch {
        // Keep the last good keys: a JWKS endpoint that is down never unverifies a key it listed.
      }
    })().finally(() => {
      pending = undefined;
    });
    return pending;
  };
  return {
    matches: workerMatcher(entry.workers),
    async keys(kid) {
      const age = options.now() - fetchedAt;
      const unknown = kid !== undefined && !keys.some((k) => k.kid === kid);
      if (age >= options.refreshMs || (unknown && age >= options.cooldownMs)) await refresh();
      return keys;
    },
  };
}

/** The trusted keys, per worker. */
export interface CardKeys {
  /** True when no entry is configured: no card is checked. */
  readonly empty: boolean;
  /** Whether any entry speaks for the worker (a card of a worker no entry names is not checked). */
  covers(workerId: string): boolean;
  /** The keys trusted for the worker with this kid (a signature without a kid: every key trusted for the worker). */
  candidates(workerId: string, kid: string | undefined): Promise<TrustedJwk[]>;
}

/** Reads the files now (a bad file fails the start, with its name); URLs are fetched when first needed. */
export function cardKeys(entries: readonly CardKeyEntry[], options: CardKeysOptions = {}): CardKeys {
  const resolved: Required<CardKeysOptions> = {
    refreshMs: options.refreshMs ?? 300_000,
    cooldownMs: options.cooldownMs ?? 30_000,
    timeoutMs: options.timeoutMs ?? 5_000,
    now: options.now ?? Date.now,
  };
  const sources = entries.map((e) => (/^https?:\/\//i.test(e.source) ? urlSource(e, resolved) : fileSource(e)));
  return {
    empty: sources.length === 0,
    covers: (workerId) => sources.some((s) => s.matches(workerId)),
    async candidates(workerId, kid) {
      const lists = await Promise.all(sources.filter((s) => s.matches(workerId)).map((s) => s.keys(kid)));
      return lists.flat().filter((k) => kid === undefined || k.kid === kid);
    },
  };
}

/**
 * `A2A_LEDGER_CARD_KEYS` as a service reads it at start: its entries, with their files read now so that a
 * missing or malformed one stops the start; or the problem, in words that name the entry or the file.
 */
export function cardKeysSetting(text: string | undefined): { entries: CardKeyEntry[]; problem?: string } {
  try {
    const entries = parseCardKeyEntries(text);
    cardKeys(entries);
    return { entries };
  } catch (e) {
    if (!(e instanceof CardKeysError)) throw e;
    return { entries: [], problem: e.message };
  }
}
