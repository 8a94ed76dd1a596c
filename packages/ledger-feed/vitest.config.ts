import { defineConfig } from "vitest/config";
import { fromSource } from "../../vitest.source.ts";

// Against a replicated three-node cluster on a shared two-core machine, a first transaction or a
// leader election takes seconds: a minute per test, with the waits inside each test bounded.
export default defineConfig({ test: { ...fromSource, testTimeout: 60_000, hookTimeout: 120_000 } });
