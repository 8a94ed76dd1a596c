import { defineConfig } from "vitest/config";

// Against a replicated three-node cluster on a shared two-core machine, a first transaction or a
// leader election takes seconds: a minute per test, with the waits inside each test bounded.
export default defineConfig({ test: { testTimeout: 60_000, hookTimeout: 120_000 } });
