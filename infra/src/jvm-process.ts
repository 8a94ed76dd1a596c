/**
 * Starts a JVM as a detached background process with its output in a log file and its pid in a
 * file, and stops it again: SIGTERM, then SIGKILL after a grace period.
 *
 * The pid file holds the pid and, where /proc tells it, the process's start time. Pids are reused
 * (Linux wraps them at `kernel.pid_max`, often 32,768), so a pid file left by a JVM that died names,
 * sooner or later, an unrelated process: a start time that differs marks the file stale, and nothing
 * signals the stranger.
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

/** A process's start time in clock ticks since boot (field 22 of /proc/<pid>/stat); undefined without /proc. */
export function startTimeOf(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // The command name (field 2) may hold spaces and parentheses: count fields after the last ')'.
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19];
  } catch {
    return undefined;
  }
}

/** The pid of the process the pid file names, when that very process still runs. */
export function runningPid(files: ProcessFiles): number | undefined {
  if (!existsSync(files.pidFile)) return undefined;
  const [pidLine = "", started = ""] = readFileSync(files.pidFile, "utf8").split("\n");
  const pid = Number(pidLine.trim());
  if (!Number.isInteger(pid) || pid <= 0 || !isAlive(pid)) return undefined;
  const now = started.trim() === "" ? undefined : startTimeOf(pid);
  return now === undefined || now === started.trim() ? pid : undefined;
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
  writeFileSync(files.pidFile, `${child.pid}\n${startTimeOf(child.pid) ?? ""}\n`);
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
