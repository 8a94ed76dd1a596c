import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Decision } from "@a2a-ledger/schemas";
import { describe, expect, it } from "vitest";
import { run } from "../../test/run.ts";

const example = join(import.meta.dirname, "../../examples/design-section-1.ndjson");
const exampleLines = readFileSync(example, "utf8").split("\n");
const dir = mkdtempSync(join(tmpdir(), "a2a-ledger-replay-"));

function file(name: string, content: string | Buffer): string {
  const path = join(dir, name);
  writeFileSync(path, content);
  return path;
}

const jsonLines = (text: string): Decision[] =>
  text
    .split("\n")
    .filter((l) => l !== "")
    .map((l) => JSON.parse(l) as Decision);

describe("a2a-ledger replay on the DESIGN §1 example", () => {
  it("prints the decisions the design predicts as JSON lines", async () => {
    const { code, stdout } = await run(["replay", "--input", example, "--json"]);
    expect(code).toBe(0);
    const decisions = jsonLines(stdout);
    const task = decisions.filter((d) => d.correlationId === "task-42");
    expect(decisions.filter((d) => d.type === "ProbeRequested").map((d) => d.workerId)).toEqual([
      "w-acme",
      "w-beta",
      "w-gamma",
    ]);
    expect(decisions.filter((d) => d.type === "TaskFailed")).toEqual([]);
    expect(task).toMatchObject([
      // default/4: w-acme's card claims a durable store, and it lost a task in input-required.
      { type: "CapabilitiesVerified", workerId: "w-acme", durable: false },
      {
        type: "TaskIndeterminate",
        workerId: "w-acme",
        serverTaskId: "acme-7f3a",
        lastState: "TASK_STATE_INPUT_REQUIRED",
        lastObserver: "proxy",
      },
      {
        type: "RedispatchCommanded",
        targetWorkerId: "w-gamma",
        attempt: 2,
        resumeState: "TASK_STATE_INPUT_REQUIRED",
        fromServerTaskId: "acme-7f3a",
      },
      {
        type: "ContractViolation",
        kind: "OUTPUT_MODE_NOT_ADVERTISED",
        workerId: "w-gamma",
        serverTaskId: "gamma-19c2",
        observed: "text/markdown",
      },
      { type: "ContractViolation", kind: "DIVERGENT_ARTIFACTS", serverTaskId: "gamma-19c2" },
      { type: "TaskReconciled", serverTaskId: "gamma-19c2", attempt: 2, state: "TASK_STATE_COMPLETED" },
    ]);
  });

  it("prints a readable summary without --json", async () => {
    const { code, stdout, stderr } = await run(["replay", "--input", example]);
    expect(code).toBe(0);
    expect(stdout).toContain("RedispatchCommanded w-acme → w-gamma attempt 2, resume TASK_STATE_INPUT_REQUIRED");
    expect(stderr).toContain("16 observations, 12 decisions (rules default/4)");
  });

  it("blocks without the worker that verifies input-required", async () => {
    const input = file(
      "no-gamma.ndjson",
      exampleLines.filter((l) => !/"(AgentCardObserved|ProbeCompleted)".*"w-gamma"/.test(l)).join("\n"),
    );
    const { stdout } = await run(["replay", "--input", input, "--json"]);
    expect(
      jsonLines(stdout)
        .filter((d) => d.correlationId === "task-42" && d.type !== "CapabilitiesVerified")
        .map((d) => d.type)
        .slice(0, 2),
    ).toEqual(["TaskIndeterminate", "ReconciliationBlocked"]);
  });
});

describe("a2a-ledger replay --candidate", () => {
  const noGamma = () =>
    file(
      "no-gamma-2.ndjson",
      exampleLines.filter((l) => !/"(AgentCardObserved|ProbeCompleted)".*"w-gamma"/.test(l)).join("\n"),
    );

  it("prints the per-correlation differences and exits 1 with --fail-on-diff", async () => {
    const { code, stdout } = await run([
      "replay",
      "--baseline",
      "default/2",
      "--input",
      noGamma(),
      "--candidate",
      "restart-from-scratch",
      "--fail-on-diff",
    ]);
    expect(code).toBe(1);
    expect(stdout).toContain("1 correlation(s) differ");
    expect(stdout).toContain("task-42\n  - ReconciliationBlocked");
    expect(stdout).toContain("  + RedispatchCommanded w-acme → w-beta attempt 2, restart from scratch");
  });

  it("exits 0 when the candidate decides the same, even with --fail-on-diff", async () => {
    const { code, stdout } = await run([
      "replay",
      "--baseline",
      "default/2",
      "--input",
      example,
      "--candidate",
      "restart-from-scratch",
      "--fail-on-diff",
      "--json",
    ]);
    expect(code).toBe(0);
    const lines = jsonLines(stdout) as unknown as Record<string, unknown>[];
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({
      summary: {
        events: 16,
        correlations: 4,
        correlationsChanged: 0,
        baseline: { rulesVersion: "default/2", decisions: 11 },
        candidate: { rulesVersion: "restart-from-scratch/2", decisions: 11 },
      },
    });
  });

  it("loads a rule set from a module path", async () => {
    const { code, stdout } = await run([
      "replay",
      "--input",
      example,
      "--candidate",
      join(import.meta.dirname, "../../test/fixtures/no-divergence-rules.ts"),
      "--json",
    ]);
    expect(code).toBe(0);
    const [diff] = stdout
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { correlationId: string; removed: Decision[]; added: Decision[] });
    expect(diff).toMatchObject({
      correlationId: "task-42",
      removed: [{ type: "ContractViolation", kind: "DIVERGENT_ARTIFACTS" }],
      added: [],
    });
  });

  it("refuses an unknown rule set name", async () => {
    const { code, stderr } = await run(["replay", "--input", example, "--rules", "strictest"]);
    expect(code).toBe(2);
    expect(stderr).toContain('no rule set named "strictest"');
  });
});

describe("a2a-ledger replay with trusted vendors", () => {
  it("fails a lost task of a trusted worker with a durable store claim (the trust before the loss), and records the loss against the claim", async () => {
    const lines = exampleLines.map((l) =>
      l
        .replace('"taskStore": "ephemeral"', '"taskStore": "durable"')
        .replace(/"cardHash": "[0-9a-f]{64}", "skillId"/, '"skillId"'),
    );
    const input = file("trusted.ndjson", lines.filter((l) => !l.includes('"ProbeCompleted"')).join("\n"));
    const { code, stdout } = await run(["replay", "--input", input, "--json", "--trusted-vendors", "Acme, Beta"]);
    expect(code).toBe(0);
    const lost = jsonLines(stdout).filter(
      (d) => d.decisionId.startsWith("not-found-1:") && d.type !== "CapabilitiesVerified",
    );
    expect(lost.map((d) => [d.type, "kind" in d ? d.kind : undefined])).toEqual([
      ["ContractViolation", "TASK_STORE_NOT_DURABLE"],
      ["TaskFailed", undefined],
    ]);
    expect((lost[1] as { reason?: string }).reason).toContain("the worker was trusted before this loss");
  });
});

describe("a2a-ledger replay refuses malformed input, naming the line", () => {
  const good = exampleLines[0] as string;
  const cases: [string, string | Buffer, RegExp][] = [
    ["bad JSON", `${good}\n{"type": "TaskStateObserved",\n`, /:2: invalid JSON/],
    [
      "an unknown type",
      `${good}\n\n${good.replace('"AgentCardObserved"', '"CardExploded"')}\n`,
      /:3: type: unknown observation type "CardExploded"/,
    ],
    ["a missing field", `${good.replace(/"workerId": "w-acme", /, "")}\n`, /:1: workerId: missing/],
    ["a JSON array", `${good}\n[${good}]\n`, /:2: expected one observation as a JSON object, got an array/],
    ["a JSON number", `${good}\n42\n`, /:2: expected one observation as a JSON object, got number/],
    [
      "deeply nested JSON",
      `${good.replace('"etag"', `"deep": ${"[".repeat(5000)}${"]".repeat(5000)}, "etag"`)}\n`,
      /:1: deep(\[0\])+: nested deeper than 32 levels/,
    ],
    [
      "non-UTF-8 bytes",
      Buffer.concat([Buffer.from(`${good}\n{"type":"`), Buffer.from([0xff, 0xfe]), Buffer.from('"}\n')]),
      /:2: not valid UTF-8/,
    ],
    [
      "an oversized line",
      `${good}\n${good}\n{"type":"TaskStateObserved","pad":"${"x".repeat(1024 * 1024)}"}\n`,
      /:3: line longer than 1048576 bytes/,
    ],
  ];

  it.each(cases)("%s is exit code 2 with the line number", async (_what, content, message) => {
    const input = file(`bad-${_what.replace(/\W+/g, "-")}.ndjson`, content);
    const { code, stdout, stderr } = await run(["replay", "--input", input, "--json"]);
    expect(code).toBe(2);
    expect(stdout).toBe("");
    expect(stderr).toMatch(/^a2a-ledger replay: malformed input: /);
    expect(stderr).toMatch(message);
  });

  it("reports a missing file and missing --input as usage errors", async () => {
    expect((await run(["replay", "--input", join(dir, "nope.ndjson")])).code).toBe(2);
    const { code, stderr } = await run(["replay"]);
    expect(code).toBe(2);
    expect(stderr).toContain("--input is required");
  });
});
