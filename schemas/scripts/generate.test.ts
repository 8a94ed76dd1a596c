import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { generatedFiles, generateSchemas, generateTypes } from "./generate.ts";

describe("generated TypeScript", () => {
  it("matches the .avsc sources (run `npm run schemas:generate` after changing a schema)", () => {
    expect(readFileSync(generatedFiles.types, "utf8")).toBe(generateTypes());
    expect(readFileSync(generatedFiles.schemas, "utf8")).toBe(generateSchemas());
  });
});
