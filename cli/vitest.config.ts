import { defineConfig } from "vitest/config";

// Replays of generated logs and the real broker take seconds on a shared two-core machine.
export default defineConfig({ test: { testTimeout: 60_000, hookTimeout: 300_000 } });
