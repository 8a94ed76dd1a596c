/**
 * `npm run infra:up | infra:down | infra:status` — the local stack for development and tests.
 */
import { ConfigError, loadConfig } from "./config.ts";
import { MissingToolError } from "./java.ts";
import { down, readStackState, up } from "./stack.ts";

/** `--nodes N` (or `--nodes=N`) sets A2A_LEDGER_KAFKA_NODES, `--secured` A2A_LEDGER_KAFKA_SECURITY=secured, for this command. */
function withFlags(args: readonly string[], env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  let nodes: string | undefined;
  let secured = false;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string;
    if (arg === "--nodes") nodes = args[++i] ?? "";
    else if (arg.startsWith("--nodes=")) nodes = arg.slice("--nodes=".length);
    else if (arg === "--secured") secured = true;
    else
      throw new ConfigError(
        `unknown option ${JSON.stringify(arg)} (usage: infra up|down|status [--nodes N] [--secured])`,
      );
  }
  if (nodes === "") throw new ConfigError("--nodes needs a node count");
  return {
    ...env,
    ...(nodes === undefined ? {} : { A2A_LEDGER_KAFKA_NODES: nodes }),
    ...(secured ? { A2A_LEDGER_KAFKA_SECURITY: "secured" } : {}),
  };
}

const [command, ...args] = process.argv.slice(2);
try {
  const config = loadConfig(withFlags(args, process.env));
  if (command === "up") {
    const started = Date.now();
    const state = await up(config, (line) => console.log(line));
    console.log(`stack up in ${((Date.now() - started) / 1000).toFixed(1)} s (${state.strategy})`);
    if (state.secured === undefined)
      console.log(`export KAFKA_BROKERS=${state.brokers} SCHEMA_REGISTRY_URL=${state.registryUrl}`);
    else
      console.log(
        `export KAFKA_CLIENT_CONFIG=${state.secured.clientConfigs.admin.sasl}  # or <principal>.sasl.properties / <principal>.mtls.properties in ${state.secured.secretsDir}`,
      );
  } else if (command === "down") {
    const stopped = await down(config);
    console.log(stopped.length ? `stopped: ${stopped.join(", ")}` : "nothing was running");
  } else if (command === "status") {
    const state = readStackState(config);
    console.log(state ? JSON.stringify(state, null, 2) : "not started (no stack.json)");
  } else {
    console.error("usage: infra up | down | status [--nodes N] [--secured]");
    process.exit(2);
  }
} catch (error) {
  if (error instanceof ConfigError || error instanceof MissingToolError) {
    console.error(`error: ${error.message}`);
    process.exit(2);
  }
  throw error;
}
