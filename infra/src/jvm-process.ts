/**
 * Starts a JVM as a detached background process with its output in a log file and its pid in a
 * file, and stops it again: SIGTERM, then SIGKILL after a grace period.
 */
import { spawn } from "node:child_process";
import { closeSync, existsSync, openSync, readFileSync, rmSync, writeFileSync } from "node:fs";

export interface ProcessFiles {
  pidFile: string;
  logFile: string;
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

export function runningPid(files: ProcessFiles): number | undefined {
  if (!existsSync(files.pidFile)) return undefined;
  const pid = Number(readFileSync(files.pidFile, "utf8").trim());
  return Number.isInteger(pid) && pid > 0 && isAlive(pid) ? pid : undefined;
}

export function startDetached(
  command: string,
  args: string[],
  files: ProcessFiles,
  env: NodeJS.ProcessEnv = process.env,
  cwd?: string,
): number {
  const out = openSync(files.logFile, "a");
  const child = spawn(command, args, { detached: true, stdio: ["ignore", out, out], env, cwd });
  closeSync(out);
  if (child.pid === undefined) throw new Error(`could not start ${command}`);
  child.unref();
  writeFileSync(files.pidFile, `${child.pid}\n`);
  return child.pid;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Stops the process of `files` if it runs; resolves once it is gone. */
export async function stopProcess(
  files: ProcessFiles,
  graceMs = 30_000,
  signal: NodeJS.Signals = "SIGTERM",
): Promise<boolean> {
  const pid = runningPid(files);
  if (pid === undefined) {
    rmSync(files.pidFile, { force: true });
    return false;
  }
  process.kill(pid, signal);
  const deadline = Date.now() + graceMs;
  while (isAlive(pid) && Date.now() < deadline) await sleep(200);
  if (isAlive(pid)) {
    process.kill(pid, "SIGKILL");
    for (let i = 0; i < 50 && isAlive(pid); i++) await sleep(100);
  }
  rmSync(files.pidFile, { force: true });
  return true;
}

/** The last lines of a log, for error messages. */
export function tail(file: string, lines = 25): string {
  if (!existsSync(file)) return "(no output)";
  return readFileSync(file, "utf8").split("\n").slice(-lines).join("\n");
}
