/**
 * Entry point: configuration from the environment, then the proxy until SIGTERM or SIGINT, which stop
 * taking requests and give the buffered observations the shutdown grace to reach the ledger. A bad
 * configuration, or a spool directory that cannot be used (another live proxy holds it, it cannot be
 * created or read), exits with code 2.
 */
import { stopOnSignal } from "@a2a-ledger/env";
import { createProxyApp } from "./app.ts";
import { ConfigError } from "@a2a-ledger/env";
import { loadConfig } from "./config.ts";
import { SpoolUnavailableError } from "./observation-spool.ts";

async function main(): Promise<void> {
  let config;
  try {
    config = loadConfig();
  } catch (e) {
    if (e instanceof ConfigError) {
      process.stderr.write(`${e.message}\n`);
      process.exit(2);
    }
    throw e;
  }
  let app;
  try {
    app = createProxyApp(config, { defaultMetrics: true });
  } catch (e) {
    if (e instanceof SpoolUnavailableError) {
      process.stderr.write(`${e.message}\n`);
      process.exit(2);
    }
    throw e;
  }
  const stopped = stopOnSignal({ log: app.log, graceMs: config.shutdownGraceMs + 5_000, stop: () => app.close() });
  await app.listen();
  process.exit(await stopped);
}

await main();
