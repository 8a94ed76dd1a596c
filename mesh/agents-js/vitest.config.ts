import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    // Files spawn worker processes: one at a time on a 2-core machine.
    fileParallelism: false,
    testTimeout: 60_000,
    hookTimeout: 60_000,
    include: ["src/**/*.test.ts", "test/**/*.test.ts"],
  },
});
