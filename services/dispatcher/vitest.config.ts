import { defineConfig } from "vitest/config";
import { fromSource } from "../../vitest.source.ts";

export default defineConfig({
  test: {
    ...fromSource,
    // Integration files share the broker and spawn workers and proxies: one file at a time on a 2-core machine.
    fileParallelism: false,
    testTimeout: 90_000,
    hookTimeout: 180_000,
    include: ["src/**/*.test.ts", "test/**/*.test.ts"],
  },
});
