/**
 * `npm run infra:up | infra:down | infra:status` — the local stack for development and tests.
 */
import { ConfigError, loadConfig } from "./config.ts";
import { MissingToolError } from "./java.ts";
import { down, readStackState, up } from "./stack.ts";

const command = process.argv[2];
try {
  const config = loadConfig();
  if (command === "up") {
    const started = Date.now();
    const state = await up(config, (line) => console.log(line));
    console.log(`stack up in ${((Date.now() - started) / 1000).toFixed(1)} s (${state.strategy})`);
    console.log(`export KAFKA_BROKERS=${state.brokers} SCHEMA_REGISTRY_URL=${state.registryUrl}`);
  } else if (command === "down") {
    const stopped = await down(config);
    console.log(stopped.length ? `stopped: ${stopped.join(", ")}` : "nothing was running");
  } else if (command === "status") {
    const state = readStackState(config);
    console.log(state ? JSON.stringify(state, null, 2) : "not started (no stack.json)");
  } else {
    console.error("usage: infra up | down | status");
    process.exit(2);
  }
} catch (error) {
  if (error instanceof ConfigError || error instanceof MissingToolError) {
    console.error(`error: ${error.message}`);
    process.exit(2);
  }
  throw error;
}
