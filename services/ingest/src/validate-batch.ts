/**
 * A batch of JSON values → Observations, all or nothing. Normalization and schema validation are the
 * core's parser (one way to read ingest JSON); this adds what the HTTP API requires on top: the
 * Kafka key and the de-duplication key must be non-empty.
 */
import { parseObservation } from "@a2a-ledger/core";
import type { Observation } from "@a2a-ledger/schemas";
import { IngestError, type ErrorDetail } from "./errors.ts";

/** At most this many details are returned; the message says how many there were. */
export const maxDetails = 100;

export function validateBatch(values: readonly unknown[], maxDepth: number): Observation[] {
  const observations: Observation[] = [];
  const details: ErrorDetail[] = [];
  let invalidEvents = 0;
  let issues = 0;
  values.forEach((value, index) => {
    const result = parseObservation(value, { maxDepth });
    const found: ErrorDetail[] = result.ok
      ? []
      : result.issues.map((i) => ({ index, path: i.path, message: i.message }));
    if (result.ok) {
      for (const key of ["eventId", "correlationId"] as const) {
        if (result.observation[key].trim() === "") found.push({ index, path: key, message: "must not be empty" });
      }
      if (found.length === 0) observations.push(result.observation);
    }
    if (found.length > 0) {
      invalidEvents += 1;
      issues += found.length;
      for (const detail of found) if (details.length < maxDetails) details.push(detail);
    }
  });
  if (invalidEvents > 0) {
    const shown = issues > details.length ? ` (first ${details.length} shown)` : "";
    throw new IngestError(
      "INGEST_INVALID_EVENT",
      `${invalidEvents} of ${values.length} events are invalid, ${issues} issues${shown}; nothing was accepted`,
      details,
    );
  }
  return observations;
}
