/** Where a command writes; injected so tests can capture it. */
export interface Io {
  stdout(text: string): void;
  stderr(text: string): void;
  cwd: string;
}

export const processIo: Io = {
  stdout: (text) => void process.stdout.write(text),
  stderr: (text) => void process.stderr.write(text),
  cwd: process.cwd(),
};

/** Exit codes: 0 ok, 1 a check failed (e.g. --fail-on-diff), 2 bad usage or bad input. */
export const exitCodes = { ok: 0, checkFailed: 1, usage: 2 } as const;

/** An error the user can fix; printed without a stack, exit code 2. */
export class UsageError extends Error {}
