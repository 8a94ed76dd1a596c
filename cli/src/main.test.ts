import { execFile } from "node:child_process";
import { join } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { run } from "../test/run.ts";

const bin = join(import.meta.dirname, "../bin/a2a-ledger.js");
const example = join(import.meta.dirname, "../examples/design-section-1.ndjson");

describe("the a2a-ledger dispatcher", () => {
  it("lists commands on help and refuses unknown ones", async () => {
    expect((await run(["help"])).stdout).toContain("replay");
    const unknown = await run(["frobnicate"]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('unknown command "frobnicate"');
  });

  it("runs through the bin shim under plain node, with no progress bar or colour when piped", async () => {
    const { stdout, stderr } = await promisify(execFile)(
      process.execPath,
      [bin, "replay", "--input", example, "--candidate", "default/1"],
      { env: { ...process.env, FORCE_COLOR: "" } },
    );
    expect(stdout).toContain("baseline default/4 vs candidate default/1");
    expect(stdout).not.toContain("\x1b[");
    expect(stderr).toBe("");
    const json = await promisify(execFile)(process.execPath, [bin, "replay", "--input", example, "--json"]);
    expect(json.stdout.trim().split("\n")).toHaveLength(12);
  });

  it("returns exit code 2 through the bin shim on bad input", async () => {
    const err = await promisify(execFile)(process.execPath, [bin, "replay", "--input", bin]).catch(
      (e: { code: number; stderr: string }) => e,
    );
    expect(err).toMatchObject({ code: 2, stderr: expect.stringContaining("a2a-ledger.js:1:") });
  });
});
