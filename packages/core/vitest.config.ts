import { defineConfig } from "vitest/config";
import { fromSource } from "../../vitest.source.ts";

// The property tests run hundreds of generated logs: seconds on a quiet machine, more on a shared two-core one.
export default defineConfig({ test: { ...fromSource, testTimeout: 60_000 } });
