/**
 * Generations of the view tables. Exactly one is active (queries read it, the live projector writes
 * it); a rebuild fills a new one from offset 0 and activates it in one transaction when caught up.
 */
import { bookkeeping, latestVersion, migrations, tableNames, viewTables } from "./schema.ts";
import type { Reader, Store, Tx } from "./store.ts";

export type GenerationState = "building" | "active" | "retired";

export interface Generation {
  gen: number;
  state: GenerationState;
  schemaVersion: number;
}

async function generationRows(reader: Reader): Promise<Generation[]> {
  const rows = await reader.all("SELECT gen, state, schema_version FROM projector_generation ORDER BY gen");
  return rows.map((r) => ({
    gen: Number(r.gen),
    state: String(r.state) as GenerationState,
    schemaVersion: Number(r.schema_version),
  }));
}

/** The active generation as seen inside a reader or transaction. */
export async function activeGeneration(reader: Reader): Promise<number | undefined> {
  const rows = await reader.all("SELECT gen FROM projector_active WHERE id = 1");
  const gen = rows[0]?.gen;
  return gen === undefined || gen === null ? undefined : Number(gen);
}

async function createGeneration(store: Store, state: GenerationState, now: number): Promise<number> {
  const gen = await store.write(async (tx) => {
    const rows = await tx.all("SELECT MAX(gen) AS gen FROM projector_generation");
    const next = Number(rows[0]?.gen ?? 0) + 1;
    await tx.run("INSERT INTO projector_generation (gen, state, schema_version, created_at) VALUES (?, ?, ?, ?)", [
      next,
      "building",
      0,
      now,
    ]);
    return next;
  });
  await upgradeGeneration(store, gen);
  if (state !== "building")
    await store.write((tx) => tx.run("UPDATE projector_generation SET state = ? WHERE gen = ?", [state, gen]));
  return gen;
}

/** Applies every migration newer than the generation's version, one transaction each. */
async function upgradeGeneration(store: Store, gen: number): Promise<void> {
  const current = (await store.read(generationRows)).find((g) => g.gen === gen)?.schemaVersion ?? 0;
  for (const migration of migrations.filter((m) => m.version > current)) {
    await store.exec([
      ...migration.views(gen),
      `UPDATE projector_generation SET schema_version = ${migration.version} WHERE gen = ${gen}`,
    ]);
  }
}

/** PostgreSQL's answers when two instances create the same table or row at the same moment. */
const raceCodes = new Set(["23505", "42P07", "42710"]);

/**
 * Creates the bookkeeping tables, records the migrations known to this code, and makes sure an
 * active generation exists at the latest schema version. Safe to run by several instances at once:
 * the one that loses a creation race runs again and finds what the other created.
 */
export async function migrate(store: Store, now = Date.now()): Promise<number> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await migrateOnce(store, now);
    } catch (error) {
      if (!raceCodes.has(String((error as { code?: unknown }).code)) || attempt >= 5) throw error;
      await new Promise((r) => setTimeout(r, 50 * attempt));
    }
  }
}

async function migrateOnce(store: Store, now: number): Promise<number> {
  await store.exec(bookkeeping);
  await store.write(async (tx) => {
    for (const m of migrations)
      await tx.run("INSERT INTO projector_migration (version, description) VALUES (?, ?) ON CONFLICT DO NOTHING", [
        m.version,
        m.description,
      ]);
  });
  for (let tries = 0; ; tries++) {
    const active = await store.read(activeGeneration);
    if (active !== undefined) {
      await upgradeGeneration(store, active);
      return active;
    }
    const gen = await createGeneration(store, "building", now);
    const won = await store.write(async (tx) => {
      const inserted = await tx.run("INSERT INTO projector_active (id, gen) VALUES (1, ?) ON CONFLICT DO NOTHING", [
        gen,
      ]);
      await tx.run("UPDATE projector_generation SET state = ?, activated_at = ? WHERE gen = ?", [
        inserted === 1 ? "active" : "retired",
        now,
        gen,
      ]);
      return inserted === 1;
    });
    if (won) return gen;
    await dropGeneration(store, gen);
    if (tries > 3) throw new Error("could not settle on an active generation");
  }
}

/** A new, empty generation for a rebuild. */
export function createBuildingGeneration(store: Store, now = Date.now()): Promise<number> {
  return createGeneration(store, "building", now);
}

/** Makes `gen` the active generation; the previous one is retired. */
export async function activate(tx: Tx, gen: number, now = Date.now()): Promise<number | undefined> {
  const previous = await activeGeneration(tx);
  await tx.run("UPDATE projector_active SET gen = ? WHERE id = 1", [gen]);
  await tx.run("UPDATE projector_generation SET state = ?, activated_at = ? WHERE gen = ?", ["active", now, gen]);
  if (previous !== undefined && previous !== gen)
    await tx.run("UPDATE projector_generation SET state = ? WHERE gen = ?", ["retired", previous]);
  return previous;
}

/** Drops a generation's tables and forgets it. Never the active one. */
export async function dropGeneration(store: Store, gen: number): Promise<void> {
  const active = await store.read(activeGeneration);
  if (active === gen) throw new Error(`generation ${gen} is active`);
  await store.exec([
    ...viewTables(gen).map((t) => `DROP TABLE IF EXISTS ${t}`),
    `DELETE FROM projector_generation WHERE gen = ${gen}`,
  ]);
}

/** Retired generations and abandoned builds other than `keep`. */
export async function staleGenerations(store: Store, keep: readonly number[]): Promise<number[]> {
  const rows = await store.read(generationRows);
  return rows.filter((g) => g.state !== "active" && !keep.includes(g.gen)).map((g) => g.gen);
}

export { tableNames, latestVersion };
