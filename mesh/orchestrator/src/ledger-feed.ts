/**
 * What the ledger committed, as an orchestrator (or a test, or the demo) follows it: a consumer of
 * ledger topics (read_committed, a throwaway group, no commits) that decodes every record with the
 * registry's schemas and keeps those the caller cares about, so it can wait for a decision or an
 * observation to appear.
 */
import { randomUUID } from "node:crypto";
import { createKafka, type Consumer, processClientConfig } from "@a2a-ledger/kafka";
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
  private consumer: Consumer | undefined;
  private waiters: Waiter[] = [];

  constructor(private readonly options: LedgerFeedOptions) {
    this.serde = new Serde(options.registryUrl, undefined, processClientConfig().registry);
  }

  async start(): Promise<void> {
    const kafka = createKafka({ brokers: this.options.brokers, clientId: this.options.clientId ?? "a2a-ledger-feed" });
    const starts: { topic: string; partition: number; offset: string }[] = [];
    if (this.options.from === "end") {
      const admin = kafka.admin();
      await admin.connect();
      try {
        for (const topic of this.options.topics) for (const p of await admin.fetchTopicOffsets(topic)) starts.push({ topic, partition: p.partition, offset: p.high });
      } finally {
        await admin.disconnect();
      }
    }
    const consumer = kafka.consumer({ groupId: `a2a-ledger-feed-${randomUUID()}`, readUncommitted: false, maxWaitTimeInMs: 100 });
    this.consumer = consumer;
    await consumer.connect();
    for (const topic of this.options.topics) await consumer.subscribe({ topic, fromBeginning: true });
    await consumer.run({
      autoCommit: false,
      eachMessage: async ({ message }) => {
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
      },
    });
    for (const s of starts) consumer.seek(s);
  }

  async stop(): Promise<void> {
    await this.consumer?.disconnect();
  }

  /** Every kept record of one type (decisions and observations alike), with its fields typed. */
  ofType<T extends LedgerRecord["type"]>(type: T): Extract<LedgerRecord, { type: T }>[] {
    return this.records.filter((r): r is Extract<LedgerRecord, { type: T }> => r.type === type);
  }

  /** The first kept record (already seen or still to come) that satisfies `predicate`. */
  waitFor<R extends LedgerRecord>(predicate: (record: LedgerRecord) => record is R, timeoutMs: number, what: string): Promise<R>;
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
export function isType<T extends LedgerRecord["type"]>(type: T, where: (record: Extract<LedgerRecord, { type: T }>) => boolean = () => true) {
  return (record: LedgerRecord): record is Extract<LedgerRecord, { type: T }> => record.type === type && where(record as Extract<LedgerRecord, { type: T }>);
}
