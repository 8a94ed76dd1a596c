/**
 * Finds Java runtimes: Kafka 4.1 needs 17+, Apicurio Registry 3.3 needs 21+.
 * Candidates: A2A_LEDGER_JAVA_HOME, JAVA_HOME, `java` on PATH, then every JDK under /usr/lib/jvm.
 */
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";

export interface JavaRuntime {
  path: string;
  major: number;
}

export class MissingToolError extends Error {
  override name = "MissingToolError";
}

/** Parses the major version from `java -version` output (`"17.0.15"`, `"25.0.3"`, `"1.8.0_392"`). */
export function parseJavaMajor(versionOutput: string): number | undefined {
  const match = /version "(\d+)(?:\.(\d+))?/.exec(versionOutput);
  if (!match) return undefined;
  const first = Number(match[1]);
  return first === 1 && match[2] !== undefined ? Number(match[2]) : first;
}

function probe(path: string): JavaRuntime | undefined {
  const result = spawnSync(path, ["-version"], { encoding: "utf8", timeout: 20_000 });
  if (result.error || result.status !== 0) return undefined;
  const major = parseJavaMajor(`${result.stderr}${result.stdout}`);
  return major === undefined ? undefined : { path, major };
}

function candidates(env: NodeJS.ProcessEnv): string[] {
  const homes = [env.A2A_LEDGER_JAVA_HOME, env.JAVA_HOME].filter((h): h is string => !!h);
  const list = homes.map((h) => join(h, "bin", "java"));
  list.push("java");
  const jvmRoot = "/usr/lib/jvm";
  if (existsSync(jvmRoot)) {
    for (const dir of readdirSync(jvmRoot).sort()) list.push(join(jvmRoot, dir, "bin", "java"));
  }
  return list;
}

/** The first runtime of at least `minMajor` among the candidates, or a MissingToolError naming what to install. */
export function findJava(minMajor: number, purpose: string, env: NodeJS.ProcessEnv = process.env): JavaRuntime {
  const seen: JavaRuntime[] = [];
  for (const path of candidates(env)) {
    if (path !== "java" && !existsSync(path)) continue;
    const runtime = probe(path);
    if (runtime === undefined) continue;
    if (runtime.major >= minMajor) return runtime;
    seen.push(runtime);
  }
  const found = seen.length
    ? ` Found only: ${seen.map((r) => `${r.path} (Java ${r.major})`).join(", ")}.`
    : " No Java runtime was found.";
  throw new MissingToolError(
    `${purpose} needs Java ${minMajor} or newer.${found} Install a JDK ${minMajor}+ (e.g. apt-get install openjdk-${minMajor}-jre-headless, or Temurin ${minMajor}) and/or set A2A_LEDGER_JAVA_HOME to it; or run with Docker, or set KAFKA_BROKERS and SCHEMA_REGISTRY_URL to use an existing cluster.`,
  );
}

export function requireMaven(): string {
  const result = spawnSync("mvn", ["--version"], { encoding: "utf8", timeout: 60_000 });
  if (result.error || result.status !== 0) {
    throw new MissingToolError(
      "Fetching Kafka and Apicurio Registry from Maven Central needs Maven 3.8+ (`mvn`). Install it (e.g. apt-get install maven), or run with Docker, or set KAFKA_BROKERS and SCHEMA_REGISTRY_URL to use an existing cluster.",
    );
  }
  return "mvn";
}
