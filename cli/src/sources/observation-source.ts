/**
 * Where a replay's observations come from — an NDJSON file, an Avro object container file, the
 * observations topic — as chunks, so a long source streams through the fold and the progress bar moves.
 */
import type { RecordedBatch } from "@a2a-ledger/core";
import type { Observation } from "@a2a-ledger/schemas";

export interface ObservationChunk {
  observations: Observation[];
  /** The reconciler transaction these observations were folded in (a topic read in recorded order). */
  batch?: RecordedBatch;
  /** Where observation `i` of the chunk came from, for messages: `FILE:LINE`, `FILE: byte N`, `TOPIC[P]@OFFSET`. */
  where(i: number): string;
  /** Progress units consumed up to the end of this chunk. */
  progress: number;
}

export interface ObservationSource {
  /** How the source is named in messages and reports. */
  label: string;
  /** Progress units in the whole source (bytes of a file, records of a topic). */
  total: number;
  unit: "bytes" | "records";
  chunks(): AsyncIterable<ObservationChunk>;
}

/** Observations per chunk: large enough to keep the fold's per-batch cost small, small enough for flat memory. */
export const chunkSize = 10_000;

/** A source that names the file and the place in it: exit code 2, and no result is printed. */
export class InputError extends Error {
  override name = "InputError";
  constructor(
    /** The file (or topic) as the user named it. */
    readonly file: string,
    /** `LINE` for NDJSON, `byte N` for Avro files, `[P]@OFFSET` for topics. */
    readonly place: string,
    readonly reason: string,
  ) {
    super(`${file}:${place}: ${reason}`);
  }
}
