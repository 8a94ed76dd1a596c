/**
 * `npm start -w @a2a-ledger/reconciler`: runs the reconciler until SIGTERM or SIGINT.
 */
import { loadReconcilerConfig } from "./config.ts";
import { ReconcilerConfigError } from "./errors.ts";
import { stopOnSignal } from "@a2a-ledger/env";
import { createLogger } from "@a2a-ledger/logging";
import { Reconciler } from "./reconciler.ts";

let config: ReturnType<typeof loadReconcilerConfig>;
try {
  config = loadReconcilerConfig();
} catch (error) {
  if (error instanceof ReconcilerConfigError) {
    console.error(JSON.stringify({ level: "error", code: error.code, message: error.message }));
    process.exit(2);
  }
  throw error;
}

const log = createLogger("reconciler");
const reconciler = new Reconciler(config, log);
const server = config.metricsPort === undefined ? undefined : await reconciler.metrics.serve(config.metricsPort, () => reconciler.isRunning);
const stopped = stopOnSignal({
  log,
  graceMs: 30_000,
  stop: async () => {
    try {
      await reconciler.stop();
    } finally {
      server?.close();
    }
  },
});
await reconciler.start();
process.exit(await stopped);
