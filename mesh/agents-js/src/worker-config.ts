/**
 * A JS worker's behaviour configuration: a small JSON file re-read on reload (SIGHUP for a worker
 * process, `reload()` for one started in-process). Today it holds the media type of the worker's answers.
 *
 *     { "outputMediaType": "text/plain" }
 */
import { readFile } from "node:fs/promises";
import type { OutputMediaType } from "./scripted-executor.ts";

export interface WorkerConfig {
  outputMediaType: OutputMediaType;
}

const mediaTypes: readonly OutputMediaType[] = ["application/json", "text/plain"];

export class WorkerConfigError extends Error {
  override name = "WorkerConfigError";
}

/** Validates a parsed configuration; fields left out keep the values of `defaults`. */
export function parseWorkerConfig(value: unknown, defaults: WorkerConfig): WorkerConfig {
  if (typeof value !== "object" || value === null || Array.isArray(value))
    throw new WorkerConfigError("the worker configuration must be a JSON object");
  const record = value as Record<string, unknown>;
  for (const key of Object.keys(record))
    if (key !== "outputMediaType")
      throw new WorkerConfigError(`unknown worker configuration field ${JSON.stringify(key)}`);
  const mediaType = record["outputMediaType"];
  if (mediaType === undefined) return { ...defaults };
  if (typeof mediaType !== "string" || !mediaTypes.includes(mediaType as OutputMediaType)) {
    throw new WorkerConfigError(
      `outputMediaType must be one of ${mediaTypes.join(", ")}, got ${JSON.stringify(mediaType)}`,
    );
  }
  return { outputMediaType: mediaType as OutputMediaType };
}

export async function readWorkerConfig(path: string, defaults: WorkerConfig): Promise<WorkerConfig> {
  const text = await readFile(path, "utf8");
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (e) {
    throw new WorkerConfigError(`${path} is not JSON: ${(e as Error).message}`);
  }
  return parseWorkerConfig(parsed, defaults);
}
