/**
 * What the ledger committed, as an orchestrator (or a test, or the demo) follows it: a reader of each
 * ledger topic (@a2a-ledger/kafka's TopicReader: read_committed, a throwaway group, no commits) that
 * decodes every record with the registry's schemas and keeps those the caller cares about, so it can
 * wait for a decision or an observation to appear.
 */
import { type Admin, createKafka, type KafkaMessage, processClientConfig, TopicReader } from "@a2a-ledger/kafka";
import type { Decision, Observation } from "@a2a-ledger/schemas";
import { Serde } from "@a2a-ledger/schemas/serde";

export type LedgerRecord = Decision | Observation;

export interface LedgerFeedOptions {
  brokers: string;
  registryUrl: string;
  topics: string[];
  /** Start at the topics' current end (only what happens from now on), or at their beginning. */
  from: "end" | "beginning";
  /** Which records to keep; everything by default. */
  keep?: (record: LedgerRecord) => boolean;
  /** Called for every kept record, in the order they arrive. */
  onRecord?: (record: LedgerRecord) => void;
  clientId?: string;
}

interface Waiter {
  predicate: (record: LedgerRecord) => boolean;
  resolve: (record: LedgerRecord) => void;
}

export class LedgerFeed {
  readonly records: LedgerRecord[] = [];
  private readonly serde: Serde;
  private admin: Admin | undefined;
  private readers: TopicReader[] = [];
  private waiters: Waiter[] = [];

  constructor(private readonly options: LedgerFeedOptions) {
    this.serde = new Serde(options.registryUrl, undefined, processClientConfig().registry);
  }

  async start(): Promise<void> {
    const kafka = createKafka({ brokers: this.options.brokers, clientId: this.options.clientId ?? "a2a-ledger-feed" });
    const admin = kafka.admin();
    this.admin = admin;
    await admin.connect();
    this.readers = this.options.topics.map(
      (topic) =>
        new TopicReader(kafka, admin, topic, (_partition, message) => this.take(message), "a2a-ledger-feed", {
          from: this.options.from,
        }),
    );
    for (const reader of this.readers) await reader.start();
  }

  private async take(message: KafkaMessage): Promise<void> {
    if (message.value === null) return;
    let record: LedgerRecord;
    try {
      record = (await this.serde.decode(message.value)).record as LedgerRecord;
    } catch {
      return; // not a ledger record: nothing to follow
    }
    if (this.options.keep !== undefined && !this.options.keep(record)) return;
    this.records.push(record);
    this.options.onRecord?.(record);
    const ready = this.waiters.filter((w) => w.predicate(record));
    this.waiters = this.waiters.filter((w) => !ready.includes(w));
    for (const w of ready) w.resolve(record);
  }

  async stop(): Promise<void> {
    await Promise.all(this.readers.map((r) => r.stop()));
    await this.admin?.disconnect();
  }

  /** Every kept record of one type (decisions and observations alike), with its fields typed. */
  ofType<T extends LedgerRecord["type"]>(type: T): Extract<LedgerRecord, { type: T }>[] {
    return this.records.filter((r): r is Extract<LedgerRecord, { type: T }> => r.type === type);
  }

  /** The first kept record (already seen or still to come) that satisfies `predicate`. */
  waitFor<R extends LedgerRecord>(
    predicate: (record: LedgerRecord) => record is R,
    timeoutMs: number,
    what: string,
  ): Promise<R>;
  waitFor(predicate: (record: LedgerRecord) => boolean, timeoutMs: number, what: string): Promise<LedgerRecord>;
  waitFor(predicate: (record: LedgerRecord) => boolean, timeoutMs: number, what: string): Promise<LedgerRecord> {
    const seen = this.records.find(predicate);
    if (seen !== undefined) return Promise.resolve(seen);
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        predicate,
        resolve: (record) => {
          clearTimeout(timer);
          resolve(record);
        },
      };
      const timer = setTimeout(() => {
        this.waiters = this.waiters.filter((w) => w !== waiter);
        reject(new Error(`the ledger did not show ${what} within ${timeoutMs} ms`));
      }, timeoutMs);
      this.waiters.push(waiter);
    });
  }
}

/** A record of `type` (for waitFor and filters). */
export function isType<T extends LedgerRecord["type"]>(
  type: T,
  where: (record: Extract<LedgerRecord, { type: T }>) => boolean = () => true,
) {
  return (record: LedgerRecord): record is Extract<LedgerRecord, { type: T }> =>
    record.type === type && where(record as Extract<LedgerRecord, { type: T }>);
}
