/**
 * The observations topic in the order the reconciler read it. Every reconciler transaction records
 * what it folded on a2a.reconciler.batches.v1 (one partition: the commit order); this source hands the
 * observations over batch by batch in that order, each with its record, so the replay judges every
 * batch against the capability table and policy versions it was judged by live (core: batch-order.ts).
 * Observations no batch holds yet (the reconciler has not read them) follow, merged by event time.
 *
 * When the records cannot order the topic — no batch topic, no records, or observations below a
 * partition's recorded end that no batch holds (history written before batches were recorded) — the
 * caller replays in event-time order and says why.
 */
import { type RecordedBatch, recordedBatch } from "@a2a-ledger/core";
import type { Kafka } from "@a2a-ledger/kafka";
import type { ReconcilerBatch } from "@a2a-ledger/schemas";
import type { Serde } from "@a2a-ledger/schemas/serde";
import { chunkSize, type ObservationChunk, type ObservationSource } from "../sources/observation-source.ts";
import { decodeRecord } from "./decode-record.ts";
import { decodeObservations, type SkippedRecord } from "./observation-topic.ts";
import { streamTopic, type TopicRecord, TopicUnavailableError } from "./topic-stream.ts";

export type RecordedOrder = { source: ObservationSource; batches: number } | { unavailable: string };

/** Partitions merged as the time-merged read merges them: by the heads' timestamps (then partition), each in its own order. */
function mergeHeads(lists: readonly TopicRecord[][]): TopicRecord[] {
  const heads = lists.map(() => 0);
  const out: TopicRecord[] = [];
  for (;;) {
    let best = -1;
    for (let i = 0; i < lists.length; i++) {
      const r = (lists[i] as TopicRecord[])[heads[i] as number];
      if (r === undefined) continue;
      const b = best === -1 ? undefined : (lists[best] as TopicRecord[])[heads[best] as number];
      if (b === undefined || r.timestamp < b.timestamp || (r.timestamp === b.timestamp && r.partition < b.partition))
        best = i;
    }
    if (best === -1) return out;
    out.push((lists[best] as TopicRecord[])[heads[best] as number] as TopicRecord);
    heads[best] = (heads[best] as number) + 1;
  }
}

async function readBatches(
  kafka: Kafka,
  serde: Serde,
  topic: string,
): Promise<{ batches: RecordedBatch[]; firstAt: number } | string> {
  const batches: RecordedBatch[] = [];
  let firstAt = Number.POSITIVE_INFINITY;
  try {
    for await (const slice of streamTopic(kafka, topic, { groupPrefix: "a2a-ledger-replay-batches" })) {
      for (const record of slice) {
        const decoded = await decodeRecord(serde, record);
        if (typeof decoded === "string" || decoded.typeName !== "ReconcilerBatch")
          return `${topic}[${record.partition}]@${record.offset} is not a batch record (${typeof decoded === "string" ? decoded : decoded.typeName})`;
        const b = decoded.record as ReconcilerBatch;
        if (record.timestamp < firstAt) firstAt = record.timestamp;
        batches.push(recordedBatch(b));
      }
    }
  } catch (e) {
    if (e instanceof TopicUnavailableError) return e.message;
    throw e;
  }
  return batches.length === 0 ? `${topic} holds no batch records` : { batches, firstAt };
}

async function readPartitions(kafka: Kafka, topic: string): Promise<Map<number, TopicRecord[]>> {
  const byPartition = new Map<number, TopicRecord[]>();
  for await (const slice of streamTopic(kafka, topic, { groupPrefix: "a2a-ledger-replay" })) {
    for (const record of slice) {
      let list = byPartition.get(record.partition);
      if (list === undefined) byPartition.set(record.partition, (list = []));
      list.push(record);
    }
  }
  for (const list of byPartition.values()) list.sort((a, b) => (BigInt(a.offset) < BigInt(b.offset) ? -1 : 1));
  return byPartition;
}

/** The records of `list` with offsets in [from, to], from position `at` on: their end position. */
function takeRange(
  list: readonly TopicRecord[],
  at: number,
  from: number,
  to: number,
): { records: TopicRecord[]; next: number; below: boolean } {
  let i = at;
  let below = false;
  while (i < list.length && Number((list[i] as TopicRecord).offset) < from) {
    below = true;
    i++;
  }
  const start = i;
  while (i < list.length && Number((list[i] as TopicRecord).offset) <= to) i++;
  return { records: list.slice(start, i), next: i, below };
}

export async function recordedOrderSource(
  kafka: Kafka,
  serde: Serde,
  topic: string,
  batchesTopic: string,
  skipped: SkippedRecord[],
): Promise<RecordedOrder> {
  const read = await readBatches(kafka, serde, batchesTopic);
  if (typeof read === "string") return { unavailable: read };
  const { batches, firstAt: firstBatchAt } = read;
  const partitions = await readPartitions(kafka, topic);
  // Every batch's records, and the check that no observation below a recorded end escaped every batch.
  const position = new Map<number, number>();
  const planned: { batch: RecordedBatch; records: TopicRecord[] }[] = [];
  for (const batch of batches) {
    if (batch.fromOffset === null || batch.toOffset === null) {
      planned.push({ batch, records: [] });
      continue;
    }
    const list = partitions.get(batch.partition) ?? [];
    const taken = takeRange(list, position.get(batch.partition) ?? 0, batch.fromOffset, batch.toOffset);
    if (taken.below)
      return {
        unavailable: `observations of partition ${batch.partition} below offset ${batch.fromOffset} are in no batch record (read before batches were recorded)`,
      };
    position.set(batch.partition, taken.next);
    planned.push({ batch, records: taken.records });
  }
  // A partition no batch names holds history from before batches were recorded, unless all of it came
  // after the first batch record (the reconciler has not read it yet).
  for (const [p, list] of partitions) {
    const first = list[0];
    if (!position.has(p) && first !== undefined && first.timestamp < firstBatchAt)
      return {
        unavailable: `observations of partition ${p} from before the first batch record are in no batch record (read before batches were recorded)`,
      };
  }
  const tail = mergeHeads([...partitions].map(([p, list]) => list.slice(position.get(p) ?? 0)));
  const total = [...partitions.values()].reduce((n, l) => n + l.length, 0);

  const decode = (records: readonly TopicRecord[]) => decodeObservations(serde, topic, records, skipped);
  const source: ObservationSource = {
    label: topic,
    total,
    unit: "records",
    async *chunks(): AsyncGenerator<ObservationChunk> {
      let progress = 0;
      for (const { batch, records } of planned) {
        progress += records.length;
        yield { ...(await decode(records)), batch, progress };
      }
      for (let i = 0; i < tail.length; i += chunkSize) {
        const slice = tail.slice(i, i + chunkSize);
        progress += slice.length;
        yield { ...(await decode(slice)), progress };
      }
    },
  };
  return { source, batches: batches.length };
}
