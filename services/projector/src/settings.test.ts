import { readFileSync } from "node:fs";
import { settingsBlock } from "@a2a-ledger/env";
import { expect, it } from "vitest";
import { projectorSettings } from "./settings.ts";

it("the README's settings table is the declaration's, row for row", () => {
  const readme = readFileSync(new URL("../README.md", import.meta.url), "utf8");
  expect(settingsBlock(readme), "run `npm run docs:settings`").toBe(projectorSettings.markdown());
});
