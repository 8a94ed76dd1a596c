/**
 * No test binds a fixed port in the kernel's ephemeral range (32768–60999 on Linux): there any client
 * connection of another test, or of anything else on the machine, may already hold it, and the bind
 * fails with EADDRINUSE on a fresh machine. Tests bind port 0 and read the port back, or a fixed port
 * below 32768. This reads every test file of the repository (`*.test.ts`, `test/`, the Python tests)
 * for a port number given to a listener, a `port` option or a `*_PORT` setting.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { repoRoot } from "./config.ts";

const ephemeral = { low: 32768, high: 60999 };
const skipped = new Set(["node_modules", "dist", ".git", ".venv", ".turbo", ".a2a-ledger", "__pycache__"]);

/** Places where a number is a port something binds: `listen(N`, `port: N`, `--port N`, `*_PORT: "N"`, `127.0.0.1:N` passed as a port setting. */
const portUses = [
  /\blisten\(\s*(\d{4,5})\b/g,
  /[pP]ort["']?\s*[:=]\s*["']?(\d{4,5})\b/g,
  /--(?:[a-z]+-)?port["',\s]+(\d{4,5})\b/g,
  /_PORT["']?\s*[:=]\s*["'](\d{4,5})["']/g,
];

export function ephemeralPortsIn(text: string): number[] {
  const found: number[] = [];
  for (const pattern of portUses) {
    for (const match of text.matchAll(pattern)) {
      const port = Number(match[1]);
      if (port >= ephemeral.low && port <= ephemeral.high) found.push(port);
    }
  }
  return found;
}

function testFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    if (skipped.has(entry.name)) return [];
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return testFiles(path);
    const isTest =
      /\.test\.[cm]?[jt]sx?$/.test(entry.name) ||
      /(^|\/)test_[^/]*\.py$/.test(path) ||
      /\/test\/[^/]+\.[cm]?[jt]s$/.test(path);
    return isTest ? [path] : [];
  });
}

describe("fixed ports in tests", () => {
  it("recognises the ways a test names a port it binds", () => {
    // Ports made here, not written out, so that this file names no port in the range itself.
    const [a, b] = [ephemeral.low + 12_232, ephemeral.low + 8_233];
    expect(ephemeralPortsIn(`server.listen(${a}, "127.0.0.1")`)).toEqual([a]);
    expect(ephemeralPortsIn(`{ port: ${b} }`)).toEqual([b]);
    expect(ephemeralPortsIn(`{ sslPort: ${a} }`)).toEqual([a]);
    expect(ephemeralPortsIn(`A2A_LEDGER_KAFKA_PORT: "${a}"`)).toEqual([a]);
    expect(ephemeralPortsIn(`["--port", "${b}"]`)).toEqual([b]);
    expect(ephemeralPortsIn(`{ port: 0 }, listen(25000), A2A_LEDGER_KAFKA_PORT: "19092", timeoutMs: ${a}`)).toEqual([]);
  });

  it("binds none in the kernel's ephemeral range", () => {
    const files = testFiles(repoRoot);
    expect(files.length).toBeGreaterThan(100);
    const offenders = files.flatMap((file) =>
      ephemeralPortsIn(readFileSync(file, "utf8")).map((port) => `${relative(repoRoot, file)}: ${port}`),
    );
    expect(offenders).toEqual([]);
  });
});
