/**
 * The package graph of the whole repository points one way (docs/ARCHITECTURE.md §5): programs (the
 * CLI, the services, the demo mesh) sit above the libraries (packages/*, schemas, infra). No library
 * depends on a program, no service on another service, and `schemas` on no other workspace — neither as
 * a runtime dependency in package.json nor as an import in the code that ships; a library not even as a
 * devDependency (its tests start a service as a process). Test code of a program (`*.test.ts`, `test/`,
 * `bench/`, a `testing` entry) and development scripts (`scripts/`) may compose programs, as the
 * integration tests do, but nothing closes a cycle, devDependencies included.
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { graphCycles } from "@a2a-ledger/env/testing";
import { repoRoot } from "@a2a-ledger/infra";

type Kind = "library" | "service" | "program" | "other";

interface Workspace {
  name: string;
  dir: string;
  kind: Kind;
  /** `dependencies`: what it needs at run time. */
  runtime: string[];
  /** `dependencies` and `devDependencies`. */
  all: string[];
  /** Workspaces the shipped code imports, with the file of each import. */
  imports: { target: string; file: string }[];
}

interface Arrow {
  from: string;
  to: string;
  via: string;
}

const kindOf = (dir: string): Kind => {
  if (dir.startsWith("services/")) return "service";
  if (dir === "cli" || dir.startsWith("mesh/")) return "program";
  if (dir.startsWith("packages/") || dir.startsWith("clients/") || dir === "schemas" || dir === "infra")
    return "library";
  return "other";
};

/** Not shipped: tests, benchmarks, the `testing` entries, and development scripts (code generation, the schemas' compatibility check). */
const skipped = new Set(["node_modules", "dist", "test", "bench", "testing", "scripts"]);
const isTestCode = (name: string) => /\.test\.[cm]?[jt]sx?$/.test(name) || /^testing\.[cm]?[jt]s$/.test(name);

function shippedSources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (name.startsWith(".") || skipped.has(name)) return [];
    if (statSync(path).isDirectory()) return shippedSources(path);
    return /\.[cm]?[jt]sx?$/.test(name) && !isTestCode(name) && !name.endsWith(".d.ts") ? [path] : [];
  });
}

const workspaceImport = /(?:\bfrom\s+|\bimport\s*\(\s*|\bimport\s+)["'](@a2a-ledger\/[^"'/]+)/g;

function workspaces(root: string): Workspace[] {
  const patterns = (JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { workspaces: string[] })
    .workspaces;
  const dirs = patterns.flatMap((p) =>
    p.endsWith("/*")
      ? readdirSync(join(root, p.slice(0, -2))).map((d) => join(root, p.slice(0, -2), d))
      : [join(root, p)],
  );
  return dirs
    .filter((d) => existsSync(join(d, "package.json")))
    .map((abs) => {
      const pkg = JSON.parse(readFileSync(join(abs, "package.json"), "utf8")) as {
        name: string;
        dependencies?: Record<string, string>;
        devDependencies?: Record<string, string>;
      };
      const ours = (deps: Record<string, string> | undefined) =>
        Object.keys(deps ?? {}).filter((d) => d.startsWith("@a2a-ledger/"));
      const imports = shippedSources(abs).flatMap((file) =>
        [...readFileSync(file, "utf8").matchAll(workspaceImport)]
          .map((m) => ({ target: m[1] as string, file: relative(root, file) }))
          .filter((i) => i.target !== pkg.name),
      );
      return {
        name: pkg.name,
        dir: relative(root, abs),
        kind: kindOf(relative(root, abs)),
        runtime: ours(pkg.dependencies),
        all: [...ours(pkg.dependencies), ...ours(pkg.devDependencies)],
        imports,
      };
    });
}

const devDependencies = "package.json devDependencies";

const forbiddenForLibrary = (to: Workspace): string | undefined =>
  to.kind === "program" || to.kind === "service" ? "a library never depends on a program" : undefined;

/** Why an arrow from `from` to `to` is forbidden, or undefined when it may exist. */
function forbidden(from: Workspace, to: Workspace): string | undefined {
  if (from.dir === "schemas") return "schemas depends on no other workspace";
  if (from.dir === "cli" && to.dir.startsWith("mesh/"))
    return "the CLI starts the demo mesh as processes and reads the ledger through Kafka: it imports no mesh program";
  if (from.kind === "library" && forbiddenForLibrary(to) !== undefined) return forbiddenForLibrary(to);
  if (from.kind === "service" && to.kind === "service") return "a service never depends on another service";
  return undefined;
}

/** Every forbidden arrow: runtime dependencies and imports of shipped code, and a library's devDependencies on a program. */
function forbiddenArrows(all: readonly Workspace[]): (Arrow & { rule: string })[] {
  const byName = new Map(all.map((w) => [w.name, w]));
  return all.flatMap((from) => {
    const devOnly = from.all.filter((d) => !from.runtime.includes(d));
    const arrows: Arrow[] = [
      ...from.runtime.map((to) => ({ from: from.name, to, via: "package.json dependencies" })),
      ...devOnly.map((to) => ({ from: from.name, to, via: devDependencies })),
      ...from.imports.map((i) => ({ from: from.name, to: i.target, via: i.file })),
    ];
    return arrows.flatMap((a) => {
      const to = byName.get(a.to);
      // Test code may compose programs, but a library's tests do not: a library → program arrow is forbidden in devDependencies too.
      const rule =
        to === undefined
          ? undefined
          : a.via === devDependencies
            ? from.kind === "library"
              ? forbiddenForLibrary(to)
              : undefined
            : forbidden(from, to);
      return rule === undefined ? [] : [{ ...a, rule }];
    });
  });
}

/** Imports of shipped code from a workspace that is not a runtime dependency (an arrow hidden in devDependencies). */
function undeclared(all: readonly Workspace[]): Arrow[] {
  return all.flatMap((w) =>
    w.imports.filter((i) => !w.runtime.includes(i.target)).map((i) => ({ from: w.name, to: i.target, via: i.file })),
  );
}

const ws = (dir: string, runtime: string[] = [], imports: string[] = [], dev: string[] = []): Workspace => ({
  name: `@a2a-ledger/${dir.split("/").pop()}`,
  dir,
  kind: kindOf(dir),
  runtime: runtime.map((d) => `@a2a-ledger/${d}`),
  all: [...runtime, ...dev].map((d) => `@a2a-ledger/${d}`),
  imports: imports.map((d) => ({ target: `@a2a-ledger/${d}`, file: `${dir}/src/x.ts` })),
});

describe("the package graph's rules", () => {
  it("forbid a library depending on a program, a service on another service, schemas on anything, and the CLI's code importing a mesh program", () => {
    const graph = [
      ws("packages/core", ["reconciler"]),
      ws("packages/kafka", ["core"]),
      ws("services/reconciler", ["core"]),
      ws("services/projector", [], ["reconciler"]),
      ws("schemas", ["kafka"], ["core"]),
      ws("infra", [], ["cli"]),
      ws("cli", ["reconciler", "infra"], ["orchestrator"], ["orchestrator"]),
      ws("mesh/orchestrator"),
    ];
    expect(forbiddenArrows(graph).map((a) => `${a.from} -> ${a.to} (${a.via})`)).toEqual([
      "@a2a-ledger/core -> @a2a-ledger/reconciler (package.json dependencies)",
      "@a2a-ledger/projector -> @a2a-ledger/reconciler (services/projector/src/x.ts)",
      "@a2a-ledger/schemas -> @a2a-ledger/kafka (package.json dependencies)",
      "@a2a-ledger/schemas -> @a2a-ledger/core (schemas/src/x.ts)",
      "@a2a-ledger/infra -> @a2a-ledger/cli (infra/src/x.ts)",
      "@a2a-ledger/cli -> @a2a-ledger/orchestrator (cli/src/x.ts)",
    ]);
  });

  it("forbid a library's devDependency on a service or program, and allow a service's or program's on another for its tests", () => {
    const graph = [
      ws("packages/worker-guard", ["core"], [], ["ingest", "kafka"]),
      ws("packages/core"),
      ws("packages/kafka"),
      ws("services/ingest"),
      ws("services/projector", [], [], ["reconciler"]),
      ws("services/reconciler"),
      ws("cli", [], [], ["ingest"]),
    ];
    expect(forbiddenArrows(graph).map((a) => `${a.from} -> ${a.to} (${a.via}): ${a.rule}`)).toEqual([
      "@a2a-ledger/worker-guard -> @a2a-ledger/ingest (package.json devDependencies): a library never depends on a program",
    ]);
  });

  it("find an import of shipped code that is no runtime dependency, and every cycle", () => {
    expect(undeclared([ws("services/proxy", ["core"], ["core", "kafka"])]).map((a) => a.to)).toEqual([
      "@a2a-ledger/kafka",
    ]);
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
});

describe("the package graph", () => {
  const all = workspaces(repoRoot);

  it("sees every kind of workspace and the imports of their code", () => {
    for (const kind of ["library", "service", "program"] as const)
      expect(all.filter((w) => w.kind === kind).length, kind).toBeGreaterThanOrEqual(3);
    expect(all.find((w) => w.dir === "services/projector")?.imports.map((i) => i.target)).toContain(
      "@a2a-ledger/kafka",
    );
  });

  it("has no arrow from a library to a program, from a service to another service, or from schemas to anything", () => {
    expect(forbiddenArrows(all).map((a) => `${a.from} -> ${a.to} (${a.via}): ${a.rule}`)).toEqual([]);
  });

  it("imports in shipped code only what package.json declares as a runtime dependency", () => {
    expect(undeclared(all).map((a) => `${a.from} -> ${a.to} (${a.via})`)).toEqual([]);
  });

  it("keeps the Kafka library out of schemas' scripts and benchmarks (the registry's endpoints come from @a2a-ledger/client-config; only its tests of the serde over a topic use Kafka)", () => {
    const everySource = (dir: string): string[] =>
      readdirSync(dir).flatMap((name) => {
        const path = join(dir, name);
        if (name === "node_modules" || name === "dist" || name.startsWith(".")) return [];
        return statSync(path).isDirectory() ? everySource(path) : /\.[cm]?[jt]s$/.test(name) ? [path] : [];
      });
    const files = everySource(join(repoRoot, "schemas")).filter((f) => !/\.test\.[cm]?[jt]s$/.test(f));
    expect(files.some((f) => f.includes("/scripts/")) && files.some((f) => f.includes("/bench/"))).toBe(true);
    const kafkaImports = files
      .filter((f) => /["'](@a2a-ledger\/kafka|kafkajs)["'/]/.test(readFileSync(f, "utf8")))
      .map((f) => relative(repoRoot, f));
    expect(kafkaImports).toEqual([]);
  });

  it("has no cycles, devDependencies included", () => {
    expect(graphCycles(new Map(all.map((w) => [w.name, w.all])))).toEqual([]);
  });
});
