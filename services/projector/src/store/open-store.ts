/** The store a configuration names: PostgreSQL when A2A_LEDGER_PROJECTOR_DATABASE_URL is set, else the SQLite file. */
import type { StoreConfig } from "../config.ts";
import { PostgresStore } from "./postgres-store.ts";
import { SqliteStore } from "./sqlite-store.ts";
import type { Store } from "./store.ts";

export function openStore(config: StoreConfig): Store {
  return config.kind === "postgres" ? new PostgresStore(config.url) : new SqliteStore(config.path);
}
