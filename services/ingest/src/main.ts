/**
 * Entry point: configuration from the environment, then the HTTP server until SIGTERM or SIGINT,
 * which drain in-flight batches before the process exits.
 */
import { stopOnSignal } from "@a2a-ledger/env";
import { createIngestApp } from "./app.ts";
import { ConfigError } from "@a2a-ledger/env";
import { loadConfig } from "./config.ts";

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
  const { server } = createIngestApp(config, { defaultMetrics: true });
  // Closing drains the in-flight batches; their own grace is shutdownGraceMs.
  const stopped = stopOnSignal({
    log: server.log,
    graceMs: config.shutdownGraceMs + 5_000,
    stop: () => server.close(),
  });
  await server.listen({ host: config.host, port: config.port });
  server.log.info(
    { topic: config.topic, brokers: config.brokers, auth: config.tokens.length > 0 },
    "ingest ready for observations",
  );
  process.exit(await stopped);
}

await main();
