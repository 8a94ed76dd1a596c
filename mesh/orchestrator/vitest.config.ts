import { defineConfig } from "vitest/config";
import { fromSource } from "../../vitest.source.ts";

export default defineConfig({
  test: {
    ...fromSource,
    // The end-to-end test runs the whole mesh as processes: one file at a time on a 2-core machine.
    fileParallelism: false,
    testTimeout: 60_000,
    hookTimeout: 300_000,
    include: ["src/**/*.test.ts", "test/**/*.test.ts"],
  },
});
