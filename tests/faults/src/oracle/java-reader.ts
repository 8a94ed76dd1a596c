/**
 * Reads topics with Apache Kafka's own Java consumer (oracle/TopicDump.java, compiled once per run
 * against the broker's kafka-clients jar): the fault tests' view of what is on the cluster, by code
 * the ledger does not share.
 */
import { spawn, spawnSync } from "node:child_process";
import { createInterface } from "node:readline";
import { existsSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { findJava, kafkaLibs, loadConfig } from "@a2a-ledger/infra";

export type Isolation = "read_committed" | "read_uncommitted";

export interface OracleRecord {
  topic: string;
  partition: number;
  offset: number;
  timestamp: number;
  key: Buffer | null;
  value: Buffer | null;
  headers: Record<string, Buffer | null>;
}

const source = new URL("../../oracle/TopicDump.java", import.meta.url).pathname;
let compiled: { java: string; classpath: string } | undefined;

function toolchain(): { java: string; classpath: string } {
  if (compiled !== undefined) return compiled;
  const java = findJava(17, "the fault tests' Java oracle").path;
  const javac = java === "java" ? "javac" : join(dirname(java), "javac");
  const libs = kafkaLibs(loadConfig());
  const classes = mkdtempSync(join(tmpdir(), "fault-oracle-"));
  const result = spawnSync(javac, ["-cp", `${libs}/*`, "-d", classes, source], { encoding: "utf8", timeout: 120_000 });
  if (result.status !== 0 || !existsSync(join(classes, "TopicDump.class")))
    throw new Error(`compiling ${source} failed:\n${result.stdout}${result.stderr}${result.error ?? ""}`);
  compiled = { java, classpath: `${libs}/*:${classes}` };
  return compiled;
}

const fromBase64 = (v: string | null): Buffer | null => (v === null ? null : Buffer.from(v, "base64"));

/**
 * Every record of `topics` up to their end offsets at the start of the read, as the Java client sees
 * them. Its output is read line by line as it comes: a long run's dump is larger than one string may be.
 */
export function readWithJava(
  brokers: string,
  isolation: Isolation,
  topics: readonly string[],
): Promise<OracleRecord[]> {
  const { java, classpath } = toolchain();
  return new Promise((resolve, reject) => {
    const child = spawn(java, ["-Xmx512m", "-cp", classpath, "TopicDump", brokers, isolation, ...topics], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    const timer = setTimeout(() => child.kill("SIGKILL"), 300_000);
    const records: OracleRecord[] = [];
    let stderr = "";
    let failure: Error | undefined;
    child.stderr.on("data", (c: Buffer) => {
      stderr = (stderr + c.toString()).slice(-65_536);
    });
    const lines = createInterface({ input: child.stdout, crlfDelay: Number.POSITIVE_INFINITY });
    lines.on("line", (line) => {
      if (failure !== undefined || !line.startsWith("{")) return;
      try {
        const raw = JSON.parse(line) as {
          topic: string;
          partition: number;
          offset: number;
          timestamp: number;
          key: string | null;
          value: string | null;
          headers: Record<string, string | null>;
        };
        records.push({
          ...raw,
          key: fromBase64(raw.key),
          value: fromBase64(raw.value),
          headers: Object.fromEntries(Object.entries(raw.headers).map(([k, v]) => [k, fromBase64(v)])),
        });
      } catch (error) {
        failure = error instanceof Error ? error : new Error(String(error));
      }
    });
    const closed = new Promise<void>((done) => lines.once("close", done));
    child.once("error", (error) => {
      clearTimeout(timer);
      reject(new Error(`the Java oracle reader could not start: ${error.message}`));
    });
    child.once("close", (code, signal) => {
      clearTimeout(timer);
      void closed.then(() => {
        if (code !== 0 || failure !== undefined)
          return reject(
            new Error(
              `the Java oracle reader failed (${failure?.message ?? `exit ${code ?? signal}`}):\n${stderr
                .split("\n")
                .filter((l) => !/ INFO | WARN /.test(l))
                .slice(-20)
                .join("\n")}`,
            ),
          );
        resolve(records);
      });
    });
  });
}
