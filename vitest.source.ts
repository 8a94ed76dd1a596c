/**
 * Tests run the TypeScript sources. Vitest resolves the workspaces' `development` export condition by
 * itself; `fromSource` (spread into each workspace's vitest `test` options) hands it to the processes a
 * test starts, through NODE_OPTIONS, so they too import the other workspaces' src/ and never a build in
 * dist/ that may be missing or stale.
 *
 * It also sets what `expect.poll` waits by default: 10 s, not vitest's 1 s. A poll is a wait for a
 * condition, and on a loaded two-core machine a proxy, a worker thread or a page can take longer than a
 * second to get there; a poll that passes returns as soon as it holds, so only a failing one waits longer.
 */
import { withSourceCondition } from "./packages/env/src/node-entry.ts";

export const fromSource = {
  env: { NODE_OPTIONS: withSourceCondition(process.env.NODE_OPTIONS) },
  expect: { poll: { timeout: 10_000 } },
};
