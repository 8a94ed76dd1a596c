/**
 * The story file the orchestrator process reads (`--story <file>`): the run id, the correlation ids of its
 * three tasks, the three workers with their proxies, the skill and output modes. Validated: each problem is reported with its path.
 */
import { readFileSync } from "node:fs";
import type { StoryConfig } from "./story.ts";

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
const visible = /^[\x21-\x7e]{1,100}$/;

export class StoryConfigError extends Error {
  override name = "StoryConfigError";
  constructor(readonly problems: string[]) {
    super(`Invalid story file:\n${problems.map((p) => `  - ${p}`).join("\n")}`);
  }
}

export function parseStoryConfig(text: string): StoryConfig {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    throw new StoryConfigError([`not JSON (${e instanceof Error ? e.message : String(e)})`]);
  }
  if (!isRecord(json)) throw new StoryConfigError(["must be a JSON object"]);
  const problems: string[] = [];
  if (typeof json.runId !== "string" || !visible.test(json.runId))
    problems.push("runId: 1–100 visible ASCII characters");
  if (typeof json.skillId !== "string" || !visible.test(json.skillId))
    problems.push("skillId: 1–100 visible ASCII characters");
  if (
    !Array.isArray(json.acceptedOutputModes) ||
    json.acceptedOutputModes.length === 0 ||
    !json.acceptedOutputModes.every((m) => typeof m === "string" && /^[\w.+-]+\/[\w.+-]+$/.test(m))
  )
    problems.push("acceptedOutputModes: a non-empty list of media types");
  const timeout = json.ledgerTimeoutMs ?? 120_000;
  if (typeof timeout !== "number" || !Number.isInteger(timeout) || timeout < 1_000 || timeout > 3_600_000)
    problems.push("ledgerTimeoutMs: an integer from 1000 to 3600000");
  const tasks: Record<string, string> = {};
  for (const key of ["lost", "retried", "guarded"]) {
    const id = isRecord(json.tasks) ? json.tasks[key] : undefined;
    if (typeof id !== "string" || !visible.test(id))
      problems.push(`tasks.${key}: the correlation id of the story's ${key} task, 1–100 visible ASCII characters`);
    else tasks[key] = id;
  }
  if (new Set(Object.values(tasks)).size !== Object.keys(tasks).length)
    problems.push("tasks: three different correlation ids");
  const workers: Record<string, { workerId: string; url: string }> = {};
  for (const key of ["w1", "w2", "w3"]) {
    const w = isRecord(json.workers) ? json.workers[key] : undefined;
    if (
      !isRecord(w) ||
      typeof w.workerId !== "string" ||
      !visible.test(w.workerId) ||
      typeof w.url !== "string" ||
      !/^https?:\/\/[^\s?#]+$/.test(w.url)
    ) {
      problems.push(`workers.${key}: {workerId, url} with the worker's id and its proxy's http(s) URL`);
      continue;
    }
    workers[key] = { workerId: w.workerId, url: w.url.replace(/\/+$/, "") };
  }
  if (problems.length > 0) throw new StoryConfigError(problems);
  return {
    runId: json.runId as string,
    tasks: { lost: tasks.lost as string, retried: tasks.retried as string, guarded: tasks.guarded as string },
    skillId: json.skillId as string,
    acceptedOutputModes: json.acceptedOutputModes as string[],
    ledgerTimeoutMs: timeout as number,
    workers: workers as StoryConfig["workers"],
  };
}

export function readStoryConfig(path: string): StoryConfig {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (e) {
    throw new StoryConfigError([`${path} cannot be read (${(e as NodeJS.ErrnoException).code ?? String(e)})`]);
  }
  return parseStoryConfig(text);
}
