/**
 * Every catalogue of stable error codes in the repository (each service's `src/errors.ts`, the TypeScript client's, the
 * worker guard's, the Kafka library's, the serde's and the CLI's) has the one shape of @a2a-ledger/env, lives in the workspace that owns its prefix, and
 * no code is listed twice — within a service or across services. Each README names codes of its
 * workspace's catalogues only (a service's settings are named `A2A_LEDGER_<SERVICE>_*`, so they never look
 * like a code; the Kafka library's README must not name a `KAFKA_*` client setting in backticks, which
 * would read as a code of its catalogue). The files are loaded by path, as the package-graph test reads them, so this test
 * adds no arrow to the graph.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import {
  catalogueProblems,
  cataloguePrefix,
  errorCodePrefixes,
  isErrorCatalogue,
  type ErrorEntry,
} from "@a2a-ledger/env";
import { repoRoot } from "@a2a-ledger/infra";

interface Found {
  workspace: string;
  dir: string;
  exportName: string;
  prefix: string;
  entries: Readonly<Record<string, ErrorEntry>>;
}

const owners = [
  "cli",
  "schemas",
  ...["services", "packages"].flatMap((parent) => readdirSync(join(repoRoot, parent)).map((d) => join(parent, d))),
].filter((dir) => existsSync(join(repoRoot, dir, "src", "errors.ts")));

async function catalogues(): Promise<Found[]> {
  const found: Found[] = [];
  for (const dir of owners) {
    const workspace = (JSON.parse(readFileSync(join(repoRoot, dir, "package.json"), "utf8")) as { name: string }).name;
    const module = (await import(pathToFileURL(join(repoRoot, dir, "src", "errors.ts")).href)) as Record<
      string,
      unknown
    >;
    for (const [exportName, value] of Object.entries(module)) {
      if (isErrorCatalogue(value))
        found.push({ workspace, dir, exportName, prefix: cataloguePrefix(value) as string, entries: value });
    }
    // schemas depends on no workspace: its catalogue is a plain object of the same shape, checked as one.
    if (dir === "schemas")
      found.push({
        workspace,
        dir,
        exportName: "serdeErrors",
        prefix: "SERDE",
        entries: module.serdeErrors as Readonly<Record<string, ErrorEntry>>,
      });
  }
  return found;
}

describe("the error catalogues", async () => {
  const all = await catalogues();

  it("are found in every service, the worker guard, the TypeScript client, the Kafka library, the serde and the CLI", () => {
    expect(new Set(all.map((c) => c.workspace))).toEqual(new Set(Object.values(errorCodePrefixes)));
  });

  it("have entries of one shape, prefixed by the workspace that owns the prefix", () => {
    for (const c of all) {
      expect(catalogueProblems(c.prefix, c.entries), `${c.dir} ${c.exportName}`).toEqual([]);
      expect(errorCodePrefixes[c.prefix as keyof typeof errorCodePrefixes], `${c.dir} ${c.exportName}`).toBe(
        c.workspace,
      );
    }
  });

  it("list no code twice, within a service or across services", () => {
    const codes = all.flatMap((c) => Object.keys(c.entries).map((code) => `${code} (${c.dir} ${c.exportName})`));
    const byCode = new Map<string, string[]>();
    for (const place of codes)
      byCode.set(place.split(" ")[0] as string, [...(byCode.get(place.split(" ")[0] as string) ?? []), place]);
    expect([...byCode.values()].filter((places) => places.length > 1)).toEqual([]);
    expect(codes.length).toBeGreaterThan(60);
  });

  it("are what each README names: a code-like name in backticks is a code of its workspace's catalogues", () => {
    for (const dir of owners) {
      const readme = join(repoRoot, dir, "README.md");
      const prefixes = [...new Set(all.filter((c) => c.dir === dir).map((c) => c.prefix))];
      if (!existsSync(readme) || prefixes.length === 0) continue;
      const known = new Set(all.filter((c) => c.dir === dir).flatMap((c) => Object.keys(c.entries)));
      const named = [
        ...readFileSync(readme, "utf8").matchAll(new RegExp(`\`(${prefixes.join("|")})_[A-Z0-9_]+\``, "g")),
      ].map((m) => m[0].slice(1, -1));
      expect(
        named.filter((code) => !known.has(code)),
        readme,
      ).toEqual([]);
    }
  });

  it("are documented: every code of a workspace's catalogues is named in its README", () => {
    const undocumented: string[] = [];
    for (const dir of owners) {
      const codes = all.filter((c) => c.dir === dir).flatMap((c) => Object.keys(c.entries));
      if (codes.length === 0) continue;
      const readme = join(repoRoot, dir, "README.md");
      const text = existsSync(readme) ? readFileSync(readme, "utf8") : "";
      for (const code of codes)
        if (!new RegExp(`\\b${code}\\b`).test(text)) undocumented.push(`${code} (${dir}/README.md)`);
    }
    expect(undocumented).toEqual([]);
  });
});
