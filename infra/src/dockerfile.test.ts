/**
 * The repository's Dockerfile cannot be built here (no container engine), so it is kept from rotting by
 * reading it: every path it copies from the build context exists in the repository and is not left out by
 * .dockerignore, the build stage gets every workspace (npm ci needs them all), every file a CMD or
 * ENTRYPOINT runs is made by `npm run build`, and each service has a target running its compiled entry point.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { repoRoot } from "./config.ts";

interface Instruction {
  stage: string;
  keyword: string;
  args: string[];
  line: number;
}

/** Instructions in order, continuation lines joined, comments dropped, each with the stage it belongs to. */
function parseDockerfile(text: string): Instruction[] {
  const instructions: Instruction[] = [];
  let stage = "";
  let pending = "";
  let startLine = 0;
  text.split("\n").forEach((raw, i) => {
    const line = raw.trim();
    if (pending === "" && (line === "" || line.startsWith("#"))) return;
    if (pending === "") startLine = i + 1;
    if (line.endsWith("\\")) {
      pending += `${line.slice(0, -1)} `;
      return;
    }
    const whole = `${pending}${line}`.trim();
    pending = "";
    const [keyword = "", ...rest] = whole.split(/\s+/);
    const body = whole.slice(keyword.length).trim();
    const args = body.startsWith("[") ? (JSON.parse(body) as string[]) : rest;
    if (keyword.toUpperCase() === "FROM")
      stage = args[2] !== undefined && args[1]?.toUpperCase() === "AS" ? args[2] : (args[0] ?? "");
    instructions.push({ stage, keyword: keyword.toUpperCase(), args, line: startLine });
  });
  return instructions;
}

const dockerfile = parseDockerfile(readFileSync(join(repoRoot, "Dockerfile"), "utf8"));
const ignored = readFileSync(join(repoRoot, ".dockerignore"), "utf8")
  .split("\n")
  .map((l) => l.trim())
  .filter((l) => l !== "" && !l.startsWith("#"));

/** COPY/ADD sources from the build context (not --from another stage). */
const contextSources = dockerfile
  .filter((i) => (i.keyword === "COPY" || i.keyword === "ADD") && !i.args.some((a) => a.startsWith("--from=")))
  .flatMap((i) =>
    i.args
      .filter((a) => !a.startsWith("--"))
      .slice(0, -1)
      .map((source) => ({ source, line: i.line })),
  );

const services = readdirSync(join(repoRoot, "services"), { withFileTypes: true })
  .filter((e) => e.isDirectory() && existsSync(join(repoRoot, "services", e.name, "package.json")))
  .map((e) => e.name);

describe("the Dockerfile", () => {
  it("copies only paths that exist in the repository", () => {
    expect(contextSources.length).toBeGreaterThan(0);
    for (const { source, line } of contextSources)
      expect(existsSync(join(repoRoot, source)), `line ${line}: COPY ${source}`).toBe(true);
  });

  it("copies nothing that .dockerignore leaves out of the context", () => {
    for (const { source, line } of contextSources) {
      for (const pattern of ignored)
        expect(
          source === pattern || source.startsWith(`${pattern}/`),
          `line ${line}: COPY ${source} is excluded by ${pattern}`,
        ).toBe(false);
    }
    // The image installs and builds for itself: nothing installed or built on the host goes in.
    expect(ignored).toEqual(expect.arrayContaining(["**/node_modules", "**/dist"]));
  });

  it("gives the build stage every workspace, for npm ci", () => {
    const { workspaces } = JSON.parse(readFileSync(join(repoRoot, "package.json"), "utf8")) as { workspaces: string[] };
    for (const pattern of workspaces) {
      const dir = pattern.replace(/\/\*$/, "");
      expect(
        contextSources.some(({ source }) => dir === source || dir.startsWith(`${source}/`)),
        `workspace ${pattern} is not copied`,
      ).toBe(true);
    }
  });

  it("runs, in every CMD and ENTRYPOINT, a file the build made", () => {
    const entries = dockerfile.filter((i) => i.keyword === "CMD" || i.keyword === "ENTRYPOINT");
    expect(entries.length).toBeGreaterThan(0);
    for (const entry of entries) {
      const files = entry.args.filter((a) => /\.[cm]?js$/.test(a));
      expect(files.length, `line ${entry.line}: ${entry.keyword} runs no file`).toBeGreaterThan(0);
      for (const file of files)
        expect(existsSync(join(repoRoot, file)), `line ${entry.line}: ${file} (run \`npm run build\` first)`).toBe(
          true,
        );
    }
  });

  it("has a target for each service that runs its compiled entry point with plain node", () => {
    expect(services.length).toBeGreaterThan(0);
    for (const service of services) {
      const cmd = dockerfile.filter((i) => i.stage === service && i.keyword === "CMD");
      expect(
        cmd.map((i) => i.args),
        `target ${service}`,
      ).toEqual([["node", `services/${service}/dist/main.js`]]);
    }
  });
});
