import { defineConfig } from "vitest/config";

// The property tests run hundreds of generated logs: seconds on a quiet machine, more on a shared two-core one.
export default defineConfig({ test: { testTimeout: 60_000 } });
