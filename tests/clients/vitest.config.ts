import { defineConfig } from "vitest/config";
import { fromSource } from "../../vitest.source.ts";

// The files share the broker and start workers (the Python ones as processes): one file at a time on a 2-core machine.
export default defineConfig({
  test: { ...fromSource, fileParallelism: false, testTimeout: 60_000, hookTimeout: 120_000 },
});
