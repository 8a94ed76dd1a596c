/**
 * The projector runs as its own process: its entry point in this checkout (`services/projector/src/main.ts`)
 * is started with tsx, never imported, so the CLI carries no service code and has no dependency on it.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { repoRoot } from "@a2a-ledger/infra";
import { entryPoints } from "./mesh-plan.ts";

/** `node --import tsx <projector>/src/main.ts <args…>` with `env`; stdout and stderr piped. */
export function spawnProjector(args: readonly string[], env: NodeJS.ProcessEnv): ChildProcess {
  return spawn(process.execPath, ["--import", import.meta.resolve("tsx"), entryPoints(repoRoot).projector, ...args], { env, stdio: ["ignore", "pipe", "pipe"] });
}
