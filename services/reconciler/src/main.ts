/**
 * `npm start -w @a2a-ledger/reconciler`: runs the reconciler until SIGTERM or SIGINT.
 */
import { loadReconcilerConfig } from "./config.ts";
import { ReconcilerConfigError } from "./errors.ts";
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
let stopping = false;
for (const signal of ["SIGTERM", "SIGINT"] as const) {
  process.on(signal, () => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, "stopping");
    const force = setTimeout(() => process.exit(1), 30_000);
    void reconciler.stop().finally(() => {
      clearTimeout(force);
      server?.close();
      process.exit(0);
    });
  });
}
await reconciler.start();
