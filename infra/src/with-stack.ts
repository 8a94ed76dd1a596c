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
import { down, readStackState, up } from "./stack.ts";

const [command, ...args] = process.argv.slice(2);
if (command === undefined) {
  console.error("usage: with-stack <command> [args...]");
  process.exit(2);
}

const config = loadConfig();
let started = false;
let env: NodeJS.ProcessEnv = process.env;

async function running(): Promise<{ brokers: string; registryUrl: string } | undefined> {
  const state = readStackState(config);
  const endpoints = config.externalBrokers ? endpointsFromEnv() : state;
  if (!endpoints) return undefined;
  const ok = (await brokerAnswers(endpoints.brokers).catch(() => false)) && (await registryAnswers(endpoints.registryUrl).catch(() => false));
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
env = { ...process.env, KAFKA_BROKERS: endpoints.brokers, SCHEMA_REGISTRY_URL: endpoints.registryUrl };

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
