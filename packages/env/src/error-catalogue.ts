/**
 * One catalogue of stable error codes per service, every entry of one shape, in the spirit of fastify's
 * `FST_ERR_*` codes: a code (the key, `<PREFIX>_<NAME>`, never renamed once released), the HTTP status it
 * answers with (null for a code that is never an HTTP answer: a dead-letter reason, an alert, a refusal
 * to start) and a message template for people (`%s` filled in order by `formatMessage`). Clients branch
 * on `code`, humans read `error`.
 *
 * `defineErrorCatalogue` checks the entries when the module loads, so a malformed catalogue fails at start and
 * in every test that imports it; `CatalogueError` is the typed error a code becomes and `errorBody` the
 * HTTP body every service answers with, `{error, code, details?}`.
 */

export interface ErrorEntry {
  /** HTTP status of the answer (400-599), or null when the code is never an HTTP answer. */
  readonly status: number | null;
  /** What went wrong, for people; `%s` placeholders are filled by `formatMessage`. */
  readonly message: string;
}

/** Every prefix (the services', the worker guard's, the TypeScript client's, the Kafka library's, the serde's, the CLI's) and the workspace that owns it: a code starts with its owner's prefix, so no two workspaces share one. */
export const errorCodePrefixes = {
  INGEST: "@a2a-ledger/ingest",
  PROJECTOR: "@a2a-ledger/projector",
  DISPATCHER: "@a2a-ledger/dispatcher",
  PROXY: "@a2a-ledger/proxy",
  RECONCILER: "@a2a-ledger/reconciler",
  GUARD: "@a2a-ledger/worker-guard",
  A2A_CLIENT: "@a2a-ledger/a2a-client",
  KAFKA: "@a2a-ledger/kafka",
  SERDE: "@a2a-ledger/schemas",
  POLICY: "@a2a-ledger/cli",
} as const;

export type ErrorCodePrefix = keyof typeof errorCodePrefixes;

const prefixKey = Symbol.for("a2a-ledger.error-catalogue.prefix");

/** Keys not starting with `${P}_` become `never`, so a misnamed code fails to compile. */
type Prefixed<P extends string, T> = { [K in keyof T]: K extends `${P}_${string}` ? T[K] : never };

export class ErrorCatalogueInvalid extends Error {
  override name = "ErrorCatalogueInvalid";
  readonly code = "ERROR_CATALOGUE_INVALID";
  constructor(readonly problems: string[]) {
    super(`Invalid error catalogue:\n${problems.map((p) => `  - ${p}`).join("\n")}`);
  }
}

/** Every problem of a would-be catalogue (empty when it is one). */
export function catalogueProblems(prefix: string, entries: Readonly<Record<string, unknown>>): string[] {
  const problems: string[] = [];
  if (!Object.hasOwn(errorCodePrefixes, prefix))
    problems.push(`prefix ${JSON.stringify(prefix)} is none of ${Object.keys(errorCodePrefixes).join(", ")}`);
  for (const [code, entry] of Object.entries(entries)) {
    if (!new RegExp(`^${prefix}_[A-Z0-9]+(?:_[A-Z0-9]+)*$`).test(code))
      problems.push(`${code}: a code is ${prefix}_ followed by upper-case words joined by _`);
    if (typeof entry !== "object" || entry === null) {
      problems.push(`${code}: an entry is {status, message}`);
      continue;
    }
    const { status, message } = entry as Record<string, unknown>;
    if (
      !(status === null || (typeof status === "number" && Number.isInteger(status) && status >= 400 && status <= 599))
    )
      problems.push(`${code}: status must be null or an HTTP error status (400-599), not ${JSON.stringify(status)}`);
    if (typeof message !== "string" || message.trim() === "")
      problems.push(`${code}: message must be a non-empty string`);
  }
  return problems;
}

/**
 * A catalogue: the entries as given (so `catalogue[code].status` reads them), checked and frozen, and
 * marked with their prefix for `isErrorCatalogue` / `cataloguePrefix`. Throws ErrorCatalogueInvalid
 * listing every problem.
 */
export function defineErrorCatalogue<const P extends ErrorCodePrefix, const T extends Record<string, ErrorEntry>>(
  prefix: P,
  entries: T & Prefixed<P, T>,
): Readonly<T> {
  const problems = catalogueProblems(prefix, entries);
  if (problems.length > 0) throw new ErrorCatalogueInvalid(problems);
  for (const entry of Object.values(entries)) Object.freeze(entry);
  Object.defineProperty(entries, prefixKey, { value: prefix, enumerable: false });
  return Object.freeze(entries);
}

export const isErrorCatalogue = (value: unknown): value is Readonly<Record<string, ErrorEntry>> =>
  typeof value === "object" && value !== null && prefixKey in value;

/** The prefix a catalogue was made with; undefined for anything else. */
export const cataloguePrefix = (value: unknown): ErrorCodePrefix | undefined =>
  isErrorCatalogue(value)
    ? ((value as unknown as Record<symbol, ErrorCodePrefix>)[prefixKey] as ErrorCodePrefix)
    : undefined;

/** The catalogue's codes, in the order they are listed. */
export const codesOf = <T extends Readonly<Record<string, ErrorEntry>>>(catalogue: T): (keyof T & string)[] =>
  Object.keys(catalogue) as (keyof T & string)[];

/** The message template with its `%s` filled in order; placeholders without an argument stay. */
export function formatMessage(entry: ErrorEntry, ...args: readonly (string | number)[]): string {
  let next = 0;
  return entry.message.replace(/%s/g, (placeholder) => (next < args.length ? String(args[next++]) : placeholder));
}

/**
 * An error that becomes an HTTP answer with a stable code: the status comes from the catalogue (500
 * for a code that is no HTTP answer, which is a programming error), the message defaults to the entry's.
 */
export class CatalogueError<C extends string = string, D = unknown> extends Error {
  override name = "CatalogueError";
  readonly status: number;
  constructor(
    catalogue: Readonly<Record<C, ErrorEntry>>,
    readonly code: C,
    message: string = catalogue[code].message,
    readonly details?: D,
  ) {
    super(message);
    this.status = catalogue[code].status ?? 500;
  }
}

export interface ErrorBody<C extends string = string, D = unknown> {
  error: string;
  code: C;
  details?: D;
}

/** The HTTP body of an error: `{error, code}`, and `details` when it has some. */
export function errorBody<C extends string, D>(error: {
  readonly message: string;
  readonly code: C;
  readonly details?: D;
}): ErrorBody<C, D> {
  return error.details === undefined
    ? { error: error.message, code: error.code }
    : { error: error.message, code: error.code, details: error.details };
}
