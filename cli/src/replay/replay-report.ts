/**
 * What a comparing replay found, as one plain value the terminal, JSON and HTML renderings share: the
 * summary (events, correlations, decisions per kind for each side, correlations changed), the
 * determinism verdict when the baseline is what the reconciler recorded under the candidate's own
 * rules version, and the per-correlation differences.
 */
import type { Decision } from "@a2a-ledger/schemas";
import { countByKind, type CorrelationDiff, diffDecisions } from "../decision-diff.ts";
import type { SkippedRecord } from "../kafka/observation-topic.ts";
import type { SourceOrder } from "../sources/open-source.ts";
import type { RejectionSummary } from "./rejections.ts";
import type { ReplayScope } from "./replay-scope.ts";

export interface ReplaySide {
  /** `recorded decisions (default/2)` or the rule set's name. */
  label: string;
  rulesVersion: string;
  recorded: boolean;
  decisions: number;
  byKind: Record<string, number>;
}

export interface ReplayDiff extends CorrelationDiff {
  /** The correlation has observations before the window: the replay judged it without them. */
  startedBeforeWindow: boolean;
}

export interface ReplaySummary {
  source: string;
  scope: { since: string | null; until: string | null; correlationId: string | null };
  /** Observations in scope. */
  events: number;
  correlations: number;
  baseline: ReplaySide;
  candidate: ReplaySide;
  /** Every decision kind either side took, sorted. */
  kinds: string[];
  correlationsChanged: number;
  /** Set when the baseline is recorded decisions of the candidate's rules version. */
  determinism: { rulesVersion: string; reproduced: boolean } | null;
  /** Records of the source that are not observations (as the reconciler dead-letters them). */
  skipped: SkippedRecord[];
  /**
   * The order the observations were folded in: as the reconciler read them (`batches` records of
   * a2a.reconciler.batches.v1), or merged by event time (`reason`: why not recorded, null when not asked).
   */
  order: SourceOrder;
  /**
   * Observations each side's rules threw on (the reconciler dead-letters them as RECONCILER_RULES_REJECTED
   * and goes on; so does replay). The baseline's is null when it is recorded decisions.
   */
  rejected: { baseline: RejectionSummary | null; candidate: RejectionSummary };
}

export interface ReplayReport {
  summary: ReplaySummary;
  diffs: ReplayDiff[];
}

export interface ReportInput {
  source: string;
  scope: ReplayScope;
  events: number;
  correlations: number;
  baseline: { label: string; rulesVersion: string; recorded: boolean; decisions: readonly Decision[] };
  candidate: { label: string; rulesVersion: string; decisions: readonly Decision[] };
  startedBefore: ReadonlySet<string>;
  skipped: SkippedRecord[];
  order: SourceOrder;
  rejected: ReplaySummary["rejected"];
}

const iso = (t: number | undefined) => (t === undefined ? null : new Date(t).toISOString());

export function buildReport(input: ReportInput): ReplayReport {
  const diffs = diffDecisions(input.baseline.decisions, input.candidate.decisions).map((d) => ({
    ...d,
    startedBeforeWindow: input.startedBefore.has(d.correlationId),
  }));
  const baselineKinds = countByKind(input.baseline.decisions);
  const candidateKinds = countByKind(input.candidate.decisions);
  const kinds = [...new Set([...Object.keys(baselineKinds), ...Object.keys(candidateKinds)])].sort();
  return {
    summary: {
      source: input.source,
      scope: {
        since: iso(input.scope.since),
        until: iso(input.scope.until),
        correlationId: input.scope.correlationId ?? null,
      },
      events: input.events,
      correlations: input.correlations,
      baseline: {
        label: input.baseline.label,
        rulesVersion: input.baseline.rulesVersion,
        recorded: input.baseline.recorded,
        decisions: input.baseline.decisions.length,
        byKind: baselineKinds,
      },
      candidate: {
        label: input.candidate.label,
        rulesVersion: input.candidate.rulesVersion,
        recorded: false,
        decisions: input.candidate.decisions.length,
        byKind: candidateKinds,
      },
      kinds,
      correlationsChanged: diffs.length,
      determinism:
        input.baseline.recorded && input.baseline.rulesVersion === input.candidate.rulesVersion
          ? { rulesVersion: input.candidate.rulesVersion, reproduced: diffs.length === 0 }
          : null,
      skipped: input.skipped,
      order: input.order,
      rejected: input.rejected,
    },
    diffs,
  };
}
