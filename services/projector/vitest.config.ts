import { defineConfig } from "vitest/config";
import { fromSource } from "../../vitest.source.ts";

export default defineConfig({
  test: {
    ...fromSource,
    // Integration files share the broker, a PostgreSQL server and Chromium on two cores: one file at a time.
    fileParallelism: false,
    testTimeout: 120_000,
    hookTimeout: 180_000,
    include: ["src/**/*.test.ts", "test/**/*.test.ts"],
  },
});
