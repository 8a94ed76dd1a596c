/**
 * Observations → Kafka records: key = correlationId, value = the Confluent wire format of the event's
 * registered Avro schema. An event too large for one Kafka record rejects the batch.
 */
import type { Observation } from "@a2a-ledger/schemas";
import type { Serde } from "@a2a-ledger/schemas/serde";
import type { OutgoingRecord } from "./chunk-budget.ts";
import { IngestError } from "./errors.ts";

/** What the service needs of a serde: the observations it encodes have passed `parseObservation`. */
export interface Encoder {
  encodeValidated(record: Observation): Promise<Buffer>;
}

/** `observations` must be validated (validateBatch), so the encoder may skip validating them again. */
export async function encodeBatch(
  serde: Encoder | Serde,
  observations: readonly Observation[],
  maxRecordBytes: number,
  retryAfterSeconds: number,
): Promise<OutgoingRecord[]> {
  const records: OutgoingRecord[] = new Array(observations.length);
  for (let index = 0; index < observations.length; index++) {
    const observation = observations[index]!;
    let value: Buffer;
    try {
      value = await serde.encodeValidated(observation);
    } catch (e) {
      throw new IngestError(
        "INGEST_REGISTRY_UNAVAILABLE",
        `Could not encode ${observation.type} with its registered schema: ${e instanceof Error ? e.message : String(e)}`,
        undefined,
        retryAfterSeconds,
      );
    }
    const size = value.length + Buffer.byteLength(observation.correlationId);
    if (size > maxRecordBytes) {
      throw new IngestError(
        "INGEST_EVENT_TOO_LARGE",
        `Event ${index} encodes to ${size} bytes; one record may hold ${maxRecordBytes}`,
        [{ index, path: "", message: `${size} bytes encoded, limit ${maxRecordBytes}` }],
      );
    }
    records[index] = { key: observation.correlationId, value };
  }
  return records;
}
