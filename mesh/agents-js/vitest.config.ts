import { defineConfig } from "vitest/config";
import { fromSource } from "../../vitest.source.ts";

export default defineConfig({
  test: {
    ...fromSource,
    // Files spawn worker processes: one at a time on a 2-core machine.
    fileParallelism: false,
    testTimeout: 60_000,
    hookTimeout: 60_000,
    include: ["src/**/*.test.ts", "test/**/*.test.ts"],
  },
});
