/**
 * A service as a child process, the way tests and benchmarks run one (`@a2a-ledger/env/testing`): its
 * JSON log lines on stdout are read until one says it is ready; it is stopped with SIGTERM (SIGKILL after
 * a grace period), or killed hard as a crash would.
 */
import { spawn, type ChildProcess } from "node:child_process";

export type LogEntry = Readonly<Record<string, unknown>>;

export interface ChildServiceOptions {
  /** Whether this log line says the service is ready. */
  ready: (entry: LogEntry) => boolean;
  cwd?: string;
  /** The child's whole environment; process.env when not given. */
  env?: NodeJS.ProcessEnv;
  /** How long to wait for readiness (default 30 s); the child is killed when it runs out. */
  startTimeoutMs?: number;
}

export interface ChildService {
  readonly child: ChildProcess;
  /** The log line that said the service is ready (a server's carries its `url`). */
  readonly readyEntry: LogEntry;
  /** Everything the process wrote so far, stdout and stderr. */
  output(): string;
}

/** Ready on the first log line whose `msg` is this one. */
export const readyOnMessage =
  (msg: string) =>
  (entry: LogEntry): boolean =>
    entry.msg === msg;

function isExited(child: ChildProcess): boolean {
  return child.exitCode !== null || child.signalCode !== null;
}

/** Starts `command` and resolves once it logged that it is ready; rejects when it exits or times out first. */
export function spawnService(
  name: string,
  command: string,
  args: readonly string[],
  options: ChildServiceOptions,
): Promise<ChildService> {
  const timeoutMs = options.startTimeoutMs ?? 30_000;
  const child = spawn(command, args, {
    cwd: options.cwd,
    env: options.env ?? process.env,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  let pending = "";
  return new Promise((resolve, reject) => {
    let settled = false;
    const settle = (result: { entry: LogEntry } | { error: Error }) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if ("error" in result) reject(result.error);
      else resolve({ child, readyEntry: result.entry, output: () => output });
    };
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      settle({ error: new Error(`${name} did not start within ${timeoutMs} ms:\n${output}`) });
    }, timeoutMs);
    child.stdout?.on("data", (chunk: Buffer) => {
      const text = chunk.toString("utf8");
      output += text;
      if (settled) return;
      pending += text;
      let newline: number;
      while ((newline = pending.indexOf("\n")) !== -1) {
        const line = pending.slice(0, newline);
        pending = pending.slice(newline + 1);
        let entry: unknown;
        try {
          entry = JSON.parse(line);
        } catch {
          continue; // not a log line
        }
        if (typeof entry === "object" && entry !== null && options.ready(entry as LogEntry)) {
          pending = "";
          settle({ entry: entry as LogEntry });
          return;
        }
      }
    });
    child.stderr?.on("data", (chunk: Buffer) => void (output += chunk.toString("utf8")));
    child.once("exit", (code, signal) =>
      settle({ error: new Error(`${name} exited (${code ?? signal}) before it was ready:\n${output}`) }),
    );
  });
}

/** SIGTERM, then SIGKILL when the child outlives the grace period; resolves once it exited. */
export function stopChild(child: ChildProcess, graceMs = 30_000): Promise<void> {
  return new Promise((resolve) => {
    if (isExited(child)) return resolve();
    const timer = setTimeout(() => child.kill("SIGKILL"), graceMs);
    child.once("exit", () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill("SIGTERM");
  });
}

/** SIGKILL, as a crash would; resolves once the child exited. */
export function killHard(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (isExited(child)) return resolve();
    child.once("exit", () => resolve());
    child.kill("SIGKILL");
  });
}
