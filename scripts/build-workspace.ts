/**
 * One workspace's `npm run build` (run in the workspace's directory; `npm run build` at the root runs it
 * for every workspace through turbo, dependencies first): `dist/` emptied, `src/` compiled into it by tsc
 * with the workspace's tsconfig.build.json, every file under `src/` that is not TypeScript (the
 * projector's page, …) copied to the same place under `dist/`, and `dist/build.json` written last,
 * naming the sources it was built from (see cli/src/build-output.ts).
 */
import { spawnSync } from "node:child_process";
import { cpSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, relative } from "node:path";
import { buildRecordFile, sourceDigest, type BuildRecord } from "../cli/src/build-output.ts";

const workspace = process.cwd();
const src = join(workspace, "src");
const dist = join(workspace, "dist");
const tsc = createRequire(import.meta.url).resolve("typescript/bin/tsc");

const digest = sourceDigest(workspace);
rmSync(dist, { recursive: true, force: true });
const compiled = spawnSync(process.execPath, [tsc, "-p", "tsconfig.build.json"], { cwd: workspace, stdio: "inherit" });
if (compiled.status !== 0) {
  process.stderr.write(`tsc -p tsconfig.build.json failed in ${workspace}\n`);
  process.exit(compiled.status ?? 1);
}
let assets = 0;
for (const entry of readdirSync(src, { recursive: true, withFileTypes: true })) {
  if (!entry.isFile() || entry.name.endsWith(".ts")) continue;
  const target = join(dist, relative(src, join(entry.parentPath, entry.name)));
  mkdirSync(dirname(target), { recursive: true });
  cpSync(join(entry.parentPath, entry.name), target);
  assets++;
}
const record: BuildRecord = { source: digest };
writeFileSync(buildRecordFile(workspace), `${JSON.stringify(record)}\n`);
const { name } = JSON.parse(readFileSync(join(workspace, "package.json"), "utf8")) as { name: string };
process.stdout.write(
  `${name}: built dist/${assets > 0 ? ` (${assets} asset${assets === 1 ? "" : "s"} copied)` : ""}\n`,
);
