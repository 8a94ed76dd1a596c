/**
 * Runs the ledger's services and the mesh as separate processes, the way a deployment does, and owns
 * them: each process's stdout and stderr go to `<logsDir>/<name>.log`; a process counts as started once
 * its JSON log lines say it is ready (and, for a server, at which URL); processes are stopped in the
 * reverse order of their start (SIGTERM to the process group, SIGKILL after a grace), and a process can be
 * restarted on the port it had.
 *
 * Children get process groups of their own, so a Ctrl-C in the terminal reaches the supervisor only and
 * the shutdown keeps its order (proxies drain into ingest before ingest stops). If the supervisor exits
 * without stopping them, its exit handler kills what is left.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { createWriteStream, mkdirSync, type WriteStream } from "node:fs";
import { join } from "node:path";

/** A JSON log line of a child; a line that is not JSON is `{ msg: line }`. */
export type LogEntry = Record<string, unknown>;

/**
 * Readiness: fed every log line in order until it answers `{ ready: true }` (with the URL the process
 * serves, when it serves one). A fresh one is made for every start.
 */
export type Readiness = () => (entry: LogEntry) => { ready: boolean; url?: string };

export interface ProcessSpec {
  name: string;
  command: string;
  /** The arguments for a start on `port` (0 for the first start; the old port for a restart). */
  args: (port: number) => string[];
  cwd?: string;
  env: NodeJS.ProcessEnv;
  ready: Readiness;
  /** Default 60 s. */
  startTimeoutMs?: number;
  /** Node IPC channel (for the orchestrator's chaos requests). */
  ipc?: boolean;
  /** Called with every log line of the process. */
  onLine?: (entry: LogEntry) => void;
}

export interface Managed {
  readonly spec: ProcessSpec;
  readonly child: ChildProcess;
  readonly url: string | undefined;
  readonly port: number;
  readonly logFile: string;
  /** The log lines seen since this start. */
  readonly lines: LogEntry[];
  /** Resolves with the exit code (or signal) once the process ended. */
  readonly exited: Promise<number | string>;
  /** Resolves with the first line, from now on, that satisfies `predicate`. */
  nextLine(predicate: (entry: LogEntry) => boolean, timeoutMs: number, what: string): Promise<LogEntry>;
}

/** Ready at the first line with this `msg`; the URL from its `url` field when it has one. */
export const readyOnMessage =
  (msg: string): Readiness =>
  () =>
  (entry) => ({ ready: entry.msg === msg, url: typeof entry.url === "string" ? entry.url : undefined });

/** Ready once every message was logged; the URL from the line with `urlMessage`. */
export const readyOnMessages =
  (messages: string[], urlFrom: (entry: LogEntry) => string | undefined): Readiness =>
  () => {
    const pending = new Set(messages);
    let url: string | undefined;
    return (entry) => {
      url ??= urlFrom(entry);
      if (typeof entry.msg === "string") pending.delete(entry.msg);
      return { ready: pending.size === 0, url };
    };
  };

export class StartError extends Error {
  override name = "StartError";
}

function parseLine(line: string): LogEntry {
  try {
    const value = JSON.parse(line) as unknown;
    if (typeof value === "object" && value !== null && !Array.isArray(value)) return value as LogEntry;
  } catch {
    // not JSON
  }
  return { msg: line };
}

function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    child.kill(signal);
  }
}

export class Supervisor {
  private readonly running: Managed[] = [];
  private closed = false;
  private readonly logs = new Map<string, WriteStream>();
  private readonly onExit = () => {
    for (const m of this.running) killGroup(m.child, "SIGKILL");
  };

  constructor(
    readonly logsDir: string,
    private readonly options: { graceMs?: number; onStart?: (managed: Managed) => void } = {},
  ) {
    mkdirSync(logsDir, { recursive: true });
    process.on("exit", this.onExit);
  }

  get processes(): readonly Managed[] {
    return this.running;
  }

  find(name: string): Managed | undefined {
    return this.running.find((m) => m.spec.name === name);
  }

  logFileOf(name: string): string {
    return join(this.logsDir, `${name}.log`);
  }

  private logOf(name: string): WriteStream {
    let stream = this.logs.get(name);
    if (stream === undefined) {
      // One file per process and run: the first start truncates it, a restart appends.
      stream = createWriteStream(this.logFileOf(name), { flags: "w" });
      this.logs.set(name, stream);
    }
    return stream;
  }

  /** Starts a process and resolves once it is ready; rejects (and stops it) when it exits or times out first. */
  async start(spec: ProcessSpec, port = 0): Promise<Managed> {
    if (this.closed) throw new StartError(`not starting ${spec.name}: stopping`);
    const log = this.logOf(spec.name);
    const child = spawn(spec.command, spec.args(port), {
      cwd: spec.cwd,
      env: spec.env,
      detached: true,
      stdio: spec.ipc === true ? ["ignore", "pipe", "pipe", "ipc"] : ["ignore", "pipe", "pipe"],
    });
    const lines: LogEntry[] = [];
    const listeners = new Set<(entry: LogEntry) => void>();
    let pending = "";
    child.stdout?.on("data", (chunk: Buffer) => {
      log.write(chunk);
      pending += chunk.toString("utf8");
      let newline: number;
      while ((newline = pending.indexOf("\n")) !== -1) {
        const entry = parseLine(pending.slice(0, newline));
        pending = pending.slice(newline + 1);
        lines.push(entry);
        spec.onLine?.(entry);
        for (const listener of listeners) listener(entry);
      }
    });
    child.stderr?.on("data", (chunk: Buffer) => log.write(chunk));
    const exited = new Promise<number | string>((resolve) => child.once("exit", (code, signal) => resolve(code ?? signal ?? "unknown")));
    const nextLine: Managed["nextLine"] = (predicate, timeoutMs, what) =>
      new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          listeners.delete(listener);
          reject(new Error(`${spec.name} did not log ${what} within ${timeoutMs} ms (see ${this.logFileOf(spec.name)})`));
        }, timeoutMs);
        const listener = (entry: LogEntry) => {
          if (!predicate(entry)) return;
          clearTimeout(timer);
          listeners.delete(listener);
          resolve(entry);
        };
        listeners.add(listener);
      });

    const readiness = spec.ready();
    let url: string | undefined;
    const timeoutMs = spec.startTimeoutMs ?? 60_000;
    try {
      await Promise.race([
        nextLine(
          (entry) => {
            const state = readiness(entry);
            url ??= state.url;
            return state.ready;
          },
          timeoutMs,
          "that it is ready",
        ),
        exited.then((code) => {
          throw new StartError(`${spec.name} exited (${code}) before it was ready; see ${this.logFileOf(spec.name)}`);
        }),
      ]);
    } catch (error) {
      killGroup(child, "SIGKILL");
      throw error instanceof StartError ? error : new StartError(error instanceof Error ? error.message : String(error));
    }
    if (this.closed) {
      killGroup(child, "SIGKILL");
      throw new StartError(`${spec.name} started while stopping: stopped again`);
    }
    const managed: Managed = { spec, child, url, port: url === undefined ? 0 : Number(new URL(url).port), logFile: this.logFileOf(spec.name), lines, exited, nextLine };
    this.running.push(managed);
    this.options.onStart?.(managed);
    return managed;
  }

  /** Stops one process: SIGTERM to its group, SIGKILL after the grace. */
  async stop(managed: Managed): Promise<void> {
    const index = this.running.indexOf(managed);
    if (index !== -1) this.running.splice(index, 1);
    killGroup(managed.child, "SIGTERM");
    const timer = setTimeout(() => killGroup(managed.child, "SIGKILL"), this.options.graceMs ?? 15_000);
    await managed.exited;
    clearTimeout(timer);
  }

  /** The process stopped and started again on the port it had: a new process, same address, same place in the stop order. */
  async restart(name: string): Promise<Managed> {
    const managed = this.find(name);
    if (managed === undefined) throw new Error(`no process ${name} is running`);
    const index = this.running.indexOf(managed);
    await this.stop(managed);
    const restarted = await this.start(managed.spec, managed.port);
    this.running.splice(this.running.indexOf(restarted), 1);
    this.running.splice(index, 0, restarted);
    return restarted;
  }

  /** Every process, in the reverse order of their start. */
  async stopAll(): Promise<void> {
    this.closed = true;
    for (const managed of [...this.running].reverse()) await this.stop(managed);
    await Promise.all([...this.logs.values()].map((s) => new Promise<void>((resolve) => s.end(() => resolve()))));
    this.logs.clear();
    process.off("exit", this.onExit);
  }
}
