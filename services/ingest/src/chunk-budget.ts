/**
 * How many records go into one produce request. Kafka refuses a record batch (one per partition in a
 * request) larger than the topic's max.message.bytes (1 MiB by default), so the budget is kept per
 * partition, plus caps on the whole request. Pure.
 */
import { partitionOf } from "@a2a-ledger/kafka";

export interface OutgoingRecord {
  key: string;
  value: Buffer;
}

export interface ChunkLimits {
  /** Bytes of keys and values per partition in one request; under max.message.bytes with headroom. */
  partitionBytes: number;
  requestBytes: number;
  records: number;
}

export const defaultChunkLimits: ChunkLimits = {
  partitionBytes: 900_000,
  requestBytes: 8 * 1024 * 1024,
  records: 20_000,
};

/** Per-record framing overhead Kafka adds inside a record batch, an upper bound. */
const recordOverhead = 24;

export const sizeOf = (record: OutgoingRecord): number =>
  Buffer.byteLength(record.key) + record.value.length + recordOverhead;

export class ChunkBudget {
  private readonly perPartition: number[];
  private bytes = 0;
  private count = 0;

  constructor(
    private readonly partitions: number,
    private readonly limits: ChunkLimits = defaultChunkLimits,
  ) {
    this.perPartition = new Array<number>(Math.max(1, partitions)).fill(0);
  }

  /** Adds the record when it fits; the first record always fits, so every chunk makes progress. */
  tryAdd(record: OutgoingRecord): boolean {
    const size = sizeOf(record);
    const p = this.partitions > 1 ? partitionOf(record.key, this.partitions) : 0;
    const partitionBytes = this.perPartition[p] ?? 0;
    if (
      this.count > 0 &&
      (this.count + 1 > this.limits.records ||
        this.bytes + size > this.limits.requestBytes ||
        partitionBytes + size > this.limits.partitionBytes)
    )
      return false;
    this.perPartition[p] = partitionBytes + size;
    this.bytes += size;
    this.count += 1;
    return true;
  }

  get size(): number {
    return this.count;
  }
}
