/**
 * A test that needs the stack (Kafka, the schema registry) is named `*.int.test.ts`, so the unit loop
 * (`npm run test:unit`: every other test, no stack started) runs alone. The files were classified by
 * running every workspace's tests with the broker and the registry unreachable; this holds the names
 * to that line for new tests: a test file that reaches the stack (below) must carry the name.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { repoRoot } from "./config.ts";

const skipped = new Set(["node_modules", "dist", ".git", ".venv", ".turbo", ".a2a-ledger", "__pycache__"]);

/**
 * What a test file does to reach the stack: the endpoints read from the process's environment, a Kafka
 * client, the registry's Serde, the Kafka test helpers, or a workspace's own helper that creates topics,
 * starts a ledger or takes the cluster (each workspace's `test/` names one). Every `*.int.test.ts` of the
 * repository does one of these in its own text; that is checked below too, so a new helper is added here.
 */
const stackUses = [
  /\bendpointsFromEnv\(\s*\)/,
  /from\s+["']@a2a-ledger\/kafka\/testing["']/,
  /\bcreateKafka\(/,
  /\bkafka\.admin\(/,
  /\bnew Serde\(/,
  /\bstartReconciler\(/,
  // The reconciler's and the projector's harness (private topics), the projector's story pipeline.
  /\bfixture\(/,
  /\bkafkaSuite\(/,
  /\bstartInProcess\(/,
  /\bstoryPipeline\(/,
  // Ingest's served topic, the dispatcher's live mesh, the proxy's and the clients' ledger topic.
  /\bservedTopic\(/,
  /\bendOffsetSum\(/,
  /\breadTopic\(/,
  /\bwithAdmin\(/,
  /\bstartMesh\(/,
  /\bledgerTopic\(/,
  /\bstartLedger\(/,
  // The fault suite's cluster, and `a2a-ledger up`, which starts or reuses the stack.
  /\bacquireCluster\(/,
  /\bclusterSuite\(/,
  /\[bin, "up"\]/,
];

export function reachesStack(text: string): boolean {
  return stackUses.some((pattern) => pattern.test(text));
}

function testFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    if (skipped.has(entry.name)) return [];
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return testFiles(path);
    return entry.name.endsWith(".test.ts") ? [path] : [];
  });
}

const isIntegration = (file: string) => file.endsWith(".int.test.ts");
// This file names what it looks for, in its examples.
const files = testFiles(repoRoot).filter((file) => file !== import.meta.filename);
const reaching = (file: string) => reachesStack(readFileSync(file, "utf8"));

describe("tests that need the stack", () => {
  it("are recognised by what they call", () => {
    expect(reachesStack(`const kafka = createKafka({ brokers: endpointsFromEnv().brokers });`)).toBe(true);
    expect(reachesStack(`import { readMessages } from "@a2a-ledger/kafka/testing";`)).toBe(true);
    expect(reachesStack(`const serde = new Serde(url);`)).toBe(true);
    expect(reachesStack(`cluster = await acquireCluster(log);`)).toBe(true);
    expect(reachesStack(`topic = await ledgerTopic("recording");`)).toBe(true);
    expect(reachesStack(`import { parseObservation } from "@a2a-ledger/core";`)).toBe(false);
    // Endpoints read from an environment the test makes are configuration, not the stack.
    expect(reachesStack(`endpointsFromEnv({ KAFKA_CLIENT_CONFIG: path })`)).toBe(false);
  });

  it("are named *.int.test.ts, so that the unit loop runs without the stack", () => {
    const misnamed = files.filter((file) => !isIntegration(file) && reaching(file)).map((f) => relative(repoRoot, f));
    expect(misnamed).toEqual([]);
  });

  it("each say so in their own text, so that the check above can see a new one", () => {
    const integration = files.filter(isIntegration);
    expect(integration.length).toBeGreaterThan(50);
    const unseen = integration.filter((file) => !reaching(file)).map((f) => relative(repoRoot, f));
    expect(unseen).toEqual([]);
  });
});
