/**
 * What `npm run build` leaves in a workspace: `dist/` (its `src/` compiled, the other files under `src/`
 * copied beside the JavaScript) and `dist/build.json`, which names the sources it was built from by a
 * digest. `a2a-ledger up` runs the compiled programs only, so before it starts any it asks
 * `buildProblems` whether every built workspace's `dist/` exists and was built from the `src/` of this
 * checkout; scripts/build-workspace.ts writes the record with `sourceDigest` from here.
 */
import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join, relative, sep } from "node:path";

/** The record a build writes to `dist/build.json`. */
export interface BuildRecord {
  /** sha256 over the path and content of every file under `src/` except tests, in path order. */
  source: string;
}

export const buildRecordFile = (workspaceDir: string) => join(workspaceDir, "dist", "build.json");

/** A workspace is built when it has a tsconfig.build.json (the test-only workspaces have none). */
export const isBuilt = (workspaceDir: string) => existsSync(join(workspaceDir, "tsconfig.build.json"));

/** Test files are not built, so changing one does not make a build stale. */
const isTest = (path: string) => path.endsWith(".test.ts");

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name));
}

/** The digest of `<workspaceDir>/src`: what `dist/build.json` records and `buildProblems` compares. */
export function sourceDigest(workspaceDir: string): string {
  const src = join(workspaceDir, "src");
  const hash = createHash("sha256");
  const files = filesUnder(src)
    .map((file) => relative(src, file).split(sep).join("/"))
    .filter((path) => !isTest(path))
    .sort();
  for (const path of files) {
    hash.update(`${path}\0`);
    hash.update(readFileSync(join(src, path)));
    hash.update("\0");
  }
  return hash.digest("hex");
}

/**
 * The workspace directories of the repository at `root` (its package.json `workspaces`: plain paths and
 * `dir/*`) that are built.
 */
export function builtWorkspaces(root: string): string[] {
  const { workspaces } = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { workspaces?: string[] };
  const dirs = (workspaces ?? []).flatMap((pattern) => {
    if (!pattern.endsWith("/*")) return [join(root, pattern)];
    const parent = join(root, pattern.slice(0, -2));
    return existsSync(parent)
      ? readdirSync(parent, { withFileTypes: true })
          .filter((e) => e.isDirectory())
          .map((e) => join(parent, e.name))
      : [];
  });
  return dirs.filter(isBuilt).sort();
}

/** What is wrong with one workspace's build, or undefined when its dist/ is current. */
export function buildProblem(workspaceDir: string): "missing" | "stale" | undefined {
  const file = buildRecordFile(workspaceDir);
  if (!existsSync(file)) return "missing";
  let record: Partial<BuildRecord>;
  try {
    record = JSON.parse(readFileSync(file, "utf8")) as Partial<BuildRecord>;
  } catch {
    return "stale";
  }
  return record.source === sourceDigest(workspaceDir) ? undefined : "stale";
}

/** One line per built workspace of `root` whose dist/ is missing or older than its src/; empty when all are current. */
export function buildProblems(root: string): string[] {
  return builtWorkspaces(root).flatMap((dir) => {
    const problem = buildProblem(dir);
    const name = relative(root, dir);
    if (problem === "missing") return [`${name}: not built (no ${relative(root, buildRecordFile(dir))})`];
    if (problem === "stale") return [`${name}: built from other sources than its src/ now holds`];
    return [];
  });
}

/** Throws, listing every problem at once, unless every built workspace of `root` is current. */
export function assertBuilt(root: string, what: string): void {
  const problems = buildProblems(root);
  if (problems.length > 0)
    throw new BuildMissingError(
      `${what} runs the compiled programs (dist/), and the build is not current:\n  ${problems.join("\n  ")}\nrun \`npm run build\` first (\`npm start\` does)`,
    );
}

export class BuildMissingError extends Error {
  readonly code = "A2A_LEDGER_BUILD_NOT_CURRENT";
  override readonly name = "BuildMissingError";
}
