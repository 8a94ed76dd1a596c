/**
 * `npm start -w @a2a-ledger/reconciler`: runs the reconciler until SIGTERM or SIGINT.
 */
import { loadReconcilerConfig } from "./config.ts";
import { stopOnSignal, ConfigError } from "@a2a-ledger/env";
import { createLogger } from "@a2a-ledger/logging";
import { accessFailureOf, processClientConfig, topicSpecs } from "@a2a-ledger/kafka";
import { Reconciler } from "./reconciler.ts";

let config: ReturnType<typeof loadReconcilerConfig>;
try {
  config = loadReconcilerConfig();
} catch (error) {
  if (error instanceof ConfigError) {
    console.error(JSON.stringify({ level: "error", code: error.code, message: error.message }));
    process.exit(2);
  }
  throw error;
}

const log = createLogger("reconciler");
const reconciler = new Reconciler(config, log);
const server =
  config.metricsPort === undefined
    ? undefined
    : await reconciler.metrics.serve(config.metricsPort, () => reconciler.isRunning);
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
/** Refused by Kafka (credentials, certificate, ACL): no retry can cure it; says why and exits 3. */
function exitIfRefused(error: unknown): void {
  const refused = accessFailureOf(error, {
    topics: topicSpecs(config.topics).map((t) => t.name),
    groupId: config.groupId,
    client: processClientConfig(),
  });
  if (refused === undefined) return;
  log.error({ code: refused.code, resource: refused.resource }, refused.message);
  server?.close();
  process.exit(3);
}
reconciler.onFatal = exitIfRefused;
try {
  await reconciler.start();
} catch (error) {
  exitIfRefused(error);
  throw error;
}
process.exit(await stopped);
