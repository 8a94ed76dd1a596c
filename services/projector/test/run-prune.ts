/** The projector's own entry point as `prune --before <date>`, run to completion. */
import { spawn } from "node:child_process";

const mainFile = new URL("../src/main.ts", import.meta.url).pathname;

/** `src/main.ts prune --before <date>` to completion: its exit code and output. */
export function runPrune(env: NodeJS.ProcessEnv, before: string): Promise<{ code: number | null; output: string }> {
  const child = spawn(process.execPath, ["--import", "tsx", mainFile, "prune", "--before", before], {
    env: { ...env, A2A_LEDGER_PROJECTOR_LOG_LEVEL: "info" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout?.on("data", (c: Buffer) => (output += c.toString()));
  child.stderr?.on("data", (c: Buffer) => (output += c.toString()));
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill("SIGKILL"), 60_000);
    child.on("exit", (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}
