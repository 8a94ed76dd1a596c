import { defineConfig } from "vitest/config";
import { fromSource } from "../vitest.source.ts";

export default defineConfig({
  test: {
    ...fromSource,
    include: ["prometheus/**/*.test.ts"],
  },
});
