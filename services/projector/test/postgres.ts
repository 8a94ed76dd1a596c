/**
 * A real PostgreSQL for tests: A2A_LEDGER_PROJECTOR_DATABASE_URL when it names one, otherwise a throwaway server
 * started with the machine's initdb and pg_ctl in a temporary data directory on a free loopback port
 * (as the `postgres` user when running as root: PostgreSQL refuses root), stopped afterwards. Each
 * caller gets its own fresh database on that server.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { randomUUID } from "node:crypto";
import { chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";

export function postgresBinary(name: "initdb" | "pg_ctl"): string {
  const onPath = spawnSync("sh", ["-c", `command -v ${name}`], { encoding: "utf8" }).stdout.trim();
  if (onPath !== "") return onPath;
  const root = "/usr/lib/postgresql";
  const versions = existsSync(root) ? readdirSync(root).sort((a, b) => Number(b) - Number(a)) : [];
  for (const v of versions) if (existsSync(join(root, v, "bin", name))) return join(root, v, "bin", name);
  throw new Error(`${name} not found: install Debian's postgresql (scripts/setup-projector.sh, run by npm test, does)`);
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() =>
        typeof address === "object" && address !== null ? resolve(address.port) : reject(new Error("no port")),
      );
    });
  });
}

export interface PostgresServer {
  url: string;
  stop(): Promise<void>;
}

/** Runs a binary, as the `postgres` (else `nobody`) user when this process is root. */
function runAs(user: { uid: number; gid: number } | undefined, binary: string, args: string[]): void {
  if (user === undefined) execFileSync(binary, args, { stdio: "pipe" });
  else
    execFileSync("setpriv", [`--reuid=${user.uid}`, `--regid=${user.gid}`, "--clear-groups", binary, ...args], {
      stdio: "pipe",
    });
}

function unprivilegedUser(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  for (const name of ["postgres", "nobody"]) {
    const result = spawnSync("id", ["-u", name], { encoding: "utf8" });
    if (result.status === 0)
      return {
        uid: Number(result.stdout.trim()),
        gid: Number(spawnSync("id", ["-g", name], { encoding: "utf8" }).stdout.trim()),
      };
  }
  throw new Error("running as root and no unprivileged user to run PostgreSQL as");
}

export async function startPostgres(): Promise<PostgresServer> {
  const given = process.env.A2A_LEDGER_PROJECTOR_DATABASE_URL?.trim();
  if (given) return { url: given, stop: async () => undefined };
  const dir = mkdtempSync(join(tmpdir(), "projector-pg-"));
  const data = join(dir, "data");
  const user = unprivilegedUser();
  if (user !== undefined) {
    chownSync(dir, user.uid, user.gid);
    chmodSync(dir, 0o700);
  }
  const port = await freePort();
  runAs(user, postgresBinary("initdb"), [
    "-D",
    data,
    "-U",
    "postgres",
    "--auth=trust",
    "-E",
    "UTF8",
    "--no-locale",
    "--no-sync",
  ]);
  const options = `-c listen_addresses=127.0.0.1 -p ${port} -k ${dir} -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=60`;
  runAs(user, postgresBinary("pg_ctl"), [
    "-D",
    data,
    "-o",
    options,
    "-l",
    join(dir, "server.log"),
    "-w",
    "-t",
    "60",
    "start",
  ]);
  return {
    url: `postgresql://postgres@127.0.0.1:${port}/postgres`,
    stop: async () => {
      try {
        runAs(user, postgresBinary("pg_ctl"), ["-D", data, "-m", "fast", "-w", "-t", "60", "stop"]);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}

/** A new, empty database on the server; its URL. */
export async function freshDatabase(serverUrl: string): Promise<string> {
  const name = `projector_test_${randomUUID().replace(/-/g, "").slice(0, 12)}`;
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    await client.query(`CREATE DATABASE ${name}`);
  } finally {
    await client.end();
  }
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return url.toString();
}
