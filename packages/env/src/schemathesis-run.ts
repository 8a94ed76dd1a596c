/**
 * One schemathesis run against a running service's OpenAPI document, for the services' contract tests.
 * schemathesis is pinned in packages/env/schemathesis/requirements.txt and installed by setup.sh there
 * (the root `npm test` runs it first, through scripts/test-setup.sh). Runs are reproducible: a fixed seed
 * (A2A_LEDGER_FUZZ_SEED to change it), one worker, no example database, and a bounded number of examples.
 */
import { execFile } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const venv = resolve(fileURLToPath(new URL(".", import.meta.url)), "../schemathesis/.venv");
/** Where setup.sh installs the pinned schemathesis. */
export const schemathesisBin = join(venv, "bin/schemathesis");
export const defaultFuzzSeed = "20250131";

export interface SchemathesisOptions {
  /** Comma-separated checks, e.g. `not_a_server_error,positive_data_acceptance,unsupported_method`. */
  checks: string;
  /** Comma-separated phases: examples, coverage, fuzzing. */
  phases: string;
  maxExamples: number;
  /** A hooks file (SCHEMATHESIS_HOOKS) stating what JSON Schema cannot. */
  hooks?: string;
  /** schemathesis.toml text for this run (e.g. `max-stream-events = 1`). */
  config?: string;
  /** Further `run` arguments (`--header`, `--exclude-path`, …). */
  extra?: readonly string[];
  /** Further environment for schemathesis and its hooks. */
  env?: NodeJS.ProcessEnv;
  /** Kills the run after this long; default 170 s. */
  timeoutMs?: number;
}

export interface SchemathesisResult {
  /** schemathesis' exit code: 0 when every check passed. */
  code: number;
  output: string;
  /** The JUnit report: one testcase per operation run. */
  junit: string;
  /** The operations the run exercised (`GET /v1/tasks`, …), from the JUnit report. */
  operations: string[];
  seed: string;
}

function exec(
  args: string[],
  env: NodeJS.ProcessEnv,
  cwd: string,
  timeoutMs: number,
): Promise<{ code: number; output: string }> {
  return new Promise((done) => {
    execFile(
      schemathesisBin,
      args,
      { env, cwd, timeout: timeoutMs, maxBuffer: 64 * 1024 * 1024 },
      (error, stdout, stderr) => {
        const code = error === null ? 0 : typeof error.code === "number" ? error.code : -1;
        done({ code, output: `${stdout}\n${stderr}` });
      },
    );
  });
}

/** Runs schemathesis against `${url}/openapi.json` (or `documentUrl`) and logs a summary line set under `label`. */
export async function schemathesisRun(
  url: string,
  label: string,
  options: SchemathesisOptions & { documentUrl?: string },
): Promise<SchemathesisResult> {
  if (!existsSync(schemathesisBin))
    throw new Error(
      `schemathesis is not installed at ${schemathesisBin}: run packages/env/schemathesis/setup.sh (npm test does it first)`,
    );
  // A folder of its own: schemathesis keeps a cache folder in its working directory.
  const dir = mkdtempSync(join(tmpdir(), "schemathesis-"));
  try {
    const seed = process.env["A2A_LEDGER_FUZZ_SEED"] ?? defaultFuzzSeed;
    const junitFile = join(dir, "junit.xml");
    const configArgs: string[] = [];
    if (options.config !== undefined) {
      writeFileSync(join(dir, "schemathesis.toml"), options.config);
      configArgs.push("--config-file", join(dir, "schemathesis.toml"));
    }
    const { code, output } = await exec(
      [
        ...configArgs,
        "run",
        options.documentUrl ?? `${url}/openapi.json`,
        ...(options.extra ?? []),
        "--checks",
        options.checks,
        "--phases",
        options.phases,
        "--max-examples",
        String(options.maxExamples),
        "--seed",
        seed,
        "--workers",
        "1",
        "--request-timeout",
        "15",
        "--generation-database",
        "none",
        "--no-color",
        "--report",
        "junit",
        "--report-junit-path",
        junitFile,
      ],
      {
        ...process.env,
        ...options.env,
        ...(options.hooks === undefined ? {} : { SCHEMATHESIS_HOOKS: options.hooks }),
        NO_COLOR: "1",
      },
      dir,
      options.timeoutMs ?? 170_000,
    );
    const summary = output
      .split("\n")
      .filter((l) => /generated|passed|failed|failure|set aside|Seed/i.test(l))
      .join("\n");
    console.info(`schemathesis ${label} (seed ${seed}):\n${summary}`);
    const junit = existsSync(junitFile) ? readFileSync(junitFile, "utf8") : "";
    const operations = [...junit.matchAll(/<testcase[^>]*\bname="([^"]+)"/g)].map((m) =>
      (m[1] ?? "").replace(/&quot;/g, '"').replace(/&amp;/g, "&"),
    );
    return { code, output, junit, operations, seed };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
