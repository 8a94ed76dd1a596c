/**
 * Tests run the TypeScript sources. Vitest resolves the workspaces' `development` export condition by
 * itself; `fromSource` (spread into each workspace's vitest `test` options) hands it to the processes a
 * test starts, through NODE_OPTIONS, so they too import the other workspaces' src/ and never a build in
 * dist/ that may be missing or stale.
 */
import { withSourceCondition } from "./packages/env/src/node-entry.ts";

export const fromSource = { env: { NODE_OPTIONS: withSourceCondition(process.env.NODE_OPTIONS) } };
