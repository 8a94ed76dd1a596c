/**
 * Rebuild: the views from offset 0 into a fresh generation of tables, read by a throwaway consumer
 * group, while queries keep reading the active generation. Once the new generation has caught up with
 * the end of every input partition it is activated in one transaction; a running projector notices
 * the switch, finds the new generation's offsets behind its own position and seeks back to them, so
 * nothing between the catch-up and the switch is lost. The old generation is dropped a little later,
 * when no query can still be reading it.
 */
import { randomUUID } from "node:crypto";
import type { ProjectorConfig } from "./config.ts";
import type { Logger } from "./logger.ts";
import { createMetrics } from "./metrics.ts";
import { Projector } from "./projector.ts";
import { activate, createBuildingGeneration, dropGeneration, migrate, staleGenerations } from "./store/generations.ts";
import type { Store } from "./store/store.ts";

export interface RebuildOptions {
  /** How long the new generation may take to catch up. */
  timeoutMs?: number;
  /** How long the old generation stays after the switch, for queries still reading it. */
  dropAfterMs?: number;
}

export interface RebuildResult {
  generation: number;
  previous: number | undefined;
  durationMs: number;
}

export async function rebuild(
  config: ProjectorConfig,
  store: Store,
  log: Logger,
  options: RebuildOptions = {},
): Promise<RebuildResult> {
  const started = Date.now();
  await migrate(store);
  for (const gen of await staleGenerations(store, [])) await dropGeneration(store, gen);
  const generation = await createBuildingGeneration(store);
  const groupId = `${config.groupId}-rebuild-${generation}-${randomUUID().slice(0, 8)}`;
  log.info({ generation, groupId }, "rebuilding the views from offset 0 into a new generation");
  const projector = new Projector(config, store, log, createMetrics(), { generation, groupId });
  let previous: number | undefined;
  try {
    await projector.start();
    await projector.caughtUp(options.timeoutMs ?? 6 * 60 * 60 * 1000);
    previous = await store.write((tx) => activate(tx, generation));
    log.info({ generation, previous }, "the rebuilt views are active");
  } catch (error) {
    await projector.stop();
    await dropGeneration(store, generation).catch(() => undefined);
    throw error;
  }
  await projector.stop();
  if (previous !== undefined) {
    await new Promise((r) => setTimeout(r, options.dropAfterMs ?? 5_000));
    await dropGeneration(store, previous);
  }
  return { generation, previous, durationMs: Date.now() - started };
}
