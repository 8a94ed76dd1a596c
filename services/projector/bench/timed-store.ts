/**
 * A store that times what the projector asks of it, for `PROFILE=1 npm run bench`: every statement by
 * its kind and table, the work inside a write transaction that is no statement (projecting, encoding
 * rows), and the commit. What is left of the projector's wall time is spent outside transactions:
 * fetching, decoding, batching. Statements run synchronously on SQLite, so their time is their own;
 * on PostgreSQL it includes the round trip.
 */
import type { Row, SqlValue, Store, Tx } from "../src/store/store.ts";

export interface StoreTimes {
  /** Milliseconds and calls per statement kind (`insert v1_event`, `SELECT … v1_task`, …). */
  statements: Map<string, { ms: number; calls: number }>;
  /** Inside write transactions, outside statements. */
  insideTransactionMs: number;
  /** From the end of a transaction's work to the write's return: the commit. */
  commitMs: number;
  transactions: number;
}

/** `SELECT … FROM v1_task`, `UPDATE v1_offset`, …: the statement's verb and first table. */
function kindOf(sql: string): string {
  const verb = /^\s*(\w+)/.exec(sql)?.[1]?.toUpperCase() ?? "?";
  const table = /\b(?:FROM|INTO|UPDATE)\s+(\w+)/i.exec(sql)?.[1] ?? "?";
  return `${verb} ${table}`;
}

export function timedStore(inner: Store): { store: Store; times: StoreTimes } {
  const times: StoreTimes = { statements: new Map(), insideTransactionMs: 0, commitMs: 0, transactions: 0 };
  let statementMs = 0;
  const timed = async <T>(kind: string, call: () => Promise<T>): Promise<T> => {
    const started = performance.now();
    try {
      return await call();
    } finally {
      const ms = performance.now() - started;
      statementMs += ms;
      const entry = times.statements.get(kind) ?? { ms: 0, calls: 0 };
      entry.ms += ms;
      entry.calls++;
      times.statements.set(kind, entry);
    }
  };
  const wrap = (tx: Tx): Tx => ({
    ...tx,
    all: (sql: string, params?: readonly SqlValue[]): Promise<Row[]> => timed(kindOf(sql), () => tx.all(sql, params)),
    run: (sql: string, params?: readonly SqlValue[]) => timed(kindOf(sql), () => tx.run(sql, params)),
    upsert: (table, columns, key, rows) => timed(`upsert ${table}`, () => tx.upsert(table, columns, key, rows)),
    insertIgnore: (table, columns, rows) => timed(`insert ${table}`, () => tx.insertIgnore(table, columns, rows)),
  });
  const store: Store = {
    dialect: inner.dialect,
    location: inner.location,
    read: (fn) => inner.read(fn),
    exec: (statements) => inner.exec(statements),
    onNotice: (listener) => inner.onNotice(listener),
    ping: (timeoutMs) => inner.ping(timeoutMs),
    close: () => inner.close(),
    async write(fn) {
      let workEnded = 0;
      const result = await inner.write(async (tx) => {
        const started = performance.now();
        const before = statementMs;
        try {
          return await fn(wrap(tx));
        } finally {
          workEnded = performance.now();
          times.insideTransactionMs += workEnded - started - (statementMs - before);
        }
      });
      times.commitMs += performance.now() - workEnded;
      times.transactions++;
      return result;
    },
  };
  return { store, times };
}
