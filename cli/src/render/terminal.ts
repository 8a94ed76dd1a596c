/**
 * The comparing replay as text for a terminal: the summary with decisions per kind side by side, the
 * determinism verdict, then each changed correlation — removed (-, red), added (+, green) and changed
 * (~, yellow) decisions with their cause events, and where the two sequences first part. Colours only
 * when the output is a terminal (see Io.color).
 */
import { styleText } from "node:util";
import type { Decision } from "@a2a-ledger/schemas";
import { describeDecision } from "../describe-decision.ts";
import { rejectionLines } from "../replay/rejections.ts";
import type { ReplayReport } from "../replay/replay-report.ts";

type Style = "red" | "green" | "yellow" | "bold" | "dim" | "cyan";

const n = (x: number) => x.toLocaleString("en-US");
const causes = (d: Decision) => `[cause ${d.causeEventIds.join(", ")}]`;

export function scopeText(summary: ReplayReport["summary"]): string {
  const parts: string[] = [];
  if (summary.scope.since !== null) parts.push(`since ${summary.scope.since}`);
  if (summary.scope.until !== null) parts.push(`until ${summary.scope.until}`);
  if (summary.scope.correlationId !== null) parts.push(`correlation ${summary.scope.correlationId}`);
  return parts.length === 0 ? "" : ` (${parts.join(", ")})`;
}

export function renderTerminal(report: ReplayReport, color: boolean): string {
  // The caller decided on colour (Io.color); styleText would otherwise look at process.stdout itself.
  const s = (style: Style, text: string) => (color ? styleText(style, text, { validateStream: false }) : text);
  const { summary, diffs } = report;
  const lines: string[] = [];
  lines.push(
    s(
      "bold",
      `replay of ${summary.source}${scopeText(summary)}: ${n(summary.events)} events, ${n(summary.correlations)} correlations`,
    ),
  );
  const b = summary.baseline;
  const c = summary.candidate;
  const width = Math.max(24, ...summary.kinds.map((k) => k.length)) + 2;
  const col = Math.max(b.label.length, 10) + 2;
  lines.push(`${"decisions".padEnd(width)}${b.label.padStart(col)}  ${c.label}`);
  for (const kind of summary.kinds) {
    const x = b.byKind[kind] ?? 0;
    const y = c.byKind[kind] ?? 0;
    const delta = y - x;
    const mark = delta === 0 ? "" : s(delta > 0 ? "green" : "red", ` (${delta > 0 ? "+" : ""}${n(delta)})`);
    lines.push(`  ${kind.padEnd(width - 2)}${n(x).padStart(col)}  ${n(y)}${mark}`);
  }
  lines.push(`  ${"total".padEnd(width - 2)}${n(b.decisions).padStart(col)}  ${n(c.decisions)}`);
  lines.push(
    s(
      "bold",
      `baseline ${b.rulesVersion} vs candidate ${c.rulesVersion}: ${summary.correlationsChanged} correlation(s) differ`,
    ),
  );
  if (summary.determinism !== null) {
    lines.push(
      summary.determinism.reproduced
        ? s(
            "green",
            `determinism check passed: replaying the recorded observations with ${summary.determinism.rulesVersion} reproduces all ${n(b.decisions)} recorded decisions (empty diff)`,
          )
        : summary.order.kind === "event-time"
          ? s(
              "yellow",
              `determinism check inconclusive: replaying the recorded observations with ${summary.determinism.rulesVersion} differs from the recorded decisions in ${summary.correlationsChanged} correlation(s), but they were folded merged by event time${summary.order.reason === null ? "" : ` (${summary.order.reason})`}, not in the order the reconciler read its partitions, and a worker's evidence on one partition (a lost task, a probe, a card) can reach another partition's decisions in either order; replay the topic (--kafka) to check determinism; the first differing decision of each is named below`,
            )
          : s(
              "red",
              `determinism check FAILED: replaying the recorded observations with ${summary.determinism.rulesVersion} differs from the recorded decisions in ${summary.correlationsChanged} correlation(s) — the log or the rules are not what they claim; the first differing decision of each is named below`,
            ),
    );
  }
  if (summary.skipped.length > 0)
    lines.push(
      s(
        "yellow",
        `${summary.skipped.length} record(s) of the source are not observations and were skipped, as the reconciler dead-letters them (first: ${summary.skipped[0]?.where}: ${summary.skipped[0]?.reason})`,
      ),
    );
  for (const side of [summary.rejected.baseline, summary.rejected.candidate])
    if (side !== null) for (const l of rejectionLines(side)) lines.push(s("yellow", l));
  const before = diffs.filter((d) => d.startedBeforeWindow).length;
  if (before > 0)
    lines.push(
      s(
        "yellow",
        `${before} changed correlation(s) started before the window and were judged without their earlier observations (marked ⟨before window⟩)`,
      ),
    );
  for (const d of diffs) {
    lines.push(s("cyan", d.correlationId) + (d.startedBeforeWindow ? s("yellow", " ⟨before window⟩") : ""));
    for (const r of d.removed) lines.push(s("red", `  - ${describeDecision(r)} ${causes(r)}`));
    for (const a of d.added) lines.push(s("green", `  + ${describeDecision(a)} ${causes(a)}`));
    for (const ch of d.changed) {
      lines.push(s("yellow", `  ~ ${describeDecision(ch.baseline)} ${causes(ch.baseline)}`));
      lines.push(s("yellow", `    → ${describeDecision(ch.candidate)} (${ch.fields.join(", ")} changed)`));
    }
    if (d.removed.length + d.added.length + d.changed.length === 0)
      lines.push(s("yellow", "  the same decisions in another order"));
    const f = d.first;
    const side = (x: Decision | null) => (x === null ? "nothing" : `${x.decisionId} (${describeDecision(x)})`);
    lines.push(
      s(
        "dim",
        `  first difference at decision ${f.index + 1}: baseline ${side(f.baseline)}, candidate ${side(f.candidate)}`,
      ),
    );
  }
  return `${lines.join("\n")}\n`;
}
