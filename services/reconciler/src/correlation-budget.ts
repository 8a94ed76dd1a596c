/**
 * The reconciler's memory budget: how many live correlations (states held in memory, every partition
 * of this instance) it may hold. A batch takes its observations in order while the correlations they
 * name, added to those held, stay within the budget; the first observation of a correlation beyond it,
 * and everything after it on that partition, waits (not decided, offsets not committed) until there
 * is room — a partition given up at a rebalance, or a restart with a higher budget. Nothing is skipped
 * and nothing is lost: kafkajs fetches the partition again from the first observation not taken.
 * From 80 % a warning is logged, and while observations wait an error, each at most once a minute.
 */
import v8 from "node:v8";
import type { Logger } from "@a2a-ledger/logging";

/**
 * Heap budgeted per live correlation for the default budget. Measured (`npm run bench:heap`): a simple
 * five-event correlation holds about 1.9 KB of heap as the fold leaves it (1.7 KB restored); richer
 * ones (longer ids, several artifacts) about 5.9 KB. 8 KiB covers those with headroom.
 */
export const heapBytesPerCorrelation = 8_192;
/** Share of the heap the default budget gives to correlation states; the rest is batches, restores, tables. */
export const heapShareForStates = 0.5;
/** The share of the budget at which a warning is logged (and the alert A2ALedgerReconcilerCorrelationBudget fires). */
export const warnShare = 0.8;
/** How long a batch that found no room waits (heartbeating) before kafkajs fetches the partition again. */
export const waitForRoomMs = 1_000;
/** How often, at most, the 80 % warning and the 100 % error are logged. */
export const budgetLogEveryMs = 60_000;

/** The default budget: half the heap limit (V8's `heap_size_limit`, set by --max-old-space-size) at 8 KiB per correlation. */
export function defaultMaxCorrelations(heapSizeLimit: number = v8.getHeapStatistics().heap_size_limit): number {
  return Math.max(1_000, Math.floor((heapSizeLimit * heapShareForStates) / heapBytesPerCorrelation));
}

/**
 * How many of `keys` (a batch's record keys, in order) may be taken with `room` correlations left:
 * the longest prefix whose correlations not yet held (`held`) number at most `room`. A record without
 * a key holds no state (it is dead-lettered). Returns the prefix length and its new correlations.
 */
export function admissible(
  keys: readonly (string | null)[],
  held: (correlationId: string) => boolean,
  room: number,
): { taken: number; added: number } {
  const added = new Set<string>();
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i];
    if (key === null || key === undefined || held(key) || added.has(key)) continue;
    if (added.size >= room) return { taken: i, added: added.size };
    added.add(key);
  }
  return { taken: keys.length, added: added.size };
}

export class CorrelationBudget {
  /** Correlations admitted by batches still in progress (not yet in a partition's state). */
  private reserved = 0;
  private lastWarning = Number.NEGATIVE_INFINITY;
  private lastError = Number.NEGATIVE_INFINITY;
  /** Partitions whose next observation waits for room, with since when. */
  readonly waiting = new Map<number, number>();

  constructor(
    readonly max: number,
    /** Live correlations held by this instance now (every partition's state). */
    private readonly live: () => number,
    private readonly log: Logger,
    private readonly now: () => number = Date.now,
  ) {}

  /** Held and reserved: what the budget is measured against. */
  used(): number {
    return this.live() + this.reserved;
  }

  /**
   * Admits the longest prefix of a batch of `partition` that fits, and reserves its new correlations
   * until `release` (after the batch committed and its states are held, or failed).
   */
  admit(
    partition: number,
    keys: readonly (string | null)[],
    held: (correlationId: string) => boolean,
  ): { taken: number; release: () => void } {
    const { taken, added } = admissible(keys, held, Math.max(0, this.max - this.used()));
    this.reserved += added;
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      this.reserved -= added;
    };
    // A re-examination brings no observation: it says nothing about whether the partition waits.
    if (taken < keys.length) {
      if (!this.waiting.has(partition)) this.waiting.set(partition, this.now());
    } else if (keys.length > 0) this.waiting.delete(partition);
    this.report();
    return { taken, release };
  }

  /** A partition given up (revoked, or its state dropped): it waits for nothing on this instance. */
  forget(partition: number): void {
    this.waiting.delete(partition);
  }

  /** The error while observations wait for room, else the warning from 80 %; each at most once a minute. */
  report(): void {
    const used = this.used();
    const now = this.now();
    if (this.waiting.size > 0) {
      if (now - this.lastError < budgetLogEveryMs) return;
      this.lastError = now;
      this.log.error(
        { live: used, max: this.max, waitingPartitions: [...this.waiting.keys()].sort((a, b) => a - b) },
        "correlation budget reached: observations of new correlations wait (not decided, not committed) until state shrinks; raise A2A_LEDGER_RECONCILER_MAX_CORRELATIONS (and the heap) or add instances",
      );
    } else if (used >= this.max * warnShare) {
      if (now - this.lastWarning < budgetLogEveryMs) return;
      this.lastWarning = now;
      this.log.warn(
        { live: used, max: this.max, share: Math.round((used / this.max) * 100) / 100 },
        "correlation budget over 80% used",
      );
    }
  }
}
