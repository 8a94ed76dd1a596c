import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    // The integration file shares the broker: one file at a time on a 2-core machine.
    fileParallelism: false,
    testTimeout: 60_000,
    hookTimeout: 120_000,
    include: ["test/**/*.test.ts"],
  },
});
