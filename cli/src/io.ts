/** Where a command writes; injected so tests can capture it. */
export interface Io {
  stdout(text: string): void;
  stderr(text: string): void;
  cwd: string;
  /** Whether stdout takes ANSI colours (a terminal, NO_COLOR unset; or FORCE_COLOR). */
  color?: boolean;
  /** A terminal to draw progress bars on; none when stderr is piped. */
  progress?: NodeJS.WritableStream & { isTTY?: boolean; columns?: number };
}

function colorFor(stream: NodeJS.WriteStream, env: NodeJS.ProcessEnv): boolean {
  const force = env["FORCE_COLOR"];
  if (force !== undefined && force !== "") return force !== "0" && force !== "false";
  if (env["NO_COLOR"] !== undefined && env["NO_COLOR"] !== "") return false;
  return stream.isTTY === true && env["TERM"] !== "dumb";
}

// A reader that stops early (`| head`) closes the pipe: that ends the output, it is not a crash.
process.stdout.on("error", (e: NodeJS.ErrnoException) => {
  if (e.code === "EPIPE") process.exit(process.exitCode ?? 0);
  throw e;
});

export const processIo: Io = {
  stdout: (text) => void process.stdout.write(text),
  stderr: (text) => void process.stderr.write(text),
  cwd: process.cwd(),
  color: colorFor(process.stdout, process.env),
  ...(process.stderr.isTTY ? { progress: process.stderr } : {}),
};

/**
 * Exit codes: 0 ok, 1 a check failed (e.g. --fail-on-diff), 2 bad usage or bad input (a malformed
 * file, a rules module that throws or returns malformed decisions), 3 Kafka or the schema registry
 * cannot be reached (or the topic does not exist).
 */
export const exitCodes = { ok: 0, checkFailed: 1, usage: 2, unavailable: 3 } as const;

/** An error the user can fix; printed without a stack, exit code 2. */
export class UsageError extends Error {}

/** The cluster, the registry or the topic is not there; printed without a stack, exit code 3. */
export class UnavailableError extends Error {}
