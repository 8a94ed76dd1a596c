import { defineConfig } from "vitest/config";
import { fromSource } from "../../vitest.source.ts";

// Unit tests only (stub servers, no broker): the live tests against the ledger and the mesh are in tests/clients.
export default defineConfig({
  test: {
    ...fromSource,
    testTimeout: 60_000,
    include: ["src/**/*.test.ts", "test/**/*.test.ts"],
  },
});
