/**
 * `a2a-ledger up` runs the compiled programs only: it tells a workspace whose dist/ is missing or was
 * built from other sources than its src/ holds now, and says so for every such workspace at once.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  assertBuilt,
  BuildMissingError,
  buildProblem,
  buildProblems,
  buildRecordFile,
  builtWorkspaces,
  sourceDigest,
} from "./build-output.ts";

/** A repository with workspaces a/x (built), a/y (built) and t (test-only: no tsconfig.build.json). */
function repo(): string {
  const root = mkdtempSync(join(tmpdir(), "build-output-"));
  writeFileSync(join(root, "package.json"), JSON.stringify({ workspaces: ["a/*", "t"] }));
  for (const ws of ["a/x", "a/y", "t"]) {
    mkdirSync(join(root, ws, "src", "web"), { recursive: true });
    writeFileSync(join(root, ws, "src", "index.ts"), "export const x = 1;\n");
    if (ws !== "t") writeFileSync(join(root, ws, "tsconfig.build.json"), "{}");
  }
  return root;
}

function build(dir: string): void {
  mkdirSync(join(dir, "dist"), { recursive: true });
  writeFileSync(buildRecordFile(dir), JSON.stringify({ source: sourceDigest(dir) }));
}

describe("the build's freshness", () => {
  it("lists the built workspaces only", () => {
    const root = repo();
    expect(builtWorkspaces(root)).toEqual([join(root, "a/x"), join(root, "a/y")]);
  });

  it("given no build, says each workspace is not built", () => {
    const root = repo();
    expect(buildProblems(root)).toEqual([
      "a/x: not built (no a/x/dist/build.json)",
      "a/y: not built (no a/y/dist/build.json)",
    ]);
  });

  it("given a build of the sources as they are, finds nothing wrong", () => {
    const root = repo();
    build(join(root, "a/x"));
    build(join(root, "a/y"));
    expect(buildProblems(root)).toEqual([]);
    expect(() => assertBuilt(root, "up")).not.toThrow();
  });

  it("when a source or an asset changes after the build, says the build is stale", () => {
    const root = repo();
    build(join(root, "a/x"));
    build(join(root, "a/y"));
    writeFileSync(join(root, "a/x/src/index.ts"), "export const x = 2;\n");
    writeFileSync(join(root, "a/y/src/web/app.js"), "1;\n");
    expect(buildProblem(join(root, "a/x"))).toBe("stale");
    expect(buildProblems(root)).toEqual([
      "a/x: built from other sources than its src/ now holds",
      "a/y: built from other sources than its src/ now holds",
    ]);
    expect(() => assertBuilt(root, "a2a-ledger up")).toThrow(BuildMissingError);
    expect(() => assertBuilt(root, "a2a-ledger up")).toThrow(/run `npm run build` first/);
  });

  it("when only a test file changes, keeps the build current (tests are not built)", () => {
    const root = repo();
    build(join(root, "a/x"));
    writeFileSync(join(root, "a/x/src/index.test.ts"), "it;\n");
    expect(buildProblem(join(root, "a/x"))).toBeUndefined();
  });
});
