/**
 * The dispatcher's process: configuration from the environment (and the workers file), then the command
 * consumer, the canary watch and the HTTP server until SIGTERM or SIGINT; resolves with the exit code.
 * Logs JSON lines on stdout; the first at level info once serving is `{"msg":"listening","url":…}`.
 * `main.ts` runs it as the service; the crash tests' entry point (`test/held-dispatcher.ts`) runs it with hooks.
 */
import { stopOnSignal, ConfigError } from "@a2a-ledger/env";
import { createLogger } from "@a2a-ledger/logging";
import { readinessReason } from "@a2a-ledger/kafka";
import { loadConfig, type DispatcherConfig } from "./config.ts";
import { type DispatchHooks, Dispatcher } from "./dispatcher.ts";

import { createMetrics } from "./metrics.ts";
import { buildServer } from "./server.ts";

export async function runDispatcherProcess(hooks: DispatchHooks = {}): Promise<number> {
  let config: DispatcherConfig;
  try {
    config = loadConfig();
  } catch (e) {
    if (e instanceof ConfigError) {
      process.stderr.write(`${e.message}\n`);
      return 2;
    }
    throw e;
  }
  const log = createLogger("dispatcher", config.logLevel);
  if (config.workers.workers.size === 0)
    log.warn(
      "no worker is configured (A2A_LEDGER_DISPATCHER_WORKERS_FILE): every command will be refused with DISPATCHER_WORKER_NOT_CONFIGURED",
    );
  const metrics = createMetrics({ defaultMetrics: true });
  const dispatcher = new Dispatcher(config, log, metrics, hooks);
  const server = buildServer({
    metrics,
    logLevel: config.logLevel,
    health: () => {
      const refused = dispatcher.accessFailure;
      return {
        running: dispatcher.isRunning && refused === undefined,
        detail: {
          commands: dispatcher.isRunning ? dispatcher.journal.countByStatus() : {},
          ...readinessReason(refused),
        },
      };
    },
  });
  const stopped = stopOnSignal({
    log,
    graceMs: 30_000,
    stop: async () => {
      await server.close().catch(() => undefined);
      await dispatcher.stop();
    },
  });
  // Refused by Kafka (credentials, certificate, ACL): no retry loop; /healthz answers 503 with the reason.
  await dispatcher.start().catch((e: unknown) => {
    if (dispatcher.refusedBy(e) === undefined) throw e;
  });
  const url = await server.listen({ host: config.host, port: config.port });
  log.info({ url, metrics: `${url}/metrics`, healthz: `${url}/healthz` }, "listening");
  return stopped;
}
