/**
 * Entry point: configuration from the environment, then the proxy until SIGTERM or SIGINT, which stop
 * taking requests and give the buffered observations the shutdown grace to reach the ledger.
 */
import { createProxyApp } from "./app.ts";
import { loadConfig, ProxyConfigError } from "./config.ts";

async function main(): Promise<void> {
  let config;
  try {
    config = loadConfig();
  } catch (e) {
    if (e instanceof ProxyConfigError) {
      process.stderr.write(`${e.message}\n`);
      process.exit(2);
    }
    throw e;
  }
  const app = createProxyApp(config, { defaultMetrics: true });
  let stopping = false;
  const stop = () => {
    if (stopping) return;
    stopping = true;
    const hardStop = setTimeout(() => process.exit(1), config.shutdownGraceMs + 5_000);
    hardStop.unref();
    app.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.on("SIGTERM", stop);
  process.on("SIGINT", stop);
  await app.listen();
}

await main();
