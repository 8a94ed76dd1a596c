/**
 * The stores view tests run against: SQLite in a temporary file, and PostgreSQL (a fresh database on
 * the server of postgres.ts). `describe.each(storeKinds)` runs one suite on both.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll } from "vitest";
import { migrate } from "../src/store/generations.ts";
import { PostgresStore } from "../src/store/postgres-store.ts";
import { SqliteStore } from "../src/store/sqlite-store.ts";
import type { Store } from "../src/store/store.ts";
import { freshDatabase, type PostgresServer, startPostgres } from "./postgres.ts";

export const storeKinds = ["sqlite", "postgres"] as const;
export type StoreKind = (typeof storeKinds)[number];

let server: Promise<PostgresServer> | undefined;
const cleanups: (() => Promise<void>)[] = [];

/** Registers the file's hooks: the PostgreSQL server starts on first use and stops after the file. */
export function useStores(): void {
  beforeAll(() => undefined);
  afterAll(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => undefined);
    if (server !== undefined) await (await server).stop();
    server = undefined;
  });
}

/** Where a new store of a kind lives: a SQLite file path or a PostgreSQL URL. */
export async function storeLocation(kind: StoreKind): Promise<string> {
  if (kind === "sqlite") {
    const dir = mkdtempSync(join(tmpdir(), "projector-sqlite-"));
    cleanups.push(async () => rmSync(dir, { recursive: true, force: true }));
    return join(dir, "projector.sqlite");
  }
  server ??= startPostgres();
  return freshDatabase((await server).url);
}

export function openStoreAt(kind: StoreKind, location: string): Store {
  return kind === "sqlite" ? new SqliteStore(location) : new PostgresStore(location);
}

/** A migrated, empty store of `kind`; closed after the file. */
export async function newStore(kind: StoreKind): Promise<Store> {
  const store = openStoreAt(kind, await storeLocation(kind));
  cleanups.push(() => store.close());
  await migrate(store);
  return store;
}
