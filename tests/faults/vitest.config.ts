import { defineConfig } from "vitest/config";
import { fromSource } from "../../vitest.source.ts";

// One scenario at a time: each runs the whole ledger on the one cluster and breaks a part of it.
export default defineConfig({
  test: { ...fromSource, fileParallelism: false, testTimeout: 900_000, hookTimeout: 600_000 },
});
