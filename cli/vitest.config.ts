import { defineConfig } from "vitest/config";
import { fromSource } from "../vitest.source.ts";

// Replays of generated logs and the real broker take seconds on a shared two-core machine.
export default defineConfig({ test: { ...fromSource, testTimeout: 60_000, hookTimeout: 300_000 } });
