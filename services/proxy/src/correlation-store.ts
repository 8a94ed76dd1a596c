/**
 * Where the correlation memory outlives the process: one SQLite file in the spool directory
 * (`correlations.sqlite`, better-sqlite3, WAL). A task's correlation is written the moment the proxy
 * learns it (before the answer that showed the task is complete for the client); when a task was last
 * used is saved in batches (at most once a second), so that the least recently used tasks are the ones
 * forgotten first across restarts too.
 */
import { existsSync, mkdirSync, renameSync } from "node:fs";
import { dirname } from "node:path";
import Database from "better-sqlite3";

export interface CorrelationStore {
  /** Every remembered task, least recently used first, with when it was last used (ms since the epoch). */
  load(): [taskId: string, correlationId: string, usedAt: number][];
  put(taskId: string, correlationId: string, usedAt: number): void;
  touch(taskIds: readonly string[], usedAt: number): void;
  forget(taskIds: readonly string[]): void;
  close(): void;
}

const schema = `
CREATE TABLE IF NOT EXISTS correlation (
  task_id TEXT PRIMARY KEY,
  correlation_id TEXT NOT NULL,
  used_at INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS correlation_used ON correlation (used_at);
`;

export class SqliteCorrelationStore implements CorrelationStore {
  private readonly db: Database.Database;
  private readonly insert: Database.Statement<[string, string, number]>;
  private readonly update: Database.Statement<[number, string]>;
  private readonly remove: Database.Statement<[string]>;

  /** `onUnreadable` is told when the file was not a usable database and was moved aside (to `movedTo`). */
  constructor(
    readonly path: string,
    onUnreadable: (problem: { path: string; movedTo: string; err: string }) => void = () => undefined,
  ) {
    mkdirSync(dirname(path), { recursive: true });
    try {
      this.db = SqliteCorrelationStore.openDatabase(path);
    } catch (e) {
      if (!(e instanceof Database.SqliteError)) throw e;
      // Not a database (damaged, or some other file): kept aside for a person, and the memory starts empty.
      const movedTo = `${path}.unreadable-${Date.now()}`;
      for (const suffix of ["", "-wal", "-shm"])
        if (existsSync(`${path}${suffix}`)) renameSync(`${path}${suffix}`, `${movedTo}${suffix}`);
      onUnreadable({ path, movedTo, err: e.message });
      this.db = SqliteCorrelationStore.openDatabase(path);
    }
    this.insert = this.db.prepare(
      "INSERT OR IGNORE INTO correlation (task_id, correlation_id, used_at) VALUES (?, ?, ?)",
    );
    this.update = this.db.prepare("UPDATE correlation SET used_at = ? WHERE task_id = ?");
    this.remove = this.db.prepare("DELETE FROM correlation WHERE task_id = ?");
  }

  private static openDatabase(path: string): Database.Database {
    const db = new Database(path);
    try {
      // Read before anything is written, so that a file that is not this store's is moved aside untouched.
      const columns = (db.prepare("SELECT name FROM pragma_table_info('correlation')").all() as { name: string }[]).map(
        (c) => c.name,
      );
      if (columns.length > 0 && !["task_id", "correlation_id", "used_at"].every((c) => columns.includes(c)))
        throw new Database.SqliteError(
          `its table correlation has the columns ${columns.join(", ")}`,
          "SQLITE_MISMATCH",
        );
      db.pragma("journal_mode = WAL");
      // A committed write is in the WAL file before the call returns: it survives the process being killed.
      db.pragma("synchronous = NORMAL");
      db.pragma("busy_timeout = 5000");
      db.exec(schema);
      return db;
    } catch (e) {
      db.close();
      throw e;
    }
  }

  load(): [string, string, number][] {
    const rows = this.db
      .prepare("SELECT task_id, correlation_id, used_at FROM correlation ORDER BY used_at, rowid")
      .all() as { task_id: string; correlation_id: string; used_at: number }[];
    return rows.map((r) => [r.task_id, r.correlation_id, Number(r.used_at)]);
  }

  put(taskId: string, correlationId: string, usedAt: number): void {
    this.insert.run(taskId, correlationId, usedAt);
  }

  touch(taskIds: readonly string[], usedAt: number): void {
    this.db.transaction(() => {
      for (const id of taskIds) this.update.run(usedAt, id);
    })();
  }

  forget(taskIds: readonly string[]): void {
    this.db.transaction(() => {
      for (const id of taskIds) this.remove.run(id);
    })();
  }

  close(): void {
    if (this.db.open) this.db.close();
  }
}
