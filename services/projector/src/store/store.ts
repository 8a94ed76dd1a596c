/**
 * The repository interface the views are written and read through. Two implementations: SQLite
 * (better-sqlite3, WAL, one file) and PostgreSQL (`pg`). Statements are written once with `?`
 * placeholders; every value travels as a bound parameter, never inside SQL text. Table and column
 * names in SQL text come from this package's code only.
 */

export type SqlValue = string | number | null;
export type Row = Record<string, SqlValue>;

/** Reads inside one consistent snapshot. */
export interface Reader {
  all(sql: string, params?: readonly SqlValue[]): Promise<Row[]>;
  /**
   * SQL that follows a column to test membership in a list passed as ONE parameter, the list's
   * JSON text (`column${inList}` with `JSON.stringify(values)`): one statement text whatever the length.
   */
  readonly inList: string;
}

/** One database transaction: view rows and consumed offsets commit or roll back together. */
export interface Tx extends Reader {
  /** Runs a statement; resolves to the number of rows it changed. */
  run(sql: string, params?: readonly SqlValue[]): Promise<number>;
  /** INSERT … ON CONFLICT (key) DO UPDATE SET every other column to the new value. */
  upsert(
    table: string,
    columns: readonly string[],
    key: readonly string[],
    rows: readonly (readonly SqlValue[])[],
  ): Promise<void>;
  /** INSERT … ON CONFLICT DO NOTHING; resolves to the number of rows inserted. */
  insertIgnore(table: string, columns: readonly string[], rows: readonly (readonly SqlValue[])[]): Promise<number>;
  /** Suffix that locks selected rows until the transaction ends (PostgreSQL); empty where the transaction already holds the only write lock (SQLite). */
  readonly forUpdate: string;
  /**
   * Takes transaction-scoped locks on keys of a namespace (PostgreSQL advisory locks, in a fixed order);
   * rows that do not exist yet are covered too. A no-op on SQLite, whose transaction holds the write lock.
   */
  lock(namespace: number, keys: readonly string[]): Promise<void>;
  /** Sends a change notice to every instance once the transaction commits. */
  notify(payload: string): void;
}

export type Dialect = "sqlite" | "postgres";

export interface Store {
  readonly dialect: Dialect;
  /** Where the data lives, for logs (no credentials). */
  readonly location: string;
  read<T>(fn: (reader: Reader) => Promise<T>): Promise<T>;
  /** Runs `fn` in one transaction; retried from the start when the database reports a deadlock or serialization failure. */
  write<T>(fn: (tx: Tx) => Promise<T>): Promise<T>;
  /** DDL outside any view transaction (creating and dropping generations). */
  exec(statements: readonly string[]): Promise<void>;
  /** Change notices committed by any instance (this one included). */
  onNotice(listener: (payload: string) => void): () => void;
  ping(timeoutMs: number): Promise<boolean>;
  close(): Promise<void>;
}

/** Rows per multi-row statement: well under both databases' bound-parameter limits. */
export function chunkRows<T>(rows: readonly T[], columns: number, maxParams = 30_000): T[][] {
  const size = Math.max(1, Math.floor(maxParams / Math.max(1, columns)));
  const out: T[][] = [];
  for (let i = 0; i < rows.length; i += size) out.push(rows.slice(i, i + size));
  return out;
}

/** A promise chain that runs one task at a time. */
export class Mutex {
  private tail: Promise<unknown> = Promise.resolve();
  run<T>(task: () => Promise<T>): Promise<T> {
    const result = this.tail.then(task, task);
    this.tail = result.catch(() => undefined);
    return result;
  }
}

/** `INSERT INTO table (columns) VALUES (?, …), …` for `rowCount` rows. */
export function insertValues(table: string, columns: readonly string[], rowCount: number): string {
  const tuple = `(${columns.map(() => "?").join(", ")})`;
  return `INSERT INTO ${table} (${columns.join(", ")}) VALUES ${Array.from({ length: rowCount }, () => tuple).join(", ")}`;
}

/** Rows per multi-row statement in powers of two (64 down to 1), so that a handful of statement texts serve every batch. */
export function* powerOfTwoChunks<T>(rows: readonly T[], largest = 64): Generator<T[]> {
  let i = 0;
  while (i < rows.length) {
    let size = largest;
    while (size > rows.length - i) size /= 2;
    yield rows.slice(i, i + size);
    i += size;
  }
}

/** `(a, b) IN (VALUES (?, ?), …)` for `count` tuples of `columns`: an index lookup per tuple on both databases. */
export function tuplesIn(columns: readonly string[], count: number): string {
  const tuple = `(${columns.map(() => "?").join(", ")})`;
  return `(${columns.join(", ")}) IN (VALUES ${Array.from({ length: count }, () => tuple).join(", ")})`;
}
