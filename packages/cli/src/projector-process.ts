/**
 * The projector runs as its own process: its entry point is found through the workspace package
 * (`@a2a-ledger/projector/package.json`) and started with tsx, never imported, so the CLI carries no
 * service code.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";

export function projectorEntry(): string {
  const manifest = createRequire(import.meta.url).resolve("@a2a-ledger/projector/package.json");
  return join(dirname(manifest), "src", "main.ts");
}

/** `node --import tsx <projector>/src/main.ts <args…>` with `env`; stdout and stderr piped. */
export function spawnProjector(args: readonly string[], env: NodeJS.ProcessEnv): ChildProcess {
  return spawn(process.execPath, ["--import", import.meta.resolve("tsx"), projectorEntry(), ...args], { env, stdio: ["ignore", "pipe", "pipe"] });
}

/**
 * Resolves with the page's URL once the projector logged that it is ready (it must log at info);
 * rejects if it exits first. Its JSON log lines at warn and above go to `onWarning` for as long as
 * it runs, the others are dropped.
 */
export function projectorReady(child: ChildProcess, onWarning: (line: string) => void, timeoutMs = 120_000): Promise<string> {
  let pending = "";
  let tail = "";
  let ready = false;
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the projector did not get ready within ${timeoutMs} ms:\n${tail}`)), timeoutMs);
    const onExit = (code: number | null) => {
      clearTimeout(timer);
      reject(new Error(`the projector exited with ${code}:\n${tail}`));
    };
    child.once("exit", onExit);
    child.stderr?.on("data", (chunk: Buffer) => {
      const text = chunk.toString();
      tail = (tail + text).slice(-4_000);
      if (ready) onWarning(text);
    });
    child.stdout?.on("data", (chunk: Buffer) => {
      const lines = (pending + chunk.toString()).split("\n");
      pending = (lines.pop() ?? "").slice(-100_000);
      for (const line of lines) {
        let entry: { level?: unknown; msg?: unknown; url?: unknown };
        try {
          entry = JSON.parse(line) as typeof entry;
        } catch {
          continue;
        }
        if (!ready) tail = (tail + line + "\n").slice(-4_000);
        if (!ready && entry.msg === "projector ready") {
          ready = true;
          clearTimeout(timer);
          child.off("exit", onExit);
          resolve(String(entry.url));
        } else if (ready && typeof entry.level === "number" && entry.level >= 40) {
          onWarning(`${line}\n`);
        }
      }
    });
  });
}
