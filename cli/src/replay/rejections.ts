/**
 * What a replay reports about the observations its rules rejected — the ones the reconciler would
 * dead-letter with RECONCILER_RULES_REJECTED — in one shape for the JSON summary, the terminal and
 * the HTML report: how many, and the first ones with where they are in the source.
 */
import type { Rejection } from "./rule-set-run.ts";

/** Rejections listed at most in a summary; `count` is always the whole number. */
export const rejectionsListed = 100;

export interface RejectionSummary {
  rulesVersion: string;
  count: number;
  /** The first `rejectionsListed`, in log order. */
  observations: Rejection[];
}

export function rejectionSummary(rulesVersion: string, rejected: readonly Rejection[]): RejectionSummary {
  return { rulesVersion, count: rejected.length, observations: rejected.slice(0, rejectionsListed) };
}

/** Text lines for people: a heading, then one line per listed rejection; no lines when nothing was rejected. */
export function rejectionLines(summary: RejectionSummary, shown = 20): string[] {
  if (summary.count === 0) return [];
  const first = summary.observations[0] as Rejection;
  const lines = [
    `rules ${summary.rulesVersion} rejected ${summary.count} observation(s), as the reconciler dead-letters them (${first.reason}); the rest was decided:`,
  ];
  for (const r of summary.observations.slice(0, shown))
    lines.push(
      `  ${r.where} (eventId ${JSON.stringify(r.eventId)}, correlation ${JSON.stringify(r.correlationId)}): ${r.detail}`,
    );
  if (summary.count > shown) lines.push(`  … and ${summary.count - shown} more`);
  return lines;
}
