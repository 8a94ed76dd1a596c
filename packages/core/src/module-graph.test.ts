/** The core's modules import one another in one direction: no circle, type-only imports included. */
import { readFileSync } from "node:fs";
import { dirname, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { sources } from "../test/sources.ts";

const srcDir = import.meta.dirname;

/** Relative imports and re-exports of a module (`import type` and `export … from` included). */
const importsOf = (file: string): string[] => [...readFileSync(file, "utf8").matchAll(/(?:^|\n)\s*(?:import|export)\b[^;"]*?\bfrom\s+"(\.{1,2}\/[^"]+)"/g)].map((m) => resolve(dirname(file), m[1] as string));

/** Every circle of the graph, each once, as the path that closes it. */
function circles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  const found: string[][] = [];
  const state = new Map<string, "open" | "done">();
  const visit = (node: string, path: string[]) => {
    if (state.get(node) === "done") return;
    if (state.get(node) === "open") return void found.push([...path.slice(path.indexOf(node)), node]);
    state.set(node, "open");
    for (const next of graph.get(node) ?? []) visit(next, [...path, node]);
    state.set(node, "done");
  };
  for (const node of graph.keys()) visit(node, []);
  return found;
}

describe("the core's module graph", () => {
  it("finds a circle when there is one", () => {
    expect(circles(new Map([["a", ["b"]], ["b", ["c"]], ["c", ["a"]]]))).toEqual([["a", "b", "c", "a"]]);
  });

  it("has no circle between the core's modules, type-only imports included", () => {
    const files = sources(srcDir);
    const graph = new Map(files.map((f) => [relative(srcDir, f), importsOf(f).map((i) => relative(srcDir, i))]));
    expect(graph.get("correlation/model.ts")).toContain("state-model.ts");
    expect(circles(graph)).toEqual([]);
  });
});
