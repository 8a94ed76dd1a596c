/**
 * The serde's catalogue of stable codes: why it refuses a record (serde.ts). It has the shape of every
 * catalogue of @a2a-ledger/env (`{CODE: {status, message}}`, status null: none is an HTTP answer of its
 * own), written out here because schemas depends on no other workspace; the catalogue test checks it as
 * it checks the others, and holds it to this workspace's README both ways.
 */
export const serdeErrors = Object.freeze({
  SERDE_NOT_WIRE_FORMAT: { status: null, message: "Not magic byte 0 and a 4-byte schema id." },
  SERDE_NOT_IN_CATALOGUE: {
    status: null,
    message: "The writer schema is not a record of this catalogue (another name, not Avro).",
  },
  SERDE_UNKNOWN_SCHEMA_ID: { status: null, message: "The registry holds no schema with the record's id." },
  SERDE_UNRESOLVABLE_SCHEMA: {
    status: null,
    message: "The writer schema cannot be read as the catalogue's (an incompatible change).",
  },
  SERDE_BAD_BYTES: {
    status: null,
    message: "The bytes do not decode with their writer schema (truncated, trailing bytes).",
  },
  SERDE_UNKNOWN_EVENT_TYPE: { status: null, message: "Encoding a `type` the catalogue does not have." },
  SERDE_INVALID_RECORD: { status: null, message: "Encoding a record that does not fit its schema." },
} as const);

export type SerdeErrorCode = keyof typeof serdeErrors;
