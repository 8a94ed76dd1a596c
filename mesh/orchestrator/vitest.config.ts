import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    // The end-to-end test runs the whole mesh as processes: one file at a time on a 2-core machine.
    fileParallelism: false,
    testTimeout: 60_000,
    hookTimeout: 300_000,
    include: ["src/**/*.test.ts", "test/**/*.test.ts"],
  },
});
