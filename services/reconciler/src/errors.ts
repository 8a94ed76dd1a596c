/**
 * The reconciler's stable codes: why a record went to the dead-letter topic, and why the service
 * refused to start. Operators alert and filter on these; never rename one.
 */
export const deadLetterReasons = {
  /** The bytes are not Confluent wire format (no magic byte and schema id). */
  RECONCILER_UNDECODABLE: "the value is not a Confluent wire-format Avro record",
  /** The schema id is unknown to the registry, or the bytes do not match the schema. */
  RECONCILER_UNKNOWN_SCHEMA: "the schema id is unknown or the bytes do not decode with it",
  /** A decodable record that is not an observation (a decision, or a foreign record type). */
  RECONCILER_NOT_AN_OBSERVATION: "the record is not an observation of the catalogue",
  /** The record key differs from its correlationId, so its state would live on the wrong partition. */
  RECONCILER_KEY_MISMATCH: "the record key is not the observation's correlationId",
  /** The rules threw on the observation. */
  RECONCILER_RULES_REJECTED: "the rules could not process the observation",
} as const;

export type DeadLetterReason = keyof typeof deadLetterReasons;

export class ReconcilerConfigError extends Error {
  override name = "ReconcilerConfigError";
  readonly code = "RECONCILER_CONFIG_INVALID";
}

/** A record the reconciler cannot process, with the reason it goes to the DLQ. */
export class PoisonRecordError extends Error {
  override name = "PoisonRecordError";
  constructor(readonly reason: DeadLetterReason, detail: string) {
    super(`${reason}: ${detail}`);
  }
}
