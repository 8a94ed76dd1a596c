/**
 * Every service's README documents exactly the settings the service reads: each
 * `A2A_LEDGER_<SERVICE>_*` name its shipped code reads (a string literal of its `src/`, tests aside) is named
 * in its README, and each such name in its README is one the code reads — so an added setting cannot go
 * undocumented and a removed one cannot linger in the docs. The files are read as text, as the
 * package-graph and catalogue tests read them, so this test adds no arrow to the graph.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { repoRoot } from "@a2a-ledger/infra";

const services = ["ingest", "proxy", "projector", "reconciler", "dispatcher"] as const;

function shippedSources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && e.name.endsWith(".ts") && !e.name.includes(".test."))
    .map((e) => join(e.parentPath, e.name));
}

/** The service's settings its code names, as `"NAME"` or `` `NAME` `` literals. */
function readByCode(service: string): Set<string> {
  const name = new RegExp(`["\`](A2A_LEDGER_${service.toUpperCase()}_[A-Z0-9_]+)["\`]`, "g");
  const found = new Set<string>();
  for (const file of shippedSources(join(repoRoot, "services", service, "src")))
    for (const m of readFileSync(file, "utf8").matchAll(name)) found.add(m[1] as string);
  return found;
}

/** The service's settings its README names in backticks (`NAME` or `NAME=value`). */
function namedByReadme(service: string): Set<string> {
  const readme = readFileSync(join(repoRoot, "services", service, "README.md"), "utf8");
  const name = new RegExp(`\`(A2A_LEDGER_${service.toUpperCase()}_[A-Z0-9_]+)(?:=[^\`]*)?\``, "g");
  return new Set([...readme.matchAll(name)].map((m) => m[1] as string));
}

describe("each service's README", () => {
  for (const service of services)
    it(`names every setting ${service} reads, and no other of its settings`, () => {
      const code = readByCode(service);
      const docs = namedByReadme(service);
      expect(code.size, "settings found in the code").toBeGreaterThan(5);
      expect([...code].filter((n) => !docs.has(n)).sort(), "read by the code, not in the README").toEqual([]);
      expect([...docs].filter((n) => !code.has(n)).sort(), "in the README, not read by the code").toEqual([]);
    });
});
