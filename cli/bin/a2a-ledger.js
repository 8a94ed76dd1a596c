#!/usr/bin/env node
// Runs the compiled CLI (dist/, made by `npm run build`). Under the `development` export condition
// (the tests, which run the sources) `#main` is the TypeScript source instead, run through tsx.
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";

const entry = import.meta.resolve("#main");
if (entry.endsWith(".ts")) {
  const { register } = await import("tsx/esm/api");
  register();
} else if (!existsSync(fileURLToPath(entry))) {
  process.stderr.write(
    `a2a-ledger: the CLI is not built (${fileURLToPath(entry)} is missing): run \`npm run build\` first\n`,
  );
  process.exit(2);
}
const { main } = await import(entry);
process.exitCode = await main(process.argv.slice(2));
