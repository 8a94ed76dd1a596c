/**
 * The input vocabulary of observations, defined once: every spelling of a task state, a channel and a
 * part kind that any input accepts, with the v1.0 symbol it means, and the observation type names.
 * The ingest-JSON parser, the ingest OpenAPI document and the ingest-client types all derive from
 * these tables, so a spelling is accepted everywhere or nowhere.
 *
 * Each table is an `as const` list of [spelling, symbol] pairs; the TypeScript types are its indexed
 * types, and the lookups are built from the same lists.
 */
import {
  observationTypes,
  type ObservationChannel,
  type ObservationType,
  type PartKind,
  type TaskState,
} from "@a2a-ledger/schemas";

/** Task state spellings: A2A v1.0 ProtoJSON names, the v0.3 gRPC `TASK_STATE_CANCELLED`, and v0.3 JSON names. */
export const taskStateSpellings = [
  // v1.0 ProtoJSON
  ["TASK_STATE_UNSPECIFIED", "TASK_STATE_UNSPECIFIED"],
  ["TASK_STATE_SUBMITTED", "TASK_STATE_SUBMITTED"],
  ["TASK_STATE_WORKING", "TASK_STATE_WORKING"],
  ["TASK_STATE_INPUT_REQUIRED", "TASK_STATE_INPUT_REQUIRED"],
  ["TASK_STATE_AUTH_REQUIRED", "TASK_STATE_AUTH_REQUIRED"],
  ["TASK_STATE_COMPLETED", "TASK_STATE_COMPLETED"],
  ["TASK_STATE_FAILED", "TASK_STATE_FAILED"],
  ["TASK_STATE_CANCELED", "TASK_STATE_CANCELED"],
  ["TASK_STATE_REJECTED", "TASK_STATE_REJECTED"],
  // v0.3 gRPC spelling
  ["TASK_STATE_CANCELLED", "TASK_STATE_CANCELED"],
  // v0.3 JSON
  ["submitted", "TASK_STATE_SUBMITTED"],
  ["working", "TASK_STATE_WORKING"],
  ["input-required", "TASK_STATE_INPUT_REQUIRED"],
  ["auth-required", "TASK_STATE_AUTH_REQUIRED"],
  ["completed", "TASK_STATE_COMPLETED"],
  ["failed", "TASK_STATE_FAILED"],
  ["canceled", "TASK_STATE_CANCELED"],
  ["cancelled", "TASK_STATE_CANCELED"],
  ["rejected", "TASK_STATE_REJECTED"],
  ["unknown", "TASK_STATE_UNSPECIFIED"],
] as const satisfies readonly (readonly [string, TaskState])[];

/** Channel spellings: the Avro symbols and their kebab-case names. */
export const channelSpellings = [
  ["SEND_RESPONSE", "SEND_RESPONSE"],
  ["GET", "GET"],
  ["STREAM", "STREAM"],
  ["PUSH", "PUSH"],
  ["OTHER", "OTHER"],
  ["send-response", "SEND_RESPONSE"],
  ["get", "GET"],
  ["stream", "STREAM"],
  ["push", "PUSH"],
  ["other", "OTHER"],
] as const satisfies readonly (readonly [string, ObservationChannel])[];

/** Part kind spellings: the Avro symbols and their lower-case names (v0.3 `kind` values are lower case). */
export const partKindSpellings = [
  ["TEXT", "TEXT"],
  ["RAW", "RAW"],
  ["URL", "URL"],
  ["DATA", "DATA"],
  ["OTHER", "OTHER"],
  ["text", "TEXT"],
  ["raw", "RAW"],
  ["url", "URL"],
  ["data", "DATA"],
  ["other", "OTHER"],
] as const satisfies readonly (readonly [string, PartKind])[];

export type TaskStateSpelling = (typeof taskStateSpellings)[number][0];
export type ChannelSpelling = (typeof channelSpellings)[number][0];
export type PartKindSpelling = (typeof partKindSpellings)[number][0];

/** The observation type names: the Avro record names of the observation schemas. */
export const observationTypeNames: readonly ObservationType[] = observationTypes;

/** The spellings of a table, in table order. */
export const spellingsOf = <S extends string>(table: readonly (readonly [S, string])[]): S[] =>
  table.map(([spelling]) => spelling);

/** A lookup that answers only for the table's own spellings (no prototype keys, no other case). */
export function lookupOf<S extends string, V extends string>(
  table: readonly (readonly [S, V])[],
): (spelling: string) => V | null {
  const map = new Map<string, V>(table);
  return (spelling) => map.get(spelling) ?? null;
}
