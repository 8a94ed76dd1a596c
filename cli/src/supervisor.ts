/**
 * Runs the ledger's services and the mesh as separate processes, the way a deployment does, and owns
 * them: each process's stdout and stderr go to `<logsDir>/<name>.log`; a process counts as started once
 * its JSON log lines say it is ready (and, for a server, at which URL); processes are stopped in the
 * reverse order of their start (SIGTERM to the process group, SIGKILL after a grace), and a process can be
 * restarted on the port it had.
 *
 * A service that ends without being stopped (it crashed, someone killed it) is restarted on the port it
 * had, after a pause that grows with each death (1 s doubling up to 30 s, back to 1 s once it stayed up a
 * minute), and waits for its readiness as at its first start. Each death and restart is reported
 * (`onEvent`) and written into the process's log. A service that dies `maxDeaths` times within
 * `windowMs` (5 in 60 s) is given up: `gaveUp` resolves and the owner decides what follows. A process
 * meant to end (`lifetime: "task"`) is never restarted, nor is one stopped by the supervisor (`stop`,
 * `restart`, `stopAll`).
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
  /**
   * "service" (the default) runs until it is stopped: when it ends otherwise it is restarted. "task" is
   * meant to end (a story, a setup step) and is never restarted.
   */
  lifetime?: "service" | "task";
  /** The environment variable that carries the port at a restart (for a process that takes its port from the environment). */
  portEnv?: string;
}

/** When a service that died is started again, and when it is given up. */
export interface RestartPolicy {
  /** The pause before the first restart; it doubles with each death. */
  initialDelayMs: number;
  maxDelayMs: number;
  /** A service that stayed up this long starts again from `initialDelayMs` when it dies. */
  stableAfterMs: number;
  /** A service that died this many times within `windowMs` is given up. */
  maxDeaths: number;
  windowMs: number;
}

export const defaultRestartPolicy: RestartPolicy = {
  initialDelayMs: 1_000,
  maxDelayMs: 30_000,
  stableAfterMs: 60_000,
  maxDeaths: 5,
  windowMs: 60_000,
};

/** The pause before restart `attempt` (1, 2, …). */
export const restartDelay = (policy: RestartPolicy, attempt: number): number =>
  Math.min(policy.maxDelayMs, policy.initialDelayMs * 2 ** Math.max(0, attempt - 1));

export type SupervisorEvent =
  /** A service ended without being stopped (or a restart of it did not become ready: no pid); `attempt` is the restart that follows in `delayMs`. */
  | {
      kind: "died";
      name: string;
      pid: number | undefined;
      exit: string;
      upMs: number;
      attempt: number;
      delayMs: number;
      restartAt: string;
      message: string;
    }
  | { kind: "restarted"; name: string; pid: number | undefined; attempt: number; message: string }
  /** It died `deaths` times within the policy's window: it is not restarted again. */
  | { kind: "gave-up"; name: string; exit: string; deaths: number; message: string };

export interface Managed {
  readonly spec: ProcessSpec;
  readonly child: ChildProcess;
  readonly url: string | undefined;
  readonly port: number;
  readonly logFile: string;
  /** When it was ready (ms since the epoch). */
  readonly startedAt: number;
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

/** How a process ended, in words: `exit code 3`, `signal SIGKILL`. */
export function describeExit(code: number | string): string {
  return typeof code === "number" ? `exit code ${code}` : `signal ${code}`;
}

interface RestartState {
  /** The restart that follows the next death, minus one. */
  attempt: number;
  /** When it died, within the window. */
  deaths: number[];
  timer?: NodeJS.Timeout;
  /** A restart in progress. */
  reviving?: Promise<void>;
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

export interface SupervisorOptions {
  /** How long a stopped process may take after SIGTERM before SIGKILL (default 15 s). */
  graceMs?: number;
  onStart?: (managed: Managed) => void;
  /** Deaths, restarts and a service given up. */
  onEvent?: (event: SupervisorEvent) => void;
  restart?: Partial<RestartPolicy>;
}

export class Supervisor {
  private readonly running: Managed[] = [];
  /** Processes started but not yet ready. */
  private readonly starting = new Set<ChildProcess>();
  private closed = false;
  private readonly logs = new Map<string, WriteStream>();
  private readonly restarts = new Map<string, RestartState>();
  private readonly policy: RestartPolicy;
  private giveUp!: (event: Extract<SupervisorEvent, { kind: "gave-up" }>) => void;
  /** Resolves when a service died too often and is given up (never, otherwise). */
  readonly gaveUp = new Promise<Extract<SupervisorEvent, { kind: "gave-up" }>>((resolve) => (this.giveUp = resolve));
  private readonly onExit = () => {
    for (const m of this.running) killGroup(m.child, "SIGKILL");
    for (const child of this.starting) killGroup(child, "SIGKILL");
  };

  constructor(
    readonly logsDir: string,
    private readonly options: SupervisorOptions = {},
  ) {
    mkdirSync(logsDir, { recursive: true });
    this.policy = { ...defaultRestartPolicy, ...options.restart };
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
    return this.launch(spec, port, undefined);
  }

  /** Starts a process; once ready it takes the place of `replacing` in the stop order (or goes last). */
  private async launch(spec: ProcessSpec, port: number, replacing: Managed | undefined): Promise<Managed> {
    if (this.closed) throw new StartError(`not starting ${spec.name}: stopping`);
    const log = this.logOf(spec.name);
    const child = spawn(spec.command, spec.args(port), {
      cwd: spec.cwd,
      env: port !== 0 && spec.portEnv !== undefined ? { ...spec.env, [spec.portEnv]: String(port) } : spec.env,
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
    const exited = new Promise<number | string>((resolve) =>
      child.once("exit", (code, signal) => resolve(code ?? signal ?? "unknown")),
    );
    const nextLine: Managed["nextLine"] = (predicate, timeoutMs, what) =>
      new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          listeners.delete(listener);
          reject(
            new Error(`${spec.name} did not log ${what} within ${timeoutMs} ms (see ${this.logFileOf(spec.name)})`),
          );
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
    this.starting.add(child);
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
      throw error instanceof StartError
        ? error
        : new StartError(error instanceof Error ? error.message : String(error));
    } finally {
      this.starting.delete(child);
    }
    if (this.closed) {
      killGroup(child, "SIGKILL");
      throw new StartError(`${spec.name} started while stopping: stopped again`);
    }
    const managed: Managed = {
      spec,
      child,
      url,
      port: url === undefined ? 0 : Number(new URL(url).port),
      logFile: this.logFileOf(spec.name),
      startedAt: Date.now(),
      lines,
      exited,
      nextLine,
    };
    const at = replacing === undefined ? -1 : this.running.indexOf(replacing);
    if (at === -1) this.running.push(managed);
    else this.running[at] = managed;
    this.options.onStart?.(managed);
    void exited.then((code) => this.ended(managed, code));
    return managed;
  }

  /** A process ended: a service that was not stopped is restarted, after a pause, or given up. */
  private ended(managed: Managed, code: number | string): void {
    if (this.closed || managed.spec.lifetime === "task" || !this.running.includes(managed)) return;
    this.died(managed, { exit: describeExit(code), upMs: Date.now() - managed.startedAt });
  }

  /**
   * A death: the process ended after `upMs` ready, or restart `failedRestart` did not become ready (a
   * death too, without a process that ran).
   */
  private died(
    managed: Managed,
    death: { exit: string; upMs: number } | { exit: string; failedRestart: number },
  ): void {
    const { name } = managed.spec;
    let state = this.restarts.get(name);
    if (state === undefined) this.restarts.set(name, (state = { attempt: 0, deaths: [] }));
    const now = Date.now();
    if ("upMs" in death && death.upMs >= this.policy.stableAfterMs) state.attempt = 0;
    state.deaths = [...state.deaths.filter((t) => now - t < this.policy.windowMs), now];
    const pid = "upMs" in death ? managed.child.pid : undefined;
    const what =
      "upMs" in death
        ? `${name} (pid ${pid}) died (${death.exit}) after ${(death.upMs / 1000).toFixed(1)} s up`
        : `${name} did not start again (restart ${death.failedRestart}: ${death.exit})`;
    if (state.deaths.length >= this.policy.maxDeaths) {
      const message = `${what}, ${state.deaths.length} deaths within ${this.policy.windowMs / 1000} s: given up, not restarted again${"upMs" in death ? ` (see ${managed.logFile})` : ""}`;
      const event = { kind: "gave-up", name, exit: death.exit, deaths: state.deaths.length, message } as const;
      this.report(name, event);
      this.giveUp(event);
      return;
    }
    state.attempt += 1;
    const attempt = state.attempt;
    const delayMs = restartDelay(this.policy, attempt);
    const restartAt = new Date(now + delayMs).toISOString();
    const message = `${what}: restart ${attempt} in ${delayMs / 1000} s, at ${restartAt}`;
    this.report(name, {
      kind: "died",
      name,
      pid,
      exit: death.exit,
      upMs: "upMs" in death ? death.upMs : 0,
      attempt,
      delayMs,
      restartAt,
      message,
    });
    const restartState = state;
    restartState.timer = setTimeout(() => {
      restartState.timer = undefined;
      restartState.reviving = this.revive(managed, attempt).finally(() => (restartState.reviving = undefined));
    }, delayMs);
  }

  /** Starts a dead service again where it stood, on the port it had; a failed start counts as another death. */
  private async revive(dead: Managed, attempt: number): Promise<void> {
    if (this.closed || !this.running.includes(dead)) return;
    try {
      const fresh = await this.launch(dead.spec, dead.port, dead);
      this.report(fresh.spec.name, {
        kind: "restarted",
        name: fresh.spec.name,
        pid: fresh.child.pid,
        attempt,
        message: `${fresh.spec.name} restarted (restart ${attempt}): pid ${fresh.child.pid}${fresh.url === undefined ? "" : `, ${fresh.url}`}`,
      });
    } catch (error) {
      if (this.closed || !this.running.includes(dead)) return;
      this.died(dead, { exit: error instanceof Error ? error.message : String(error), failedRestart: attempt });
    }
  }

  /** An event on the console (the owner's `onEvent`) and in the process's log. */
  private report(name: string, event: SupervisorEvent): void {
    if (this.closed) return;
    const { message, ...fields } = event;
    // pino's levels, as the services log: warn for a death, error when given up, info for a restart.
    const level = event.kind === "gave-up" ? 50 : event.kind === "died" ? 40 : 30;
    this.logOf(name).write(
      `${JSON.stringify({ level, time: Date.now(), source: "supervisor", ...fields, msg: message })}\n`,
    );
    this.options.onEvent?.(event);
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

  /**
   * The process stopped and started again on the port it had: a new process, same address, same place in
   * the stop order. A restart the supervisor had scheduled after a death is called off (or awaited, when
   * it is under way): the process restarts once.
   */
  async restart(name: string): Promise<Managed> {
    const state = this.restarts.get(name);
    if (state?.timer !== undefined) {
      clearTimeout(state.timer);
      state.timer = undefined;
    }
    if (state?.reviving !== undefined) await state.reviving;
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
    for (const state of this.restarts.values()) if (state.timer !== undefined) clearTimeout(state.timer);
    for (const child of this.starting) killGroup(child, "SIGTERM");
    for (const managed of [...this.running].reverse()) await this.stop(managed);
    await Promise.all([...this.logs.values()].map((s) => new Promise<void>((resolve) => s.end(() => resolve()))));
    this.logs.clear();
    process.off("exit", this.onExit);
  }
}
