/** Files a command writes: checked before any work starts, so a run is not spent on output that cannot be written. */
import { accessSync, constants, statSync } from "node:fs";
import { dirname } from "node:path";
import { UsageError } from "./io.ts";

export function checkWritable(path: string, label: string): void {
  const dir = dirname(path);
  try {
    if (!statSync(dir).isDirectory()) throw new Error("not a directory");
    accessSync(dir, constants.W_OK);
  } catch {
    throw new UsageError(`cannot write ${label}: ${dir} is not a writable directory`);
  }
}
