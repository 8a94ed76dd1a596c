/**
 * The observations topic as a replay source: records decoded with the catalogue's Serde. Records the
 * reconciler dead-letters (not Confluent wire format, an unknown schema, not an observation, a key
 * that is not the correlationId) are not observations it decided on: they are skipped here too and
 * listed, so the replay of a topic decides on exactly what the reconciler decided on.
 */
import type { Kafka } from "@a2a-ledger/kafka";
import type { Observation } from "@a2a-ledger/schemas";
import type { Serde } from "@a2a-ledger/schemas/serde";
import { decodeRecord } from "./decode-record.ts";
import type { ObservationChunk, ObservationSource } from "../sources/observation-source.ts";
import { streamTopic, type TopicRecord } from "./topic-stream.ts";

export interface SkippedRecord {
  /** `TOPIC[PARTITION]@OFFSET` */
  where: string;
  reason: string;
}

/** Decodes one record of an observations topic: the observation, or why it is skipped. */
export async function decodeObservation(serde: Serde, record: TopicRecord): Promise<Observation | string> {
  const decoded = await decodeRecord(serde, record);
  if (typeof decoded === "string") return decoded;
  if (decoded.group !== "observations") return `a ${decoded.typeName} record, not an observation`;
  const observation = decoded.record as Observation;
  const key = record.key?.toString("utf8") ?? null;
  if (key !== observation.correlationId)
    return `key ${JSON.stringify(key)} is not the correlationId ${JSON.stringify(observation.correlationId)}`;
  return observation;
}

/** A slice of records as a chunk's observations (where each came from), the others listed in `skipped`. */
export async function decodeObservations(
  serde: Serde,
  topic: string,
  records: readonly TopicRecord[],
  skipped: SkippedRecord[],
): Promise<Pick<ObservationChunk, "observations" | "where">> {
  const observations: Observation[] = [];
  const from: TopicRecord[] = [];
  for (const record of records) {
    const decoded = await decodeObservation(serde, record);
    if (typeof decoded === "string")
      skipped.push({ where: `${topic}[${record.partition}]@${record.offset}`, reason: decoded });
    else {
      observations.push(decoded);
      from.push(record);
    }
  }
  return { observations, where: (i) => `${topic}[${from[i]?.partition}]@${from[i]?.offset}` };
}

export function topicSource(kafka: Kafka, serde: Serde, topic: string, skipped: SkippedRecord[]): ObservationSource {
  const source: ObservationSource = {
    label: topic,
    total: 0,
    unit: "records",
    async *chunks(): AsyncGenerator<ObservationChunk> {
      let progress = 0;
      for await (const slice of streamTopic(kafka, topic, {
        groupPrefix: "a2a-ledger-replay",
        onStart: (total) => (source.total = total),
      })) {
        progress += slice.length;
        yield { ...(await decodeObservations(serde, topic, slice, skipped)), progress };
      }
    },
  };
  return source;
}
