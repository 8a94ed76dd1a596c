/**
 * PostgreSQL store on a `pg` pool. Writes run in READ COMMITTED transactions that lock the rows they
 * read-modify-write (`FOR UPDATE`), so several projector instances on one database stay correct;
 * deadlocks and serialization failures are retried from the start. Reads run in a REPEATABLE READ,
 * READ ONLY transaction: one consistent snapshot per request. Change notices travel with
 * LISTEN/NOTIFY, delivered on commit to every instance.
 */
import pg from "pg";
import { chunkRows, insertValues, type Reader, type Row, type SqlValue, type Store, type Tx } from "./store.ts";

const channel = "a2a_ledger_projector";
/** SQLSTATEs after which the same transaction may succeed when run again. */
const retriable = new Set(["40P01", "40001"]);

/** `?` placeholders → `$1…$n` (the SQL of this package has no `?` inside literals). */
export function numbered(sql: string): string {
  let n = 0;
  return sql.replace(/\?/g, () => `$${++n}`);
}

const int8 = 20;
const types = {
  getTypeParser: ((oid: number, format?: string) =>
    oid === int8
      ? (value: string) => Number(value)
      : pg.types.getTypeParser(oid, format as "text")) as typeof pg.types.getTypeParser,
};

/** The connection string without its password, for logs. */
export function redactedUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password !== "") parsed.password = "***";
    return parsed.toString();
  } catch {
    return "postgresql://(unparsable url)";
  }
}

const inList = " IN (SELECT jsonb_array_elements_text(?::jsonb))";

function queries(client: pg.PoolClient): Reader {
  return {
    inList,
    all: async (sql, params = []) =>
      (await client.query<Row>({ text: numbered(sql), values: params as SqlValue[] })).rows,
  };
}

export class PostgresStore implements Store {
  readonly dialect = "postgres" as const;
  readonly location: string;
  private readonly pool: pg.Pool;
  private readonly listeners = new Set<(payload: string) => void>();
  private listener: pg.Client | undefined;
  private listening: Promise<void> | undefined;
  private closed = false;

  constructor(
    private readonly url: string,
    poolSize = 6,
  ) {
    this.location = redactedUrl(url);
    this.pool = new pg.Pool({
      connectionString: url,
      max: poolSize,
      types,
      connectionTimeoutMillis: 10_000,
      idleTimeoutMillis: 30_000,
    });
    // An idle client that loses its connection must not crash the process; the next query reconnects.
    this.pool.on("error", () => undefined);
  }

  async read<T>(fn: (reader: Reader) => Promise<T>): Promise<T> {
    const client = await this.pool.connect();
    try {
      await client.query("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY");
      try {
        return await fn(queries(client));
      } finally {
        await client.query("COMMIT");
      }
    } finally {
      client.release();
    }
  }

  async write<T>(fn: (tx: Tx) => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      const client = await this.pool.connect();
      let broken = false;
      try {
        await client.query("BEGIN");
        try {
          const notices: string[] = [];
          const result = await fn(this.transaction(client, notices));
          for (const notice of notices) await client.query("SELECT pg_notify($1, $2)", [channel, notice]);
          await client.query("COMMIT");
          return result;
        } catch (error) {
          await client.query("ROLLBACK").catch(() => (broken = true));
          throw error;
        }
      } catch (error) {
        const code = (error as { code?: string }).code;
        if (code === undefined || !retriable.has(code) || attempt >= 20) throw error;
        await new Promise((r) => setTimeout(r, Math.min(200, 5 * attempt)));
      } finally {
        client.release(broken);
      }
    }
  }

  private transaction(client: pg.PoolClient, notices: string[]): Tx {
    const reader = queries(client);
    return {
      ...reader,
      forUpdate: " FOR UPDATE",
      lock: async (namespace, keys) => {
        if (keys.length === 0) return;
        // Acquired in hash order (the OFFSET 0 keeps the ordered subquery from being flattened); a rare
        // deadlock from a hash collision is detected by PostgreSQL and the transaction retried.
        await client.query({
          text: "SELECT pg_advisory_xact_lock($1, h) FROM (SELECT DISTINCT hashtext(k) AS h FROM jsonb_array_elements_text($2::jsonb) AS k ORDER BY h OFFSET 0) AS keys",
          values: [namespace, JSON.stringify(keys)],
        });
      },
      run: async (sql, params = []) =>
        (await client.query({ text: numbered(sql), values: params as SqlValue[] })).rowCount ?? 0,
      upsert: async (table, columns, key, rows) => {
        const updates = columns.filter((c) => !key.includes(c)).map((c) => `${c} = EXCLUDED.${c}`);
        const action = updates.length === 0 ? "NOTHING" : `UPDATE SET ${updates.join(", ")}`;
        for (const chunk of chunkRows(rows, columns.length)) {
          await client.query({
            text: numbered(
              `${insertValues(table, columns, chunk.length)} ON CONFLICT (${key.join(", ")}) DO ${action}`,
            ),
            values: chunk.flat() as SqlValue[],
          });
        }
      },
      insertIgnore: async (table, columns, rows) => {
        let inserted = 0;
        for (const chunk of chunkRows(rows, columns.length)) {
          inserted +=
            (
              await client.query({
                text: numbered(`${insertValues(table, columns, chunk.length)} ON CONFLICT DO NOTHING`),
                values: chunk.flat() as SqlValue[],
              })
            ).rowCount ?? 0;
        }
        return inserted;
      },
      notify: (payload) => void notices.push(payload),
    };
  }

  async exec(statements: readonly string[]): Promise<void> {
    await this.write(async (tx) => {
      for (const sql of statements) await tx.run(sql);
    });
  }

  onNotice(listener: (payload: string) => void): () => void {
    this.listeners.add(listener);
    this.listening ??= this.listen();
    return () => this.listeners.delete(listener);
  }

  /** One dedicated connection LISTENs; it reconnects after a loss. */
  private async listen(): Promise<void> {
    while (!this.closed) {
      const client = new pg.Client({ connectionString: this.url, types });
      try {
        await client.connect();
        client.on("notification", (message) => {
          if (message.channel !== channel || message.payload === undefined) return;
          for (const listener of this.listeners) listener(message.payload);
        });
        await client.query(`LISTEN ${channel}`);
        this.listener = client;
        await new Promise<void>((resolve) => {
          client.on("error", () => resolve());
          client.on("end", () => resolve());
        });
      } catch {
        // reconnect below
      } finally {
        await client.end().catch(() => undefined);
      }
      if (!this.closed) await new Promise((r) => setTimeout(r, 1_000));
    }
  }

  async ping(timeoutMs: number): Promise<boolean> {
    const timer = new Promise<boolean>((resolve) => setTimeout(() => resolve(false), timeoutMs).unref());
    return Promise.race([
      this.pool.query("SELECT 1").then(
        () => true,
        () => false,
      ),
      timer,
    ]);
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.listener?.end().catch(() => undefined);
    await this.pool.end();
  }
}
