/**
 * What every route plugin of the projector's API reads: the views (the active generation's tables), the
 * page and cursor helpers, and the service's parts. `buildServer` makes one and registers each plugin
 * of this folder with it (fastify's `register`, with the plugin's prefix).
 */
import type { PolicySource } from "@a2a-ledger/core";
import type { Cursors } from "../cursor.ts";
import { ProjectorError } from "../errors.ts";
import type { LiveStream } from "../live-stream.ts";
import type { ProjectorMetrics } from "../metrics.ts";
import type { KafkaView } from "../server.ts";
import { activeGeneration } from "../store/generations.ts";
import { type Tables, tableNames } from "../store/schema.ts";
import type { Reader, Store } from "../store/store.ts";

export interface RouteContext {
  store: Store;
  stream: LiveStream;
  metrics: ProjectorMetrics;
  kafka: KafkaView;
  cursors: Cursors;
  policy: PolicySource;
  maxStreams: number;
  now: () => number;
  /** Whether the server is closing (readiness says so). */
  closing: () => boolean;
  /** A read of the active generation's views; PROJECTOR_UNAVAILABLE before there is one. */
  views<T>(fn: (r: Reader, t: Tables) => Promise<T>): Promise<T>;
}

export function viewsOf(store: Store): RouteContext["views"] {
  return (fn) =>
    store.read(async (r) => {
      const gen = await activeGeneration(r);
      if (gen === undefined) throw new ProjectorError("PROJECTOR_UNAVAILABLE", "The views are not set up yet.");
      return fn(r, tableNames(gen));
    });
}

/** A list's page: the limit asked for (else `fallback`) and the cursor. */
export const page = (q: { limit?: number; cursor?: string }, fallback: number) => ({
  limit: q.limit ?? fallback,
  cursor: q.cursor,
});

/** The prefix alone for a plugin's "/" route (`/v1/tasks`, never also `/v1/tasks/`). */
export const exact = { prefixTrailingSlash: "no-slash" } as const;
