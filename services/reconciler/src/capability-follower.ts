/**
 * The global capability table: every instance reads a2a.capabilities.v1 whole and keeps following it,
 * so the rules see every worker's advertised and verified snapshots whichever partition produced them.
 *
 * Each snapshot record names its source in headers: the observation partition whose transaction derived
 * it and that batch's last offset. The follower keeps, per source partition, how far the table reaches
 * (`reads`): what a batch records on a2a.reconciler.batches.v1, so replay judges it by the same table.
 */
import { CapabilityTable, type CardRecord, type PartitionReads, type SnapshotSource } from "@a2a-ledger/core";
import { type Admin, type Kafka, TopicReader } from "@a2a-ledger/kafka";
import type { CapabilitySnapshot } from "@a2a-ledger/schemas";
import type { Serde } from "@a2a-ledger/schemas/serde";
import type { IHeaders } from "kafkajs";

const partitionHeader = "a2a-source-partition";
const offsetHeader = "a2a-source-offset";

/** The headers a snapshot record carries its source in. */
export function sourceHeaders(source: SnapshotSource): Record<string, string> {
  return { [partitionHeader]: String(source.partition), [offsetHeader]: String(source.offset) };
}

const header = (headers: IHeaders | undefined, name: string): number | undefined => {
  const value = headers?.[name];
  const text = Buffer.isBuffer(value) ? value.toString("utf8") : typeof value === "string" ? value : undefined;
  return text !== undefined && /^\d{1,15}$/.test(text) ? Number(text) : undefined;
};

/** The source a snapshot record names, if it names one (records written before sources were recorded do not). */
export function sourceOf(headers: IHeaders | undefined): SnapshotSource | undefined {
  const partition = header(headers, partitionHeader);
  const offset = header(headers, offsetHeader);
  return partition === undefined || offset === undefined ? undefined : { partition, offset };
}

export class CapabilityFollower {
  readonly table = new CapabilityTable();
  /** Counts the snapshots applied: changes whenever the table does. */
  version = 0;
  private readonly reader: TopicReader;
  /** Snapshots already applied, by worker, cause and time: the topic may hold one twice (compaction lag, replays). */
  private readonly applied = new Set<string>();
  /**
   * Per source partition, one past the highest batch offset whose snapshots were read back from the
   * topic: the topic is one partition and a source partition commits one transaction at a time, so every
   * snapshot of that source below it is in the table.
   */
  private readonly reach = new Map<number, number>();
  /**
   * Batches this instance committed whose snapshots it applied at once, not read back yet: beyond the
   * reach (a previous owner's snapshots of that partition may still be unread below them).
   */
  private readonly own = new Map<number, Set<number>>();

  constructor(
    kafka: Kafka,
    admin: Admin,
    topic: string,
    private readonly serde: Serde,
    groupPrefix: string,
  ) {
    this.reader = new TopicReader(
      kafka,
      admin,
      topic,
      async (_partition, message) => {
        if (message.value === null) return;
        const { record } = await this.serde.decode(message.value);
        if (record.type !== "CapabilitySnapshot") return;
        const { type: _type, ...snapshot } = record;
        const source = sourceOf(message.headers);
        if (source !== undefined) this.readBack(source);
        this.apply(snapshot);
      },
      `${groupPrefix}-capabilities`,
    );
  }

  /** Snapshots and cards a transaction of this instance committed, from the batch `source` names. */
  applyCommitted(snapshots: readonly CapabilitySnapshot[], cards: readonly CardRecord[], source: SnapshotSource): void {
    for (const c of cards) this.table.rememberCard(c);
    if (snapshots.length > 0 && source.offset >= (this.reach.get(source.partition) ?? 0)) {
      const batches = this.own.get(source.partition) ?? new Set<number>();
      batches.add(source.offset);
      this.own.set(source.partition, batches);
    }
    for (const s of snapshots) this.apply(s);
  }

  apply(snapshot: CapabilitySnapshot): void {
    const id = `${snapshot.workerId}\u0000${snapshot.causeEventId}\u0000${snapshot.validFrom}`;
    if (this.applied.has(id)) return;
    this.applied.add(id);
    this.table.apply(snapshot);
    this.version++;
  }

  /** A snapshot of `source` read back from the topic: the reach grows to it, own batches below it are covered. */
  private readBack(source: SnapshotSource): void {
    if ((this.reach.get(source.partition) ?? 0) > source.offset) return;
    this.reach.set(source.partition, source.offset + 1);
    const batches = this.own.get(source.partition);
    if (batches === undefined) return;
    for (const o of batches) if (o <= source.offset) batches.delete(o);
    if (batches.size === 0) this.own.delete(source.partition);
  }

  /** How far the table reaches now, per source partition (what a batch judged by it records). */
  reads(): PartitionReads {
    return [...this.reach].sort(([a], [b]) => a - b).map(([partition, offset]) => ({ partition, offset }));
  }

  /** This instance's own batches whose snapshots are in the table beyond `reads()`. */
  ownBatches(): PartitionReads {
    return [...this.own]
      .sort(([a], [b]) => a - b)
      .flatMap(([partition, offsets]) => [...offsets].sort((x, y) => x - y).map((offset) => ({ partition, offset })));
  }

  async start(): Promise<void> {
    await this.reader.start();
    await this.reader.caughtUp(120_000);
  }

  /** Waits until every snapshot committed so far is in the table. */
  async catchUp(timeoutMs?: number): Promise<void> {
    await this.reader.caughtUp(timeoutMs);
  }

  stop(): Promise<void> {
    return this.reader.stop();
  }
}
