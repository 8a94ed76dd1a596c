import { execFile } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parseStoryConfig, StoryConfigError } from "./story-config.ts";

const valid = {
  runId: "abc123",
  tasks: { lost: "task-abc123", retried: "retry-abc123", guarded: "guarded-abc123" },
  skillId: "answer",
  acceptedOutputModes: ["application/json", "text/plain"],
  workers: {
    w1: { workerId: "W1-abc123", url: "http://127.0.0.1:22001/" },
    w2: { workerId: "W2-abc123", url: "http://127.0.0.1:22002" },
    w3: { workerId: "W3-abc123", url: "https://p3.example" },
  },
};

const problemsOf = (value: unknown): string[] => {
  try {
    parseStoryConfig(typeof value === "string" ? value : JSON.stringify(value));
  } catch (e) {
    if (e instanceof StoryConfigError) return e.problems;
    throw e;
  }
  return [];
};

describe("the story file", () => {
  it("reads the run, the skill, the accepted output modes and each worker's proxy", () => {
    const config = parseStoryConfig(JSON.stringify(valid));
    expect(config.workers.w1).toEqual({ workerId: "W1-abc123", url: "http://127.0.0.1:22001" });
    expect(config.ledgerTimeoutMs).toBe(120_000);
    expect(config.tasks).toEqual({ lost: "task-abc123", retried: "retry-abc123", guarded: "guarded-abc123" });
  });

  it("takes the story's correlation ids from the file: each present, visible, and different", () => {
    expect(problemsOf({ ...valid, tasks: { lost: "a", retried: "has space" } })).toEqual([
      "tasks.retried: the correlation id of the story's retried task, 1–100 visible ASCII characters",
      "tasks.guarded: the correlation id of the story's guarded task, 1–100 visible ASCII characters",
    ]);
    expect(problemsOf({ ...valid, tasks: { lost: "a", retried: "a", guarded: "b" } })).toEqual([
      "tasks: three different correlation ids",
    ]);
  });

  it("reports every problem, not only the first", () => {
    expect(problemsOf("nope")).toEqual([expect.stringMatching(/^not JSON/)]);
    expect(problemsOf([])).toEqual(["must be a JSON object"]);
    expect(
      problemsOf({
        ...valid,
        runId: "has space",
        acceptedOutputModes: ["json"],
        ledgerTimeoutMs: 5,
        workers: { w1: { workerId: "W1", url: "ftp://x" } },
      }),
    ).toEqual([
      "runId: 1–100 visible ASCII characters",
      "acceptedOutputModes: a non-empty list of media types",
      "ledgerTimeoutMs: an integer from 1000 to 3600000",
      "workers.w1: {workerId, url} with the worker's id and its proxy's http(s) URL",
      "workers.w2: {workerId, url} with the worker's id and its proxy's http(s) URL",
      "workers.w3: {workerId, url} with the worker's id and its proxy's http(s) URL",
    ]);
  });
});

describe("the orchestrator process", () => {
  it("exits 2 with the reason when the story file is missing or it runs without a supervisor", async () => {
    const main = new URL("./main.ts", import.meta.url).pathname;
    const runMain = (args: string[]) =>
      new Promise<{ code: number | null; stderr: string }>((resolve) =>
        execFile(process.execPath, ["--import", "tsx", main, ...args], { timeout: 30_000 }, (error, _stdout, stderr) =>
          resolve({ code: error === null ? 0 : ((error as { code?: number }).code ?? null), stderr }),
        ),
      );
    expect(await runMain([])).toMatchObject({ code: 2, stderr: expect.stringContaining("--story <file> is required") });
    expect(await runMain(["--story", "/nonexistent/story.json"])).toMatchObject({
      code: 2,
      stderr: expect.stringContaining("cannot be read (ENOENT)"),
    });
    const file = join(mkdtempSync(join(tmpdir(), "story-")), "story.json");
    writeFileSync(file, JSON.stringify(valid));
    expect(await runMain(["--story", file])).toMatchObject({
      code: 2,
      stderr: expect.stringContaining("no IPC channel"),
    });
  }, 60_000);
});
