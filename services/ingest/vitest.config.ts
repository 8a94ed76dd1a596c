import { defineConfig } from "vitest/config";
import { fromSource } from "../../vitest.source.ts";

export default defineConfig({
  test: {
    ...fromSource,
    // Integration files share the broker (and one of them stops its own); run files one at a time.
    fileParallelism: false,
    testTimeout: 60_000,
    hookTimeout: 180_000,
    include: ["src/**/*.test.ts", "test/**/*.test.ts"],
  },
});
