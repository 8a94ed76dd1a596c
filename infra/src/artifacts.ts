/**
 * Fetches the JVM artifacts from Maven Central into the cache folder (outside the repository) once:
 * the Kafka broker's runtime classpath and the Apicurio Registry distribution.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync } from "node:fs";
import { join } from "node:path";
import type { StackConfig } from "./config.ts";
import { requireMaven } from "./java.ts";

const kafkaPom = new URL("../jvm/kafka-pom.xml", import.meta.url).pathname;

function run(command: string, args: string[], what: string): void {
  const result = spawnSync(command, args, { encoding: "utf8", timeout: 15 * 60_000, maxBuffer: 64 * 1024 * 1024 });
  if (result.error || result.status !== 0) {
    const output = `${result.stdout ?? ""}${result.stderr ?? ""}`.split("\n").slice(-30).join("\n");
    throw new Error(`${what} failed (${command} ${args.join(" ")}):\n${output || String(result.error)}`);
  }
}

/** Folder holding every jar the broker needs; fetched on first use. */
export function kafkaLibs(config: StackConfig): string {
  const libs = join(config.cacheDir, `kafka-${config.kafkaVersion}`, "libs");
  if (existsSync(join(libs, `kafka_2.13-${config.kafkaVersion}.jar`))) return libs;
  const mvn = requireMaven();
  const staging = `${libs}.partial`;
  rmSync(staging, { recursive: true, force: true });
  run(
    mvn,
    [
      "-q",
      "-B",
      "-f",
      kafkaPom,
      `-Dkafka.version=${config.kafkaVersion}`,
      "dependency:copy-dependencies",
      "-DincludeScope=runtime",
      `-DoutputDirectory=${staging}`,
    ],
    `Fetching Kafka ${config.kafkaVersion}`,
  );
  rmSync(libs, { recursive: true, force: true });
  renameSync(staging, libs);
  return libs;
}

/** Folder holding quarkus-run.jar of Apicurio Registry; fetched and unpacked on first use. */
export function apicurioHome(config: StackConfig): string {
  const home = join(config.cacheDir, `apicurio-${config.apicurioVersion}`);
  if (existsSync(join(home, "quarkus-run.jar"))) return home;
  const mvn = requireMaven();
  const downloads = join(config.cacheDir, "downloads");
  mkdirSync(downloads, { recursive: true });
  const artifact = `io.apicurio:apicurio-registry-app:${config.apicurioVersion}:tar.gz:all`;
  run(
    mvn,
    ["-q", "-B", "dependency:copy", `-Dartifact=${artifact}`, `-DoutputDirectory=${downloads}`],
    `Fetching Apicurio Registry ${config.apicurioVersion}`,
  );
  const tarball = readdirSync(downloads).find(
    (f) => f.startsWith(`apicurio-registry-app-${config.apicurioVersion}`) && f.endsWith(".tar.gz"),
  );
  if (tarball === undefined) throw new Error(`Maven reported success but no Apicurio tarball is in ${downloads}`);
  const staging = `${home}.partial`;
  rmSync(staging, { recursive: true, force: true });
  mkdirSync(staging, { recursive: true });
  run("tar", ["xzf", join(downloads, tarball), "-C", staging], "Unpacking Apicurio Registry");
  rmSync(home, { recursive: true, force: true });
  renameSync(staging, home);
  return home;
}
