import { ConfigError } from "@a2a-ledger/env";
import { execFile } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { describeRenamedSettings } from "@a2a-ledger/env/testing";
import { loadConfig } from "./config.ts";

const run = promisify(execFile);
const main = new URL("./main.ts", import.meta.url).pathname;
const dir = mkdtempSync(join(tmpdir(), "dispatcher-env-"));

function problemsOf(env: NodeJS.ProcessEnv): string[] {
  try {
    loadConfig(env);
  } catch (e) {
    if (e instanceof ConfigError) return [...e.problems];
    throw e;
  }
  return [];
}

describe("dispatcher configuration", () => {
  it("defaults to the ledger's topics, its own group and a journal in the data directory", () => {
    const config = loadConfig({ A2A_LEDGER_DATA_DIR: dir });
    expect(config.topics.commands).toBe("a2a.commands.v1");
    expect(config.groupId).toBe("a2a-ledger-dispatcher");
    expect(config.journalPath).toBe(join(dir, "dispatcher.sqlite"));
    // A new group runs every command still in the topic that the journal does not know.
    expect(config.fromBeginning).toBe(true);
    // No test hook is configuration: the crash tests hold the process through their own entry point.
    expect(Object.keys(config).some((key) => /test/i.test(key))).toBe(false);
    expect(config.workers.workers.size).toBe(0);
  });

  it("follows A2A_LEDGER_TOPIC_SUFFIX with its topics, group and journal", () => {
    const config = loadConfig({ A2A_LEDGER_DATA_DIR: dir, A2A_LEDGER_TOPIC_SUFFIX: "e2e-1" });
    expect(config.topics.commands).toBe("a2a.commands.v1.e2e-1");
    expect(config.groupId).toBe("a2a-ledger-dispatcher.e2e-1");
    expect(config.journalPath).toBe(join(dir, "dispatcher.e2e-1.sqlite"));
  });

  it("reports every bad variable together, and the workers file's problems with them", () => {
    const file = join(dir, "bad-workers.json");
    writeFileSync(
      file,
      JSON.stringify({ workers: { W1: { url: "not a url", skills: { answer: { canaries: [] } } } } }),
    );
    const problems = problemsOf({
      A2A_LEDGER_DISPATCHER_PORT: "70000",
      A2A_LEDGER_DISPATCHER_CONCURRENCY: "0",
      A2A_LEDGER_DISPATCHER_FROM_BEGINNING: "yes",
      A2A_LEDGER_DISPATCHER_INGEST_URL: "ftp://x",
      A2A_LEDGER_DISPATCHER_INGEST_TOKEN: "short",
      A2A_LEDGER_DISPATCHER_LOG_LEVEL: "loud",
      A2A_LEDGER_TOPIC_SUFFIX: "a b",
      KAFKA_BROKERS: "nohost",
      A2A_LEDGER_DISPATCHER_WORKERS_FILE: file,
    });
    expect(problems).toEqual([
      'KAFKA_BROKERS entry "nohost" is not host:port',
      "A2A_LEDGER_TOPIC_SUFFIX=\"a b\": letters, digits, '.', '_' and '-' only",
      'A2A_LEDGER_DISPATCHER_INGEST_URL="ftp://x" is not an http(s) URL',
      "A2A_LEDGER_DISPATCHER_INGEST_TOKEN must be at least 16 characters without whitespace (value not shown)",
      'A2A_LEDGER_DISPATCHER_LOG_LEVEL="loud" must be one of fatal, error, warn, info, debug, trace, silent',
      'A2A_LEDGER_DISPATCHER_FROM_BEGINNING="yes" must be true or false',
      'A2A_LEDGER_DISPATCHER_CONCURRENCY="0" must be an integer from 1 to 64',
      'A2A_LEDGER_DISPATCHER_PORT="70000" must be an integer from 0 to 65535',
      `A2A_LEDGER_DISPATCHER_WORKERS_FILE ${file}: workers.W1.url: "not a url" is not a URL`,
    ]);
    expect(problems.join("\n")).not.toContain("short");
  });

  it("as a process, a malformed workers file stops it at start with exit code 2 and the file's problems", async () => {
    const file = join(dir, "malformed.json");
    writeFileSync(
      file,
      '{"workers": {"W1": {"url": "http://127.0.0.1:1", "skills": {"answer": {"canaries": [{"message": "x", "park": "yes"}]}}}}}',
    );
    const failure = await run(process.execPath, ["--import", "tsx", main], {
      env: { ...process.env, A2A_LEDGER_DISPATCHER_WORKERS_FILE: file, A2A_LEDGER_DATA_DIR: dir },
      timeout: 30_000,
    }).then(
      () => undefined,
      (e: { code: number; stderr: string }) => e,
    );
    expect(failure?.code).toBe(2);
    expect(failure?.stderr).toContain(
      `A2A_LEDGER_DISPATCHER_WORKERS_FILE ${file}: workers.W1.skills.answer.canaries[0].park: must be true or false`,
    );
  }, 30_000);
});

describeRenamedSettings({ service: "DISPATCHER", load: loadConfig });
