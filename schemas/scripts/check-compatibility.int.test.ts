import { execFile } from "node:child_process";
import { cpSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { beforeAll, describe, expect, it } from "vitest";
import { endpointsFromEnv } from "@a2a-ledger/client-config";
import { Serde } from "../src/serde.ts";
import { avroRoot } from "./avro-sources.ts";

const run = promisify(execFile);
const script = new URL("./check-compatibility.ts", import.meta.url).pathname;

async function check(avroDir?: string): Promise<{ code: number; output: string }> {
  const args = ["--import", "tsx", script, ...(avroDir ? ["--avro-dir", avroDir] : [])];
  try {
    const { stdout, stderr } = await run(process.execPath, args, { env: process.env });
    return { code: 0, output: stdout + stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, output: e.stdout + e.stderr };
  }
}

function editedCopy(file: string, edit: (schema: { fields: unknown[] }) => void): string {
  const dir = mkdtempSync(join(tmpdir(), "avro-"));
  cpSync(avroRoot, dir, { recursive: true });
  const path = join(dir, file);
  const schema = JSON.parse(readFileSync(path, "utf8")) as { fields: unknown[] };
  edit(schema);
  writeFileSync(path, JSON.stringify(schema));
  return dir;
}

beforeAll(async () => {
  await new Serde(endpointsFromEnv().registryUrl).registerAll();
});

describe("npm run schemas:check", () => {
  it("passes when the sources are what the registry holds", async () => {
    const { code, output } = await check();
    expect(output).toMatch(/0 incompatible/);
    expect(code).toBe(0);
  }, 60_000);

  it("fails, naming the subject, when a change is not backward compatible", async () => {
    // A new field without a default: records written with the old schema cannot be read.
    const dir = editedCopy("observations/TaskDispatched.avsc", (s) => s.fields.push({ name: "priority", type: "int" }));
    const { code, output } = await check(dir);
    expect(output).toMatch(/INCOMPATIBLE a2a\.ledger\.v1\.TaskDispatched/);
    expect(output).toMatch(/1 incompatible/);
    expect(code).toBe(1);
  }, 60_000);

  it("accepts a backward-compatible change (a new field with a default)", async () => {
    const dir = editedCopy("observations/TaskDispatched.avsc", (s) =>
      s.fields.push({ name: "priority", type: "int", default: 0 }),
    );
    const { code, output } = await check(dir);
    expect(output).toMatch(/compatible\s+a2a\.ledger\.v1\.TaskDispatched/);
    expect(code).toBe(0);
  }, 60_000);
});
