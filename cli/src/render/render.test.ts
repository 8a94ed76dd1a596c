import { defaultRuleSetV2, replay, restartFromScratchRuleSet } from "@a2a-ledger/core";
import type { Decision, Observation } from "@a2a-ledger/schemas";
import { describe, expect, it } from "vitest";
import { exampleObservations } from "../../test/observations.ts";
import { buildReport, type ReplayReport } from "../replay/replay-report.ts";
import { rejectionSummary } from "../replay/rejections.ts";
import { wholeLog } from "../replay/replay-scope.ts";
import { renderHtml } from "./html.ts";
import { renderTerminal } from "./terminal.ts";

const hostile = `<script>alert("x")</script>&'`;
/** The §1 story without w-gamma (so default/2 blocks and restart-from-scratch re-dispatches), under a hostile correlation id. */
function observations(): Observation[] {
  return exampleObservations()
    .filter((o) => !((o.type === "AgentCardObserved" || o.type === "ProbeCompleted") && o.workerId === "w-gamma"))
    .map((o) => (o.correlationId === "task-42" ? { ...o, correlationId: hostile } : o));
}

function report(
  baseline: Decision[],
  candidate: Decision[],
  recorded = false,
  order: ReplayReport["summary"]["order"] = { kind: "recorded", batches: 3 },
): ReplayReport {
  return buildReport({
    source: "story.ndjson",
    scope: wholeLog,
    events: 14,
    correlations: 3,
    baseline: {
      label: recorded ? "recorded default/2" : "default/2",
      rulesVersion: "default/2",
      recorded,
      decisions: baseline,
    },
    candidate: {
      label: "restart-from-scratch/2",
      rulesVersion: recorded ? "default/2" : "restart-from-scratch/2",
      decisions: candidate,
    },
    startedBefore: new Set(),
    skipped: [],
    order,
    rejected: {
      baseline: recorded ? null : rejectionSummary("default/2", []),
      candidate: rejectionSummary(recorded ? "default/2" : "restart-from-scratch/2", []),
    },
  });
}

const base = replay(observations(), defaultRuleSetV2);
const cand = replay(observations(), restartFromScratchRuleSet);

describe("the HTML report", () => {
  const html = renderHtml(report(base, cand));

  it("is one self-contained page: no script, no external stylesheet, image or font", () => {
    expect(html).toMatch(/^<!doctype html>/);
    expect(html).not.toMatch(/<script/i);
    expect(html).not.toMatch(/<link|<img|\bsrc=|url\(|@import/i);
    expect(html.match(/href=/g) ?? []).toEqual([]);
  });

  it("escapes what comes from the log", () => {
    expect(html).not.toContain(hostile);
    expect(html).toContain("&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&amp;&#39;");
  });

  it("has the summary, a chart of decisions per kind with both sides, and a collapsible block per changed correlation", () => {
    expect(html).toMatch(/<td>events<\/td><td>14<\/td>/);
    expect(html).toMatch(/<td>correlations changed<\/td><td>1<\/td>/);
    const svg = html.slice(html.indexOf("<svg"), html.indexOf("</svg>"));
    expect(svg).toContain("<title>baseline ReconciliationBlocked: 1</title>");
    expect(svg).toContain("<title>candidate ReconciliationBlocked: 0</title>");
    expect(svg).toContain("<title>candidate RedispatchCommanded: 1</title>");
    const blocks = html.match(/<details><summary>&lt;script/g) ?? [];
    expect(blocks).toHaveLength(1);
    expect(html).toMatch(/class="removed">− ReconciliationBlocked/);
    expect(html).toMatch(/class="added">\+ RedispatchCommanded w-acme → w-beta/);
    expect(html).toContain("First difference at decision 2");
  });

  it("states the determinism verdict when the baseline is the recorded decisions of the same rules", () => {
    expect(renderHtml(report(base, base, true))).toContain("Determinism check passed");
    expect(renderHtml(report(base, base.slice(0, -1), true))).toContain("Determinism check failed");
  });
});

describe("the terminal rendering", () => {
  it("shows decisions per kind side by side and each difference with its cause events", () => {
    const text = renderTerminal(report(base, cand), false);
    expect(text).toMatch(/ReconciliationBlocked +1 {2}0 \(-1\)/);
    expect(text).toMatch(/RedispatchCommanded +0 {2}1 \(\+1\)/);
    expect(text).toContain("baseline default/2 vs candidate restart-from-scratch/2: 1 correlation(s) differ");
    expect(text).toMatch(/ {2}- ReconciliationBlocked w-acme: .* \[cause not-found-1\]/);
    expect(text).not.toContain("\x1b[");
  });

  it("uses colours only when asked", () => {
    const text = renderTerminal(report(base, cand), true);
    expect(text).toContain("\x1b[31m  - ReconciliationBlocked");
    expect(text).toContain("\x1b[32m  + RedispatchCommanded");
  });

  it("says whether the determinism check holds", () => {
    expect(renderTerminal(report(base, base, true), false)).toContain(
      `determinism check passed: replaying the recorded observations with default/2 reproduces all ${base.length} recorded decisions (empty diff)`,
    );
    expect(renderTerminal(report(base, base.slice(0, -1), true), false)).toMatch(
      /determinism check FAILED: .* the first differing decision of each is named below/,
    );
  });

  it("calls a check of observations folded merged by event time inconclusive, and says why", () => {
    const text = renderTerminal(
      report(base, base.slice(0, -1), true, { kind: "event-time", reason: "a file holds no batch records" }),
      false,
    );
    expect(text).not.toContain("FAILED");
    expect(text).toMatch(
      /determinism check inconclusive: .* 1 correlation\(s\), but they were folded merged by event time \(a file holds no batch records\), not in the order the reconciler read its partitions, .*replay the topic \(--kafka\) to check determinism/,
    );
  });
});
