/** The core's own modules: every `.ts` file below `dir` that is not a test. */
import { readdirSync } from "node:fs";
import { join } from "node:path";

export function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((d) => {
    const path = join(dir, d.name);
    if (d.isDirectory()) return sources(path);
    return d.name.endsWith(".ts") && !d.name.endsWith(".test.ts") ? [path] : [];
  });
}
