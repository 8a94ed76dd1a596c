/**
 * A test that needs the stack (Kafka, the schema registry) is named `*.int.test.ts`, so the unit loop
 * (`npm run test:unit`: every other test, no stack started) runs alone. The files were classified by
 * running every workspace's tests with the broker and the registry unreachable; this holds the names
 * to that line for new tests: a test file that reaches the stack by itself (the endpoints, a Kafka
 * client, the registry's Serde, the Kafka test helpers) must carry the name.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { repoRoot } from "./config.ts";

const skipped = new Set(["node_modules", "dist", ".git", ".venv", ".turbo", ".a2a-ledger", "__pycache__"]);

/** What a test file does to reach the stack itself (the endpoints read from the process's environment). */
const stackUses = [
  /\bendpointsFromEnv\(\s*\)/,
  /from\s+["']@a2a-ledger\/kafka\/testing["']/,
  /\bcreateKafka\(/,
  /\bnew Serde\(/,
  /\bstartReconciler\(/,
  /\bacquireCluster\(/,
];

export function reachesStack(text: string): boolean {
  return stackUses.some((pattern) => pattern.test(text));
}

function unitTestFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    if (skipped.has(entry.name)) return [];
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return unitTestFiles(path);
    return entry.name.endsWith(".test.ts") && !entry.name.endsWith(".int.test.ts") ? [path] : [];
  });
}

describe("tests that need the stack", () => {
  it("are recognised by what they call", () => {
    expect(reachesStack(`const kafka = createKafka({ brokers: endpointsFromEnv().brokers });`)).toBe(true);
    expect(reachesStack(`import { readMessages } from "@a2a-ledger/kafka/testing";`)).toBe(true);
    expect(reachesStack(`const serde = new Serde(url);`)).toBe(true);
    expect(reachesStack(`cluster = await acquireCluster(log);`)).toBe(true);
    expect(reachesStack(`import { parseObservation } from "@a2a-ledger/core";`)).toBe(false);
    // Endpoints read from an environment the test makes are configuration, not the stack.
    expect(reachesStack(`endpointsFromEnv({ KAFKA_CLIENT_CONFIG: path })`)).toBe(false);
  });

  it("are named *.int.test.ts, so that the unit loop runs without the stack", () => {
    // This file names what it looks for, in its examples above.
    const misnamed = unitTestFiles(repoRoot)
      .filter((file) => file !== import.meta.filename && reachesStack(readFileSync(file, "utf8")))
      .map((file) => relative(repoRoot, file));
    expect(misnamed).toEqual([]);
  });
});
