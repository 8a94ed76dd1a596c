/**
 * Entry point: configuration from the environment, then the HTTP server until SIGTERM or SIGINT,
 * which drain in-flight batches before the process exits.
 */
import { createIngestApp } from "./app.ts";
import { IngestConfigError, loadConfig } from "./config.ts";

async function main(): Promise<void> {
  let config;
  try {
    config = loadConfig();
  } catch (e) {
    if (e instanceof IngestConfigError) {
      process.stderr.write(`${e.message}\n`);
      process.exit(2);
    }
    throw e;
  }
  const { server } = createIngestApp(config, { defaultMetrics: true });
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    server.log.info({ signal }, "draining in-flight batches before stopping");
    const hardStop = setTimeout(() => {
      server.log.error("shutdown grace exceeded; exiting");
      process.exit(1);
    }, config.shutdownGraceMs + 5_000);
    hardStop.unref();
    server.close().then(
      () => process.exit(0),
      (err: unknown) => {
        server.log.error({ err }, "shutdown failed");
        process.exit(1);
      },
    );
  };
  process.on("SIGTERM", () => stop("SIGTERM"));
  process.on("SIGINT", () => stop("SIGINT"));
  await server.listen({ host: config.host, port: config.port });
  server.log.info({ topic: config.topic, brokers: config.brokers, auth: config.tokens.length > 0 }, "ingest ready for observations");
}

await main();
