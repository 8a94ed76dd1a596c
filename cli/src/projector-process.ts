/**
 * The projector runs as its own process: its compiled entry point in this checkout
 * (`services/projector/dist/main.js`, made by `npm run build`) is started with plain node, never
 * imported, so the CLI carries no service code and has no dependency on it.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { compiledEnv } from "@a2a-ledger/env";
import { repoRoot } from "@a2a-ledger/infra";
import { assertBuilt } from "./build-output.ts";
import { entryPoints } from "./mesh-plan.ts";

/** `node <projector>/dist/main.js <args…>` with `env`; stdout and stderr piped. Throws when the build is not current. */
export function spawnProjector(args: readonly string[], env: NodeJS.ProcessEnv): ChildProcess {
  assertBuilt(repoRoot, "a2a-ledger projector");
  return spawn(process.execPath, [entryPoints(repoRoot).projector, ...args], {
    env: compiledEnv(env),
    stdio: ["ignore", "pipe", "pipe"],
  });
}
