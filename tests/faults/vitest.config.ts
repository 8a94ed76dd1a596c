import { defineConfig } from "vitest/config";

// One scenario at a time: each runs the whole ledger on the one cluster and breaks a part of it.
export default defineConfig({ test: { fileParallelism: false, testTimeout: 900_000, hookTimeout: 600_000 } });
