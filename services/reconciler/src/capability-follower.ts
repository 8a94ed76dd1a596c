/**
 * The global capability table: every instance reads a2a.capabilities.v1 whole and keeps following it,
 * so the rules see every worker's advertised and verified snapshots whichever partition produced them.
 */
import { CapabilityTable, type CardRecord } from "@a2a-ledger/core";
import { type Admin, type Kafka, TopicReader } from "@a2a-ledger/kafka";
import type { CapabilitySnapshot } from "@a2a-ledger/schemas";
import type { Serde } from "@a2a-ledger/schemas/serde";

export class CapabilityFollower {
  readonly table = new CapabilityTable();
  /** Counts the snapshots applied: changes whenever the table does. */
  version = 0;
  private readonly reader: TopicReader;
  /** Snapshots already applied, by worker, cause and time: the topic may hold one twice (compaction lag, replays). */
  private readonly applied = new Set<string>();

  constructor(kafka: Kafka, admin: Admin, topic: string, private readonly serde: Serde, groupPrefix: string) {
    this.reader = new TopicReader(kafka, admin, topic, async (_partition, message) => {
      if (message.value === null) return;
      const { record } = await this.serde.decode(message.value);
      if (record.type !== "CapabilitySnapshot") return;
      const { type: _type, ...snapshot } = record;
      this.apply(snapshot);
    }, `${groupPrefix}-capabilities`);
  }

  /** Snapshots and cards a transaction of this instance committed. */
  applyCommitted(snapshots: readonly CapabilitySnapshot[], cards: readonly CardRecord[]): void {
    for (const c of cards) this.table.rememberCard(c);
    for (const s of snapshots) this.apply(s);
  }

  apply(snapshot: CapabilitySnapshot): void {
    const id = `${snapshot.workerId}\u0000${snapshot.causeEventId}\u0000${snapshot.validFrom}`;
    if (this.applied.has(id)) return;
    this.applied.add(id);
    this.table.apply(snapshot);
    this.version++;
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
