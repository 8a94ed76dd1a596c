/** The core's modules import one another in one direction: no circle, type-only imports included. */
import { readFileSync } from "node:fs";
import { dirname, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { graphCycles } from "@a2a-ledger/env/testing";
import { sources } from "../test/sources.ts";

const srcDir = import.meta.dirname;

/** Relative imports and re-exports of a module (`import type` and `export … from` included). */
const importsOf = (file: string): string[] =>
  [...readFileSync(file, "utf8").matchAll(/(?:^|\n)\s*(?:import|export)\b[^;"]*?\bfrom\s+"(\.{1,2}\/[^"]+)"/g)].map(
    (m) => resolve(dirname(file), m[1] as string),
  );

describe("the core's module graph", () => {
  it("finds a circle when there is one", () => {
    expect(
      graphCycles(
        new Map([
          ["a", ["b"]],
          ["b", ["c"]],
          ["c", ["a"]],
        ]),
      ),
    ).toEqual([["a", "b", "c", "a"]]);
  });

  it("has no circle between the core's modules, type-only imports included", () => {
    const files = sources(srcDir);
    const graph = new Map(files.map((f) => [relative(srcDir, f), importsOf(f).map((i) => relative(srcDir, i))]));
    expect(graph.get("correlation/model.ts")).toContain("state-model.ts");
    expect(graphCycles(graph)).toEqual([]);
  });
});
