/**
 * Observation logs for the reconciler's tests: NDJSON lines parsed as ingest parses them, and the
 * DESIGN §1 example (`cli/examples/design-section-1.ndjson`) whole and in its two phases — the
 * capability phase (cards and probes, `probe-…` correlations) and the tasks.
 */
import { readFileSync } from "node:fs";
import { parseObservationJson } from "@a2a-ledger/core";
import type { Observation } from "@a2a-ledger/schemas";

export function parseLines(lines: readonly string[]): Observation[] {
  return lines.map((line, i) => {
    const result = parseObservationJson(line);
    if (!result.ok) throw new Error(`line ${i + 1}: ${JSON.stringify(result.issues)}`);
    return result.observation;
  });
}

export function designSection1Story(): {
  story: Observation[];
  capabilityPhase: Observation[];
  taskPhase: Observation[];
} {
  const text = readFileSync(new URL("../../../cli/examples/design-section-1.ndjson", import.meta.url), "utf8");
  const story = parseLines(text.split("\n").filter((l) => l.trim() !== ""));
  return {
    story,
    capabilityPhase: story.filter((o) => o.correlationId.startsWith("probe-")),
    taskPhase: story.filter((o) => !o.correlationId.startsWith("probe-")),
  };
}
