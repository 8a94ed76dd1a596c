/** Observations for tests: the DESIGN §1 example and the core's generated log, parsed. */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parseObservationJson } from "@a2a-ledger/core";
import { generateLog } from "@a2a-ledger/core/testing";
import type { Observation } from "@a2a-ledger/schemas";

export const exampleFile = join(import.meta.dirname, "../examples/design-section-1.ndjson");

export function parseLines(lines: readonly string[]): Observation[] {
  return lines
    .filter((l) => l.trim() !== "")
    .map((l) => {
      const r = parseObservationJson(l);
      if (!r.ok) throw new Error(`bad test line: ${JSON.stringify(r.issues)}`);
      return r.observation;
    });
}

export const exampleObservations = (): Observation[] => parseLines(readFileSync(exampleFile, "utf8").split("\n"));

export const generatedObservations = (n: number): Observation[] => parseLines(generateLog(n));
