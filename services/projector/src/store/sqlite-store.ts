/**
 * SQLite store: one file, WAL, a writer connection (one transaction at a time, BEGIN IMMEDIATE so
 * another process — a rebuild — waits its turn) and a read-only connection whose reads see committed
 * snapshots while the writer works. The WAL is checkpointed on a thread of its own (sqlite-checkpointer.ts).
 */
import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import Database from "better-sqlite3";
import { Checkpointer, type CheckpointerOptions } from "./sqlite-checkpointer.ts";
import { insertValues, Mutex, powerOfTwoChunks, type Reader, type Row, type Store, type Tx } from "./store.ts";

const inList = " IN (SELECT value FROM json_each(?))";

type Statement = Database.Statement<unknown[], Row>;

class StatementCache {
  private readonly cache = new Map<string, Statement>();
  constructor(private readonly db: Database.Database) {}
  get(sql: string): Statement {
    let statement = this.cache.get(sql);
    if (statement === undefined) {
      statement = this.db.prepare<unknown[], Row>(sql);
      this.cache.set(sql, statement);
    }
    return statement;
  }
  clear(): void {
    this.cache.clear();
  }
}

export class SqliteStore implements Store {
  readonly dialect = "sqlite" as const;
  private readonly writer: Database.Database;
  private readonly reader: Database.Database;
  private readonly writes: StatementCache;
  private readonly reads: StatementCache;
  private readonly writeLock = new Mutex();
  private readonly readLock = new Mutex();
  private readonly listeners = new Set<(payload: string) => void>();

  /** The WAL's checkpoint thread (none in memory). */
  private readonly checkpointer: Checkpointer | undefined;

  constructor(
    readonly location: string,
    checkpoints: CheckpointerOptions = {},
  ) {
    if (location !== ":memory:") mkdirSync(dirname(location), { recursive: true });
    this.writer = new Database(location, { timeout: 15_000 });
    this.writer.pragma("journal_mode = WAL");
    this.writer.pragma("synchronous = NORMAL");
    this.writer.pragma("foreign_keys = OFF");
    this.writer.pragma("cache_size = -65536");
    this.writer.pragma("temp_store = MEMORY");
    this.reader = location === ":memory:" ? this.writer : new Database(location, { readonly: true, timeout: 15_000 });
    this.checkpointer = location === ":memory:" ? undefined : new Checkpointer(this.writer, location, checkpoints);
    this.writes = new StatementCache(this.writer);
    this.reads = new StatementCache(this.reader);
    // Statistics for the query planner (SQLite's recommendation: on open, then now and then).
    this.writer.pragma("optimize = 0x10002");
    this.optimizer = setInterval(
      () => {
        void this.writeLock.run(async () => this.writer.pragma("optimize"));
      },
      15 * 60 * 1000,
    );
    this.optimizer.unref();
  }

  private readonly optimizer: NodeJS.Timeout;

  read<T>(fn: (reader: Reader) => Promise<T>): Promise<T> {
    return this.readLock.run(async () => {
      const reader: Reader = { inList, all: async (sql, params = []) => this.reads.get(sql).all(...params) };
      this.reader.exec("BEGIN");
      try {
        return await fn(reader);
      } finally {
        this.reader.exec("COMMIT");
      }
    });
  }

  write<T>(fn: (tx: Tx) => Promise<T>): Promise<T> {
    return this.writeLock.run(async () => {
      const notices: string[] = [];
      const tx = this.transaction(notices);
      await this.checkpointer?.beforeTransaction();
      this.writer.exec("BEGIN IMMEDIATE");
      let result: T;
      try {
        result = await fn(tx);
        this.writer.exec("COMMIT");
      } catch (error) {
        if (this.writer.inTransaction) this.writer.exec("ROLLBACK");
        throw error;
      }
      this.checkpointer?.committed();
      for (const notice of notices) for (const listener of this.listeners) listener(notice);
      return result;
    });
  }

  private transaction(notices: string[]): Tx {
    const statements = this.writes;
    return {
      forUpdate: "",
      inList,
      lock: async () => undefined,
      all: async (sql, params = []) => statements.get(sql).all(...params),
      run: async (sql, params = []) => statements.get(sql).run(...params).changes,
      upsert: async (table, columns, key, rows) => {
        const updates = columns.filter((c) => !key.includes(c)).map((c) => `${c} = excluded.${c}`);
        const action = `ON CONFLICT (${key.join(", ")}) DO ${updates.length === 0 ? "NOTHING" : `UPDATE SET ${updates.join(", ")}`}`;
        for (const chunk of powerOfTwoChunks(rows))
          statements.get(`${insertValues(table, columns, chunk.length)} ${action}`).run(...chunk.flat());
      },
      insertIgnore: async (table, columns, rows) => {
        let inserted = 0;
        for (const chunk of powerOfTwoChunks(rows))
          inserted += statements
            .get(`${insertValues(table, columns, chunk.length)} ON CONFLICT DO NOTHING`)
            .run(...chunk.flat()).changes;
        return inserted;
      },
      notify: (payload) => void notices.push(payload),
    };
  }

  async exec(statements: readonly string[]): Promise<void> {
    await this.writeLock.run(async () => {
      await this.checkpointer?.beforeTransaction();
      this.writer.exec("BEGIN IMMEDIATE");
      try {
        for (const sql of statements) this.writer.exec(sql);
        this.writer.exec("COMMIT");
      } catch (error) {
        if (this.writer.inTransaction) this.writer.exec("ROLLBACK");
        throw error;
      }
      this.checkpointer?.committed();
      // Dropped or created tables invalidate prepared statements.
      this.writes.clear();
      this.reads.clear();
    });
  }

  onNotice(listener: (payload: string) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  async ping(): Promise<boolean> {
    try {
      this.reader.prepare("SELECT 1").get();
      return true;
    } catch {
      return false;
    }
  }

  async close(): Promise<void> {
    clearInterval(this.optimizer);
    await this.writeLock.run(async () => {
      // The thread's connection closes first: the writer, closing last, checkpoints the rest and removes the WAL.
      await this.checkpointer?.close();
      if (this.reader !== this.writer) this.reader.close();
      this.writer.close();
    });
  }
}
