/**
 * Runs a command with the stack available: reuses a running stack, or starts one and stops it
 * afterwards (also when the command fails or is interrupted). `npm test` runs through this, so one
 * command passes the tests on a fresh machine.
 *
 *   tsx infra/src/with-stack.ts <command> [args...]
 */
import { spawn } from "node:child_process";
import { endpointsFromEnv } from "@a2a-ledger/kafka";
import { loadConfig } from "./config.ts";
import { brokerAnswers, registryAnswers } from "./readiness.ts";
import { chooseStrategy, down, readStackState, up } from "./stack.ts";

const [command, ...args] = process.argv.slice(2);
if (command === undefined) {
  console.error("usage: with-stack <command> [args...]");
  process.exit(2);
}

/**
 * The tests run against a replicated cluster: three Kafka nodes unless A2A_LEDGER_KAFKA_NODES says
 * otherwise (A2A_LEDGER_KAFKA_NODES=1 for a quicker local loop). Services the tests start, and the
 * fault suite that signals the nodes, find the layout in the same variable and in stack.json.
 */
const nodes = process.env.A2A_LEDGER_KAFKA_NODES?.trim() || (chooseStrategy(loadConfig()) === "native" ? "3" : "1");
const testEnv: NodeJS.ProcessEnv = { ...process.env, A2A_LEDGER_KAFKA_NODES: nodes };
const config = loadConfig(testEnv);
let started = false;
let env: NodeJS.ProcessEnv = testEnv;

async function running(): Promise<{ brokers: string; registryUrl: string } | undefined> {
  const state = readStackState(config);
  const endpoints = config.externalBrokers ? endpointsFromEnv() : state;
  if (!endpoints) return undefined;
  const ok =
    (await brokerAnswers(endpoints.brokers).catch(() => false)) &&
    (await registryAnswers(endpoints.registryUrl).catch(() => false));
  return ok ? endpoints : undefined;
}

let endpoints = await running();
if (endpoints) {
  console.log(`[with-stack] using the running stack: ${endpoints.brokers}, ${endpoints.registryUrl}`);
} else {
  const t0 = Date.now();
  const state = await up(config, (line) => console.log(`[with-stack] ${line}`));
  console.log(`[with-stack] stack up in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  started = true;
  endpoints = state;
}
env = {
  ...testEnv,
  KAFKA_BROKERS: endpoints.brokers,
  SCHEMA_REGISTRY_URL: endpoints.registryUrl,
  A2A_LEDGER_DATA_DIR: config.dataDir,
};

async function stop(): Promise<void> {
  if (!started) return;
  started = false;
  const stopped = await down(config);
  console.log(`[with-stack] stopped: ${stopped.join(", ") || "nothing"}`);
}

const child = spawn(command, args, { stdio: "inherit", env });
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.on(signal, () => child.kill(signal));
}
const code = await new Promise<number>((resolve) => child.on("exit", (c, s) => resolve(c ?? (s ? 128 : 1))));
await stop();
process.exit(code);
