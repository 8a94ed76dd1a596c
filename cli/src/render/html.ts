/**
 * The comparing replay as one self-contained HTML page to mail to a colleague: no script, no external
 * stylesheet, font or image. The summary, an inline SVG chart of decisions per kind (baseline against
 * candidate), and every changed correlation as a collapsible <details> with its removed, added and
 * changed decisions, their cause events and the decisions in full. Everything from the log is escaped.
 */
import type { Decision } from "@a2a-ledger/schemas";
import { describeDecision } from "../describe-decision.ts";
import { rejectionLines, rejectionsListed, type RejectionSummary } from "../replay/rejections.ts";
import type { ReplayDiff, ReplayReport, ReplaySummary } from "../replay/replay-report.ts";

const escapes: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };
export const esc = (text: string) => text.replace(/[&<>"']/g, (c) => escapes[c] as string);
const n = (x: number) => x.toLocaleString("en-US");

const style = `
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;margin:2rem auto;max-width:72rem;padding:0 1rem;color:#1b1f24}
h1{font-size:1.4rem;margin-bottom:.2rem}h2{font-size:1.1rem;margin-top:2rem}
.muted{color:#57606a}table{border-collapse:collapse;margin:.5rem 0}td,th{padding:.2rem .8rem;text-align:right;border-bottom:1px solid #d0d7de}
td:first-child,th:first-child{text-align:left}.ok{background:#dafbe1;border:1px solid #4ac26b;padding:.6rem 1rem;border-radius:6px}
.fail{background:#ffebe9;border:1px solid #ff8182;padding:.6rem 1rem;border-radius:6px}.warn{background:#fff8c5;border:1px solid #d4a72c;padding:.6rem 1rem;border-radius:6px}
details{border:1px solid #d0d7de;border-radius:6px;margin:.4rem 0;padding:.3rem .8rem}summary{cursor:pointer;font-family:ui-monospace,monospace}
.removed{color:#cf222e}.added{color:#1a7f37}.changed{color:#9a6700}.tag{font-size:.8rem;border-radius:1rem;padding:0 .5rem;margin-left:.4rem;background:#eaeef2}
li{margin:.3rem 0;font-family:ui-monospace,monospace;font-size:.85rem}pre{background:#f6f8fa;padding:.5rem;overflow:auto;font-size:.8rem;white-space:pre-wrap}
.up{color:#1a7f37}.down{color:#cf222e}`;

function chart(summary: ReplaySummary): string {
  const kinds = summary.kinds;
  if (kinds.length === 0) return `<p class="muted">Neither side took a decision.</p>`;
  const max = Math.max(
    1,
    ...kinds.map((k) => Math.max(summary.baseline.byKind[k] ?? 0, summary.candidate.byKind[k] ?? 0)),
  );
  const label = Math.max(160, ...kinds.map((k) => k.length * 7.5 + 16));
  const bars = 420;
  const row = 34;
  const top = 44;
  const height = kinds.length * row + top + 6;
  const parts: string[] = [];
  kinds.forEach((k, i) => {
    const y = top + i * row;
    const b = summary.baseline.byKind[k] ?? 0;
    const c = summary.candidate.byKind[k] ?? 0;
    parts.push(`<text x="${label - 8}" y="${y + 14}" text-anchor="end">${esc(k)}</text>`);
    parts.push(
      `<rect x="${label}" y="${y}" width="${((b / max) * bars).toFixed(1)}" height="12" fill="#6e7781"><title>baseline ${esc(k)}: ${b}</title></rect>`,
    );
    parts.push(`<text x="${label + (b / max) * bars + 4}" y="${y + 10}" class="v">${n(b)}</text>`);
    parts.push(
      `<rect x="${label}" y="${y + 13}" width="${((c / max) * bars).toFixed(1)}" height="12" fill="#fb8500"><title>candidate ${esc(k)}: ${c}</title></rect>`,
    );
    parts.push(`<text x="${label + (c / max) * bars + 4}" y="${y + 23}" class="v">${n(c)}</text>`);
  });
  const legend = `<rect x="${label}" y="2" width="12" height="12" fill="#6e7781"/><text x="${label + 16}" y="12">baseline ${esc(summary.baseline.label)}</text><rect x="${label}" y="20" width="12" height="12" fill="#fb8500"/><text x="${label + 16}" y="30">candidate ${esc(summary.candidate.label)}</text>`;
  return `<svg xmlns="http://www.w3.org/2000/svg" role="img" aria-label="decisions per kind, baseline against candidate" width="${label + bars + 80}" height="${height}" font-size="12" font-family="system-ui,sans-serif">${legend}${parts.join("")}<style>.v{fill:#57606a;font-size:11px}</style></svg>`;
}

function decisionItem(kind: "removed" | "added" | "changed", sign: string, d: Decision, extra = ""): string {
  return `<li class="${kind}">${sign} ${esc(describeDecision(d))}${extra} <span class="muted">cause ${esc(d.causeEventIds.join(", "))}</span><details><summary>decision ${esc(d.decisionId)}</summary><pre>${esc(JSON.stringify(d, null, 2))}</pre></details></li>`;
}

function diffBlock(d: ReplayDiff): string {
  const counts =
    [
      d.removed.length ? `−${d.removed.length}` : "",
      d.added.length ? `+${d.added.length}` : "",
      d.changed.length ? `~${d.changed.length}` : "",
    ]
      .filter(Boolean)
      .join(" ") || "reordered";
  const items = [
    ...d.removed.map((r) => decisionItem("removed", "−", r)),
    ...d.added.map((a) => decisionItem("added", "+", a)),
    ...d.changed.map((c) =>
      decisionItem(
        "changed",
        "~",
        c.candidate,
        ` <span class="muted">(was: ${esc(describeDecision(c.baseline))}; ${esc(c.fields.join(", "))} changed)</span>`,
      ),
    ),
  ];
  const side = (x: Decision | null) => (x === null ? "nothing" : esc(`${x.decisionId} — ${describeDecision(x)}`));
  return `<details><summary>${esc(d.correlationId)}<span class="tag">${esc(counts)}</span>${d.startedBeforeWindow ? '<span class="tag">started before the window</span>' : ""}</summary>
<p class="muted">First difference at decision ${d.first.index + 1}: baseline ${side(d.first.baseline)}; candidate ${side(d.first.candidate)}.</p>
<ul>${items.join("\n")}</ul></details>`;
}

function scopeLine(s: ReplaySummary): string {
  const parts = [
    s.scope.since === null ? "" : `since ${s.scope.since}`,
    s.scope.until === null ? "" : `until ${s.scope.until}`,
    s.scope.correlationId === null ? "" : `correlation ${s.scope.correlationId}`,
  ].filter(Boolean);
  return parts.length === 0 ? "the whole log" : parts.join(", ");
}

export function renderHtml(report: ReplayReport): string {
  const { summary: s, diffs } = report;
  const kindRows = s.kinds
    .map((k) => {
      const b = s.baseline.byKind[k] ?? 0;
      const c = s.candidate.byKind[k] ?? 0;
      const delta = c - b;
      return `<tr><td>${esc(k)}</td><td>${n(b)}</td><td>${n(c)}</td><td class="${delta > 0 ? "up" : delta < 0 ? "down" : ""}">${delta === 0 ? "" : `${delta > 0 ? "+" : ""}${n(delta)}`}</td></tr>`;
    })
    .join("");
  const verdict =
    s.determinism === null
      ? ""
      : s.determinism.reproduced
        ? `<p class="ok">Determinism check passed: replaying the recorded observations with ${esc(s.determinism.rulesVersion)} reproduces all ${n(s.baseline.decisions)} recorded decisions (empty diff).</p>`
        : `<p class="fail">Determinism check failed: replaying the recorded observations with ${esc(s.determinism.rulesVersion)} differs from the recorded decisions in ${n(s.correlationsChanged)} correlation(s). The log or the rules are not what they claim; the first differing decision of each is named below.</p>`;
  const skipped =
    s.skipped.length === 0
      ? ""
      : `<p class="warn">${n(s.skipped.length)} record(s) of the source are not observations and were skipped, as the reconciler dead-letters them (first: ${esc(`${s.skipped[0]?.where}: ${s.skipped[0]?.reason}`)}).</p>`;
  const rejected = [s.rejected.baseline, s.rejected.candidate]
    .filter((side) => side !== null && side.count > 0)
    .map((side) => {
      const [heading, ...items] = rejectionLines(side as RejectionSummary, rejectionsListed);
      return `<p class="warn">${esc(heading ?? "")}</p><ul>${items.map((l) => `<li>${esc(l.trim())}</li>`).join("")}</ul>`;
    })
    .join("");
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>a2a-ledger replay: ${esc(s.baseline.rulesVersion)} vs ${esc(s.candidate.rulesVersion)}</title><style>${style}</style></head>
<body>
<h1>Replay: ${esc(s.baseline.label)} vs ${esc(s.candidate.label)}</h1>
<p class="muted">Source ${esc(s.source)}, ${esc(scopeLine(s))}.</p>
${verdict}${skipped}${rejected}
<h2>Summary</h2>
<table><tbody>
<tr><td>events</td><td>${n(s.events)}</td></tr>
<tr><td>correlations</td><td>${n(s.correlations)}</td></tr>
<tr><td>correlations changed</td><td>${n(s.correlationsChanged)}</td></tr>
<tr><td>decisions, baseline ${esc(s.baseline.rulesVersion)}${s.baseline.recorded ? " (recorded)" : ""}</td><td>${n(s.baseline.decisions)}</td></tr>
<tr><td>decisions, candidate ${esc(s.candidate.rulesVersion)}</td><td>${n(s.candidate.decisions)}</td></tr>
</tbody></table>
<h2>Decisions per kind</h2>
${chart(s)}
<table><thead><tr><th>kind</th><th>baseline</th><th>candidate</th><th>change</th></tr></thead><tbody>${kindRows}</tbody></table>
<h2>Changed correlations (${n(diffs.length)})</h2>
${diffs.length === 0 ? '<p class="muted">No correlation changed.</p>' : diffs.map(diffBlock).join("\n")}
</body></html>
`;
}
