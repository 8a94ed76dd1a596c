/**
 * The workers file: where each worker is reached (its recording proxy) and what the dispatcher sends it —
 * the re-dispatch message per skill (and per interrupted state to resume), and the probe's canary
 * messages per skill. JSON, validated whole: every problem is reported with its path.
 *
 *     {
 *       "workers": {
 *         "W3": {
 *           "url": "http://127.0.0.1:22003",
 *           "workerUrl": "http://127.0.0.1:21003",
 *           "transport": "JSONRPC",
 *           "skills": {
 *             "answer": {
 *               "redispatch": { "message": "{correlationId}: answer again", "resume": { "TASK_STATE_INPUT_REQUIRED": "need-input {correlationId}: resumed" } },
 *               "canaries": [ { "message": "delay-ms=800 probe" }, { "message": "need-input probe", "park": true } ]
 *             }
 *           }
 *         }
 *       }
 *     }
 *
 * A skill entry named "*" serves every skill that has no entry of its own.
 */
import { readFileSync, statSync } from "node:fs";
import { normalizeTaskState } from "@a2a-ledger/core";
import type { TaskState } from "@a2a-ledger/schemas";
import { configError } from "./errors.ts";

export type PreferredTransport = "JSONRPC" | "HTTP+JSON";

export interface CanaryConfig {
  message: string;
  /** Leave this canary in its interrupted state and re-poll it (R9). */
  park: boolean;
}

export interface SkillConfig {
  /** null: this skill is probed but never a re-dispatch target. */
  redispatch: { message: string; resume: ReadonlyMap<TaskState, string> } | null;
  canaries: CanaryConfig[];
}

export interface WorkerConfig {
  workerId: string;
  /** The worker's recording proxy: every request of the dispatcher goes through it. */
  url: string;
  /** The worker's own base URL, as its card names it behind the proxy; else learned from probe commands. */
  workerUrl: string | null;
  transport: PreferredTransport | null;
  skills: ReadonlyMap<string, SkillConfig>;
}

export interface WorkersConfig {
  workers: ReadonlyMap<string, WorkerConfig>;
}

export const anySkill = "*";
export const maxConfigBytes = 1024 * 1024;
export const maxCanariesPerSkill = 10;
export const maxMessageChars = 4096;
export const placeholders = [
  "correlationId",
  "attempt",
  "skillId",
  "resumeState",
  "fromServerTaskId",
  "workerId",
  "decisionId",
] as const;
export type Placeholder = (typeof placeholders)[number];

const visibleId = /^[\x21-\x7e]{1,200}$/;
const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

class Problems {
  readonly list: string[] = [];
  add(path: string, message: string): void {
    this.list.push(`${path}: ${message}`);
  }
  unknownKeys(path: string, value: Record<string, unknown>, known: readonly string[]): void {
    for (const key of Object.keys(value))
      if (!known.includes(key)) this.add(`${path}.${key}`, `unknown key (expected ${known.join(", ")})`);
  }
}

function message(problems: Problems, path: string, value: unknown): string | undefined {
  if (typeof value !== "string" || value.trim() === "") return void problems.add(path, "must be a non-empty string");
  if (value.length > maxMessageChars) return void problems.add(path, `must be at most ${maxMessageChars} characters`);
  for (const [, name] of value.matchAll(/\{([^{}]*)\}/g)) {
    if (!(placeholders as readonly string[]).includes(name as string))
      problems.add(path, `unknown placeholder {${name}} (known: ${placeholders.map((p) => `{${p}}`).join(", ")})`);
  }
  return value;
}

function baseUrl(problems: Problems, path: string, value: unknown): string | undefined {
  if (typeof value !== "string") return void problems.add(path, "must be the proxy's http(s) URL");
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return void problems.add(path, `${JSON.stringify(value)} is not a URL`);
  }
  if (
    (url.protocol !== "http:" && url.protocol !== "https:") ||
    url.search !== "" ||
    url.hash !== "" ||
    url.username !== "" ||
    url.password !== ""
  ) {
    return void problems.add(
      path,
      `${JSON.stringify(value)} must be an http(s) URL without query, fragment or credentials`,
    );
  }
  return `${url.protocol}//${url.host}${url.pathname.replace(/\/+$/, "")}`;
}

function skill(problems: Problems, path: string, value: unknown): SkillConfig | undefined {
  if (!isRecord(value)) return void problems.add(path, "must be an object with redispatch and/or canaries");
  problems.unknownKeys(path, value, ["redispatch", "canaries"]);
  let redispatch: SkillConfig["redispatch"] = null;
  if (value.redispatch !== undefined) {
    const r = value.redispatch;
    if (!isRecord(r)) problems.add(`${path}.redispatch`, "must be an object with message and optional resume");
    else {
      problems.unknownKeys(`${path}.redispatch`, r, ["message", "resume"]);
      const text = message(problems, `${path}.redispatch.message`, r.message);
      const resume = new Map<TaskState, string>();
      if (r.resume !== undefined) {
        if (!isRecord(r.resume)) problems.add(`${path}.redispatch.resume`, "must map task states to messages");
        else {
          for (const [state, m] of Object.entries(r.resume)) {
            const normalized = normalizeTaskState(state);
            if (normalized === null || normalized === "TASK_STATE_UNSPECIFIED")
              problems.add(`${path}.redispatch.resume.${state}`, "is not a task state");
            const t = message(problems, `${path}.redispatch.resume.${state}`, m);
            if (normalized !== null && t !== undefined) resume.set(normalized, t);
          }
        }
      }
      if (text !== undefined) redispatch = { message: text, resume };
    }
  }
  const canaries: CanaryConfig[] = [];
  if (value.canaries !== undefined) {
    if (!Array.isArray(value.canaries)) problems.add(`${path}.canaries`, "must be an array");
    else {
      if (value.canaries.length > maxCanariesPerSkill)
        problems.add(`${path}.canaries`, `at most ${maxCanariesPerSkill} canaries per skill`);
      value.canaries.forEach((c: unknown, i) => {
        const at = `${path}.canaries[${i}]`;
        if (!isRecord(c)) return problems.add(at, "must be an object with message and optional park");
        problems.unknownKeys(at, c, ["message", "park"]);
        if (c.park !== undefined && typeof c.park !== "boolean") problems.add(`${at}.park`, "must be true or false");
        const text = message(problems, `${at}.message`, c.message);
        if (text !== undefined) canaries.push({ message: text, park: c.park === true });
      });
      if (canaries.filter((c) => c.park).length > 1)
        problems.add(`${path}.canaries`, "at most one canary per skill is parked");
    }
  }
  if (value.redispatch === undefined && value.canaries === undefined)
    problems.add(path, "needs redispatch, canaries, or both");
  return { redispatch, canaries };
}

function worker(problems: Problems, workerId: string, value: unknown): WorkerConfig | undefined {
  const path = `workers.${workerId}`;
  if (!visibleId.test(workerId)) problems.add(path, "a worker id is 1–200 visible ASCII characters");
  if (!isRecord(value)) return void problems.add(path, "must be an object with url and skills");
  problems.unknownKeys(path, value, ["url", "workerUrl", "transport", "skills"]);
  const url = baseUrl(problems, `${path}.url`, value.url);
  const workerUrl =
    value.workerUrl === undefined ? null : (baseUrl(problems, `${path}.workerUrl`, value.workerUrl) ?? null);
  let transport: PreferredTransport | null = null;
  if (value.transport !== undefined) {
    if (value.transport === "JSONRPC" || value.transport === "HTTP+JSON") transport = value.transport;
    else problems.add(`${path}.transport`, 'must be "JSONRPC" or "HTTP+JSON"');
  }
  const skills = new Map<string, SkillConfig>();
  if (!isRecord(value.skills) || Object.keys(value.skills).length === 0)
    problems.add(`${path}.skills`, "must be an object with at least one skill");
  else {
    for (const [id, s] of Object.entries(value.skills)) {
      if (!visibleId.test(id)) problems.add(`${path}.skills.${id}`, "a skill id is 1–200 visible ASCII characters");
      const parsed = skill(problems, `${path}.skills.${id}`, s);
      if (parsed !== undefined) skills.set(id, parsed);
    }
  }
  return url === undefined ? undefined : { workerId, url, workerUrl, transport, skills };
}

/** Parses and validates the workers file; throws DispatcherConfigError listing every problem. */
export function parseWorkersConfig(text: string, source = "workers file"): WorkersConfig {
  const problems = new Problems();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    throw configError([`${source}: not JSON (${e instanceof Error ? e.message : String(e)})`]);
  }
  const workers = new Map<string, WorkerConfig>();
  if (!isRecord(json)) throw configError([`${source}: must be a JSON object with "workers"`]);
  problems.unknownKeys("$", json, ["workers"]);
  if (!isRecord(json.workers)) problems.add("workers", "must be an object of worker id → worker");
  else {
    for (const [id, w] of Object.entries(json.workers)) {
      const parsed = worker(problems, id, w);
      if (parsed !== undefined) workers.set(id, parsed);
    }
  }
  if (problems.list.length > 0) throw configError(problems.list.map((p) => `${source}: ${p}`));
  return { workers };
}

export function readWorkersConfig(path: string): WorkersConfig {
  let size: number;
  try {
    size = statSync(path).size;
  } catch (e) {
    throw configError([`${path}: cannot be read (${(e as NodeJS.ErrnoException).code ?? String(e)})`]);
  }
  if (size > maxConfigBytes) throw configError([`${path}: ${size} bytes, more than ${maxConfigBytes}`]);
  return parseWorkersConfig(readFileSync(path, "utf8"), path);
}

/** The entry for a skill, else the "*" entry. */
export function skillConfigFor(worker: WorkerConfig, skillId: string | null): SkillConfig | undefined {
  return (skillId === null ? undefined : worker.skills.get(skillId)) ?? worker.skills.get(anySkill);
}

/** A message with its placeholders filled in (a missing value becomes the empty string). */
export function renderMessage(template: string, values: Partial<Record<Placeholder, string | number | null>>): string {
  return template.replace(/\{([A-Za-z]+)\}/g, (_m, name: string) => {
    const value = values[name as Placeholder];
    return value === undefined || value === null ? "" : String(value);
  });
}
