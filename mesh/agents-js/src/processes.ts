/**
 * Mesh services as processes, the way a deployment runs them: W1 and W2 (`node --import tsx src/main.ts`
 * from the sources, `node dist/main.js` from the build)
 * and W3 (`.venv/bin/python -m w3` in mesh/agent-py, after `mesh/agent-py/setup.sh`). Each resolves once
 * the worker logged its `listening` line, with the URL it serves; `stop()` sends SIGTERM and waits
 * (SIGKILL after a grace), so a restart is `stop()` and a new spawn on the same port.
 */
import type { ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { siblingNodeArgs } from "@a2a-ledger/env";
import { spawnService, stopChild } from "@a2a-ledger/env/testing";
import type { JsWorkerKind } from "./cards.ts";

export interface AgentProcess {
  readonly url: string;
  readonly port: number;
  /** The gRPC endpoint (`host:port`) the listening line named, else null. */
  readonly grpcTarget: string | null;
  readonly child: ChildProcess;
  /** Everything the process wrote so far (stdout and stderr). */
  output(): string;
  stop(graceMs?: number): Promise<void>;
}

export interface SpawnOptions {
  host?: string;
  /** 0 (default) lets the worker pick a free port; pass the old port to restart in place. */
  port?: number;
  cardMaxAgeSeconds?: number;
  /** Also serve A2A's gRPC binding on this port (0: a free one); the process's `grpcTarget` names it. */
  grpcPort?: number;
  /** How long to wait for the listening line; default 30 s. */
  startTimeoutMs?: number;
  env?: NodeJS.ProcessEnv;
}

const jsMain = siblingNodeArgs(import.meta.url, "./main");
export const agentPyDir = fileURLToPath(new URL("../../agent-py/", import.meta.url));
export const agentPyPython = `${agentPyDir}.venv/bin/python`;

/**
 * Any service of the mesh (a worker, a proxy) as a child process that logs a JSON line with
 * `msg: "listening"` and its `url` once it serves.
 */
export async function spawnListening(
  name: string,
  command: string,
  args: string[],
  options: { cwd?: string; env?: NodeJS.ProcessEnv; startTimeoutMs?: number } = {},
): Promise<AgentProcess> {
  const { child, readyEntry, output } = await spawnService(name, command, args, {
    cwd: options.cwd,
    env: { ...process.env, ...options.env },
    startTimeoutMs: options.startTimeoutMs,
    ready: (entry) => entry.msg === "listening" && typeof entry.url === "string",
  });
  const url = String(readyEntry.url);
  const grpcTarget = typeof readyEntry.grpc === "string" ? readyEntry.grpc : null;
  return {
    url,
    port: Number(new URL(url).port),
    grpcTarget,
    child,
    output,
    stop: (graceMs = 5_000) => stopChild(child, graceMs),
  };
}

export function spawnJsAgent(
  kind: JsWorkerKind,
  options: SpawnOptions & { configFile?: string } = {},
): Promise<AgentProcess> {
  const args = [...jsMain, "--agent", kind, "--host", options.host ?? "127.0.0.1", "--port", String(options.port ?? 0)];
  if (options.configFile !== undefined) args.push("--config", options.configFile);
  if (options.grpcPort !== undefined) args.push("--grpc-port", String(options.grpcPort));
  if (options.cardMaxAgeSeconds !== undefined) args.push("--card-max-age", String(options.cardMaxAgeSeconds));
  return spawnListening(kind.toUpperCase(), process.execPath, args, options);
}

/** W3 as a process on the SQLite file `db` (created when missing, kept across restarts). */
export function spawnPyAgent(options: SpawnOptions & { db: string }): Promise<AgentProcess> {
  if (!existsSync(agentPyPython)) throw new Error(`W3's virtual environment is missing: run ${agentPyDir}setup.sh`);
  const args = [
    "-m",
    "w3",
    "--host",
    options.host ?? "127.0.0.1",
    "--port",
    String(options.port ?? 0),
    "--db",
    options.db,
  ];
  if (options.grpcPort !== undefined) args.push("--grpc-port", String(options.grpcPort));
  if (options.cardMaxAgeSeconds !== undefined) args.push("--card-max-age", String(options.cardMaxAgeSeconds));
  return spawnListening("W3", agentPyPython, args, {
    ...options,
    cwd: agentPyDir,
    env: { PYTHONUNBUFFERED: "1", ...options.env },
  });
}
