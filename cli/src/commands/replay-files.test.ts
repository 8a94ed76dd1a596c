/**
 * `replay` and `export` on files (no Kafka): Avro and NDJSON inputs, windows, one correlation, the
 * comparing outputs, and bad inputs — each a clear error naming the file and the line or byte, exit
 * code 2, and nothing presented as a result.
 */
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { defaultRuleSet, defaultRuleSetV4, replay, replayLog } from "@a2a-ledger/core";
import { generateLog } from "@a2a-ledger/core/testing";
import type { Decision } from "@a2a-ledger/schemas";
import { beforeAll, describe, expect, it } from "vitest";
import { parseLines } from "../../test/observations.ts";
import { run } from "../../test/run.ts";
import throwingRules from "../../test/fixtures/throwing-rules.ts";
import type { RejectionSummary } from "../replay/rejections.ts";

const dir = mkdtempSync(join(tmpdir(), "a2a-ledger-replay-files-"));
const lines = generateLog(20_000);
const observations = parseLines(lines);
const full = replay(observations, defaultRuleSet);
const ndjson = join(dir, "log.ndjson");
const avro = join(dir, "log.avro");
const fixtures = join(import.meta.dirname, "../../test/fixtures");
const jsonLines = <T = Decision>(text: string): T[] =>
  text
    .split("\n")
    .filter((l) => l !== "")
    .map((l) => JSON.parse(l) as T);

beforeAll(async () => {
  writeFileSync(ndjson, `${lines.join("\n")}\n`);
  const exported = await run(["export", "--input", ndjson, "--output", avro]);
  expect(exported.code).toBe(0);
});

describe("replay of files", () => {
  it("decides the same on the Avro export as on the NDJSON, and as the core's replay", async () => {
    const a = await run(["replay", "--input", avro, "--json"]);
    const b = await run(["replay", "--input", ndjson, "--json"]);
    expect(a.code).toBe(0);
    expect(a.stdout).toBe(b.stdout);
    expect(jsonLines(a.stdout)).toEqual(full);
  });

  it("exports NDJSON that round-trips: Avro → NDJSON gives the same observations", async () => {
    const back = join(dir, "back.ndjson");
    expect((await run(["export", "--input", avro, "--output", back])).code).toBe(0);
    expect(parseLines(readFileSync(back, "utf8").split("\n"))).toEqual(observations);
  });

  it("exports one correlation with every correlation that can shape the capabilities whole, or exactly its own with --only-scope", async () => {
    const target = full.find((d) => d.type === "RedispatchCommanded")?.correlationId as string;
    const withCapabilities = join(dir, "one.ndjson");
    const only = join(dir, "only.ndjson");
    expect((await run(["export", "--input", avro, "--correlation", target, "--output", withCapabilities])).code).toBe(
      0,
    );
    expect(
      (await run(["export", "--input", avro, "--correlation", target, "--only-scope", "--output", only])).code,
    ).toBe(0);
    const own = observations.filter((o) => o.correlationId === target);
    expect(parseLines(readFileSync(only, "utf8").split("\n"))).toEqual(own);
    const exported = parseLines(readFileSync(withCapabilities, "utf8").split("\n"));
    // A card fetch, a probe or a TaskNotFound anywhere can change the capability table (a lost real task
    // revokes under default/3 and default/4): those correlations are written whole, in log order.
    const shaping = new Set(
      observations
        .filter(
          (o) => o.type === "AgentCardObserved" || o.type === "ProbeCompleted" || o.type === "TaskNotFoundObserved",
        )
        .map((o) => o.correlationId),
    );
    expect(exported).toEqual(observations.filter((o) => o.correlationId === target || shaping.has(o.correlationId)));
    expect(exported.length).toBeLessThan(observations.length);
    const replayed = await run(["replay", "--input", withCapabilities, "--correlation", target, "--json"]);
    expect(jsonLines(replayed.stdout)).toEqual(full.filter((d) => d.correlationId === target));
  });

  it("replays a window exactly: its decisions are the whole log's from the window on, also for correlations that started before it", async () => {
    const since = (observations[10_000] as { occurredAt: number }).occurredAt;
    const { code, stdout } = await run(["replay", "--input", avro, "--since", new Date(since).toISOString(), "--json"]);
    expect(code).toBe(0);
    const windowed = jsonLines(stdout);
    const startedBefore = new Set(observations.filter((o) => o.occurredAt < since).map((o) => o.correlationId));
    const inWindow = (ds: readonly Decision[]) => ds.filter((d) => d.decidedAt >= since);
    expect(windowed).toEqual(inWindow(full));
    // Both kinds are there: correlations that started in the window, and ones that started before it.
    expect(windowed.filter((d) => !startedBefore.has(d.correlationId)).length).toBeGreaterThan(100);
    expect(windowed.filter((d) => startedBefore.has(d.correlationId)).length).toBeGreaterThan(0);
  });

  it("replays a window of default/4 exactly, revocations by real tasks lost before it included", async () => {
    const since = (observations[10_000] as { occurredAt: number }).occurredAt;
    const v4 = replay(observations, defaultRuleSetV4);
    // The window's decisions depend on losses before it: a lost real task revoked a card (R9 for tasks).
    const revokedBefore = v4.filter(
      (d) => d.type === "CapabilitiesVerified" && d.durable === false && d.decidedAt < since,
    );
    expect(revokedBefore.length).toBeGreaterThan(0);
    const { code, stdout } = await run([
      "replay",
      "--input",
      ndjson,
      "--since",
      String(since),
      "--baseline",
      "default/4",
      "--json",
    ]);
    expect(code).toBe(0);
    expect(jsonLines(stdout)).toEqual(v4.filter((d) => d.decidedAt >= since));
    const one = v4.find((d) => d.type === "RedispatchCommanded" && d.decidedAt >= since)?.correlationId as string;
    const alone = await run(["replay", "--input", ndjson, "--correlation", one, "--baseline", "default/4", "--json"]);
    expect(jsonLines(alone.stdout)).toEqual(v4.filter((d) => d.correlationId === one));
  });

  it("marks the differences of correlations that started before the window", async () => {
    const since = (observations[10_000] as { occurredAt: number }).occurredAt;
    const { stdout } = await run([
      "replay",
      "--input",
      avro,
      "--since",
      String(since),
      "--baseline",
      "default/2",
      "--candidate",
      "default/1",
      "--json",
    ]);
    const out = jsonLines<{
      correlationId?: string;
      startedBeforeWindow?: boolean;
      summary?: { scope: { since: string } };
    }>(stdout);
    expect(out.at(-1)?.summary?.scope.since).toBe(new Date(since).toISOString());
    const startedBefore = new Set(observations.filter((o) => o.occurredAt < since).map((o) => o.correlationId));
    const diffs = out.slice(0, -1);
    expect(diffs.filter((d) => d.startedBeforeWindow).length).toBeGreaterThan(0);
    expect(diffs.filter((d) => !d.startedBeforeWindow).length).toBeGreaterThan(0);
    for (const d of diffs) expect(d.startedBeforeWindow).toBe(startedBefore.has(d.correlationId as string));
  });

  it("replays one correlation and an --until window", async () => {
    const target = full.find((d) => d.type === "RedispatchCommanded")?.correlationId as string;
    const one = await run(["replay", "--input", avro, "--correlation", target, "--json"]);
    expect(jsonLines(one.stdout)).toEqual(full.filter((d) => d.correlationId === target));
    const until = (observations[5_000] as { occurredAt: number }).occurredAt;
    const early = await run(["replay", "--input", ndjson, "--until", String(until), "--json"]);
    expect(jsonLines(early.stdout)).toEqual(full.filter((d) => d.decidedAt < until));
  });

  it("compares two rule sets: a summary line for machines, a coloured-or-plain text for people, an HTML report, --fail-on-diff", async () => {
    const report = join(dir, "report.html");
    const compare = ["replay", "--input", avro, "--baseline", "default/2", "--candidate", "restart-from-scratch"];
    const json = await run([...compare, "--json", "--report", report, "--fail-on-diff"]);
    expect(json.code).toBe(1);
    const out = jsonLines<Record<string, unknown>>(json.stdout);
    const summary = out.at(-1)?.["summary"] as {
      events: number;
      correlations: number;
      correlationsChanged: number;
      baseline: { byKind: Record<string, number> };
      candidate: { byKind: Record<string, number> };
    };
    expect(summary.events).toBe(20_000);
    expect(summary.correlations).toBe(new Set(observations.map((o) => o.correlationId)).size);
    expect(summary.correlationsChanged).toBe(out.length - 1);
    expect(summary.correlationsChanged).toBeGreaterThan(10);
    expect(summary.baseline.byKind["ReconciliationBlocked"]).toBe(summary.correlationsChanged);
    expect(summary.candidate.byKind["ReconciliationBlocked"]).toBeUndefined();
    for (const d of out.slice(0, -1))
      expect(d).toMatchObject({
        first: {
          baseline: { type: "ReconciliationBlocked" },
          candidate: { type: "RedispatchCommanded", resumeState: null },
        },
      });
    const html = readFileSync(report, "utf8");
    expect(html.match(/<details><summary>task-/g)).toHaveLength(summary.correlationsChanged);
    const text = await run(compare);
    expect(text.code).toBe(0);
    expect(text.stdout).toContain(`${summary.correlationsChanged} correlation(s) differ`);
  });
});

describe("observations the rules reject are reported as the reconciler dead-letters them, and the rest is decided", () => {
  // The fixture throws on every TaskNotFoundObserved; the reconciler would dead-letter each and go on.
  const notFoundLines = lines.flatMap((l, i) => (l.includes('"TaskNotFoundObserved"') ? [i + 1] : []));
  const expected = replayLog(observations, throwingRules);
  const throwing = join(fixtures, "throwing-rules.ts");

  it("the core's replayLog and the CLI agree on the rejections and on every other decision", () => {
    expect(notFoundLines.length).toBeGreaterThan(1);
    expect(expected.rejected.map((r) => r.index + 1)).toEqual(notFoundLines);
    expect(expected.decisions.length).toBeGreaterThan(0);
  });

  it("listing: decisions on stdout, exit 0, each rejection named by file and line with its reason code on stderr", async () => {
    const result = await run(["replay", "--input", ndjson, "--baseline", throwing]);
    expect(result.code).toBe(0);
    const listed = await run(["replay", "--input", ndjson, "--baseline", throwing, "--json"]);
    expect(listed.code).toBe(0);
    expect(jsonLines(listed.stdout)).toEqual(expected.decisions);
    const stderr = result.stderr.split("\n");
    expect(stderr[0]).toBe(
      `a2a-ledger replay: rules throwing/1 rejected ${notFoundLines.length} observation(s), as the reconciler dead-letters them (RECONCILER_RULES_REJECTED); the rest was decided:`,
    );
    expect(stderr[1]).toMatch(
      new RegExp(
        `^a2a-ledger replay:   .*log\\.ndjson:${notFoundLines[0]} \\(eventId "ev-\\d+", correlation "[^"]+"\\): explode: cannot judge a lost task$`,
      ),
    );
    expect(result.stderr).toContain(
      `, ${expected.decisions.length} decisions, ${notFoundLines.length} rejected (rules throwing/1)`,
    );
    // With --json the report is one JSON line on stderr: stdout stays decisions only.
    const report = JSON.parse(listed.stderr.trim()) as { rejected: RejectionSummary };
    expect(report.rejected.count).toBe(notFoundLines.length);
    expect(report.rejected.observations.map((r) => [r.where.replace(/^.*:/, ""), r.reason])).toEqual(
      notFoundLines.slice(0, 100).map((n) => [String(n), "RECONCILER_RULES_REJECTED"]),
    );
    expect(report.rejected.observations[0]?.eventId).toBe(observations[(notFoundLines[0] as number) - 1]?.eventId);
  });

  it("comparing: the summary names each side's rejections; an Avro input names them by byte offset", async () => {
    const result = await run(["replay", "--input", avro, "--candidate", throwing, "--json"]);
    expect(result.code).toBe(0);
    const summary = jsonLines<{ summary?: { rejected: { baseline: RejectionSummary; candidate: RejectionSummary } } }>(
      result.stdout,
    ).at(-1)?.summary as { rejected: { baseline: RejectionSummary; candidate: RejectionSummary } };
    expect(summary.rejected.baseline).toEqual({
      rulesVersion: defaultRuleSet.rulesVersion,
      count: 0,
      observations: [],
    });
    expect(summary.rejected.candidate.count).toBe(notFoundLines.length);
    expect(summary.rejected.candidate.observations[0]?.where).toMatch(/log\.avro: byte \d+$/);
    const text = await run(["replay", "--input", ndjson, "--candidate", throwing]);
    expect(text.code).toBe(0);
    expect(text.stdout).toContain(
      `rules throwing/1 rejected ${notFoundLines.length} observation(s), as the reconciler dead-letters them (RECONCILER_RULES_REJECTED); the rest was decided:`,
    );
  });

  it("a clean replay reports nothing and keeps its output", async () => {
    const result = await run(["replay", "--input", ndjson]);
    expect(result.code).toBe(0);
    expect(result.stderr).toBe(
      `${observations.length} observations, ${full.length} decisions (rules ${defaultRuleSet.rulesVersion})\n`,
    );
  });
});

describe("bad inputs are named by file and line or byte, exit 2, and leave no result", () => {
  const report = () => join(dir, `never-${Math.random().toString(36).slice(2)}.html`);

  async function refused(args: string[], message: RegExp, out = report()): Promise<void> {
    const result = await run([...args, "--candidate", "restart-from-scratch", "--report", out]);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe("");
    expect(result.stderr).toMatch(message);
    expect(existsSync(out)).toBe(false);
    expect(existsSync(`${out}.partial`)).toBe(false);
  }

  it("a truncated Avro file", async () => {
    const bytes = readFileSync(avro);
    const cut = join(dir, "cut.avro");
    writeFileSync(cut, bytes.subarray(0, Math.floor(bytes.length * 0.7)));
    await refused(
      ["replay", "--input", cut],
      /^a2a-ledger replay: malformed input: .*cut\.avro:byte \d+: truncated: a block of \d+ records needs \d+ bytes/,
    );
  });

  it("an Avro file written with an unknown schema", async () => {
    const avsc = await import("avsc");
    const path = join(dir, "foreign.avro");
    const encoder = avsc.default.createFileEncoder(path, {
      type: "record",
      name: "com.example.Invoice",
      fields: [{ name: "amount", type: "long" }],
    });
    encoder.end({ amount: 1 });
    await new Promise((r) => encoder.on("finish", r));
    await new Promise((r) => setTimeout(r, 50));
    await refused(
      ["replay", "--input", path],
      /malformed input: .*foreign\.avro:byte 4: written with an unknown schema \(com\.example\.Invoice\)/,
    );
  });

  it("a garbage NDJSON line in the middle of a long file", async () => {
    const path = join(dir, "garbage.ndjson");
    writeFileSync(path, [...lines.slice(0, 15_000), "}{ not json", ...lines.slice(15_000)].join("\n"));
    await refused(["replay", "--input", path], /malformed input: .*garbage\.ndjson:15001: invalid JSON/);
  });

  it("a card nested 20,000 arrays deep", async () => {
    const path = join(dir, "deep-card.ndjson");
    const depth = 20_000;
    const card = JSON.stringify(observations.find((o) => o.type === "AgentCardObserved")).replace(
      /"card":"(?:[^"\\]|\\.)*"/,
      `"card":{"name":"deep","skills":${"[".repeat(depth)}0${"]".repeat(depth)}}`,
    );
    expect(card.includes("[[[[")).toBe(true);
    writeFileSync(path, [...lines.slice(0, 100), card, ...lines.slice(100)].join("\n"));
    await refused(
      ["replay", "--input", path],
      /^a2a-ledger replay: malformed input: .*deep-card\.ndjson:101: card\.skills(\[0\]){31}: nested deeper than 32 levels\n$/,
    );
  });

  it("a rules module that throws while it is loaded", async () => {
    await refused(
      ["replay", "--input", ndjson, "--baseline", join(fixtures, "failing-import-rules.ts")],
      /^a2a-ledger replay: cannot load the rules module .*failing-import-rules\.ts: this rules module cannot be imported/,
    );
  });

  it("a rules module that returns malformed decisions", async () => {
    await refused(
      ["replay", "--input", avro, "--baseline", join(fixtures, "malformed-decision-rules.ts")],
      /^a2a-ledger replay: rules malformed\/1 failed on the observation at .*log\.avro: byte \d+ \(eventId "ev-\d+"\): returned a malformed decision "ev-\d+:TaskIndeterminate:\d+": serverTaskId: expected string, got number 42/,
    );
  });

  it("an export or a report into a directory that does not exist is refused before any work", async () => {
    const exported = await run(["export", "--input", avro, "--output", join(dir, "missing", "x.avro")]);
    expect(exported).toMatchObject({
      code: 2,
      stdout: "",
      stderr: expect.stringMatching(/cannot write .*missing\/x\.avro: .*missing is not a writable directory/),
    });
    const replayed = await run([
      "replay",
      "--input",
      avro,
      "--candidate",
      "default/1",
      "--report",
      join(dir, "missing", "r.html"),
    ]);
    expect(replayed).toMatchObject({
      code: 2,
      stdout: "",
      stderr: expect.stringMatching(/cannot write .*missing\/r\.html/),
    });
  });

  it("an export of a bad file leaves no output file", async () => {
    const out = join(dir, "never.avro");
    const path = join(dir, "garbage-2.ndjson");
    writeFileSync(path, `${lines[0]}\n{"type":"Nope"}\n`);
    const result = await run(["export", "--input", path, "--output", out]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/garbage-2\.ndjson:2: type: unknown observation type "Nope"/);
    expect(existsSync(out) || existsSync(`${out}.partial`)).toBe(false);
  });
});
