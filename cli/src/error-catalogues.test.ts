/**
 * Every catalogue of stable error codes in the repository (each service's `src/errors.ts` and the
 * worker guard's) has the one shape of @a2a-ledger/env, lives in the workspace that owns its prefix, and
 * no code is listed twice — within a service or across services. The files are loaded by path, as the package-graph test reads them, so this test
 * adds no arrow to the graph.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { catalogueProblems, cataloguePrefix, errorCodePrefixes, isErrorCatalogue, type ErrorEntry } from "@a2a-ledger/env";
import { repoRoot } from "@a2a-ledger/infra";

interface Found {
  workspace: string;
  dir: string;
  exportName: string;
  prefix: string;
  entries: Readonly<Record<string, ErrorEntry>>;
}

const owners = ["services", "packages"].flatMap((parent) =>
  readdirSync(join(repoRoot, parent))
    .map((d) => join(parent, d))
    .filter((dir) => existsSync(join(repoRoot, dir, "src", "errors.ts"))),
);

async function catalogues(): Promise<Found[]> {
  const found: Found[] = [];
  for (const dir of owners) {
    const workspace = (JSON.parse(readFileSync(join(repoRoot, dir, "package.json"), "utf8")) as { name: string }).name;
    const module = (await import(pathToFileURL(join(repoRoot, dir, "src", "errors.ts")).href)) as Record<string, unknown>;
    for (const [exportName, value] of Object.entries(module)) {
      if (isErrorCatalogue(value)) found.push({ workspace, dir, exportName, prefix: cataloguePrefix(value) as string, entries: value });
    }
  }
  return found;
}

describe("the error catalogues", async () => {
  const all = await catalogues();

  it("are found in every service and in the worker guard", () => {
    expect(new Set(all.map((c) => c.workspace))).toEqual(new Set(Object.values(errorCodePrefixes)));
  });

  it("have entries of one shape, prefixed by the workspace that owns the prefix", () => {
    for (const c of all) {
      expect(catalogueProblems(c.prefix, c.entries), `${c.dir} ${c.exportName}`).toEqual([]);
      expect(errorCodePrefixes[c.prefix as keyof typeof errorCodePrefixes], `${c.dir} ${c.exportName}`).toBe(c.workspace);
    }
  });

  it("list no code twice, within a service or across services", () => {
    const codes = all.flatMap((c) => Object.keys(c.entries).map((code) => `${code} (${c.dir} ${c.exportName})`));
    const byCode = new Map<string, string[]>();
    for (const place of codes) byCode.set(place.split(" ")[0] as string, [...(byCode.get(place.split(" ")[0] as string) ?? []), place]);
    expect([...byCode.values()].filter((places) => places.length > 1)).toEqual([]);
    expect(codes.length).toBeGreaterThan(60);
  });
});
