/**
 * The global capability table: per worker, the history of advertised (A) and verified (V) capability
 * snapshots, each valid from its cause event's occurredAt. Look-ups are "as of" an event's time, so the
 * rules read the card in force when something happened, not the newest one.
 *
 * The reconciler publishes every snapshot to the compacted topic a2a.capabilities.v1 and rebuilds the
 * table from it with `CapabilityTable.fromSnapshots`.
 */
import type { CapabilitySnapshot } from "@a2a-ledger/schemas";

/** What a card fetch told us beyond the snapshot: the card text (for R8 diffs) and its max-age (for R8 age). */
export interface CardRecord {
  cardHash: string;
  cardUrl: string;
  card: string;
  cacheMaxAgeSeconds: number | null;
}

/** Read-only view of the table, what the rules see. */
export interface CapabilityView {
  /** The snapshot in force for a worker at `at` (the latest with validFrom <= at), if any. */
  asOf(workerId: string, at: number): CapabilitySnapshot | undefined;
  /** Whether any snapshot exists for the worker, whatever its time. */
  knows(workerId: string): boolean;
  /** Every worker with a snapshot, sorted. */
  workers(): readonly string[];
  card(cardHash: string): CardRecord | undefined;
  /** A worker's snapshots in validFrom order. */
  historyOf(workerId: string): readonly CapabilitySnapshot[];
}

function insertByValidFrom(history: CapabilitySnapshot[], snapshot: CapabilitySnapshot): void {
  let i = history.length;
  while (i > 0 && (history[i - 1] as CapabilitySnapshot).validFrom > snapshot.validFrom) i--;
  history.splice(i, 0, snapshot);
}

function latestAtOrBefore(history: readonly CapabilitySnapshot[], at: number): CapabilitySnapshot | undefined {
  let lo = 0;
  let hi = history.length - 1;
  let found = -1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if ((history[mid] as CapabilitySnapshot).validFrom <= at) {
      found = mid;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  return found === -1 ? undefined : history[found];
}

/** The mutable table the replay and the reconciler hold; rules only see it through CapabilityView. */
export class CapabilityTable implements CapabilityView {
  private readonly history = new Map<string, CapabilitySnapshot[]>();
  private readonly cards = new Map<string, CardRecord>();
  private sortedWorkers: string[] | null = null;

  static fromSnapshots(snapshots: Iterable<CapabilitySnapshot>, cards: Iterable<CardRecord> = []): CapabilityTable {
    const table = new CapabilityTable();
    for (const s of snapshots) table.apply(s);
    for (const c of cards) table.rememberCard(c);
    return table;
  }

  /**
   * Inserts a snapshot in validFrom order; among equal validFrom the later applied one wins. A snapshot
   * that carries its card (every one derived from a card fetch does) also teaches the table that card,
   * so a table rebuilt from a2a.capabilities.v1 alone can diff the next card (R8).
   */
  apply(snapshot: CapabilitySnapshot): void {
    if (snapshot.card !== null && snapshot.cardUrl !== null && !this.cards.has(snapshot.cardHash)) {
      this.cards.set(snapshot.cardHash, {
        cardHash: snapshot.cardHash,
        cardUrl: snapshot.cardUrl,
        card: snapshot.card,
        cacheMaxAgeSeconds: snapshot.cacheMaxAgeSeconds,
      });
    }
    let history = this.history.get(snapshot.workerId);
    if (history === undefined) {
      history = [];
      this.history.set(snapshot.workerId, history);
      this.sortedWorkers = null;
    }
    insertByValidFrom(history, snapshot);
  }

  rememberCard(record: CardRecord): void {
    this.cards.set(record.cardHash, record);
  }

  asOf(workerId: string, at: number): CapabilitySnapshot | undefined {
    const history = this.history.get(workerId);
    return history === undefined ? undefined : latestAtOrBefore(history, at);
  }

  knows(workerId: string): boolean {
    return this.history.has(workerId);
  }

  workers(): readonly string[] {
    this.sortedWorkers ??= [...this.history.keys()].sort();
    return this.sortedWorkers;
  }

  card(cardHash: string): CardRecord | undefined {
    return this.cards.get(cardHash);
  }

  historyOf(workerId: string): readonly CapabilitySnapshot[] {
    return this.history.get(workerId) ?? [];
  }

  /** Every snapshot, per worker in validFrom order: what a compacted-topic rebuild would feed back. */
  snapshots(): CapabilitySnapshot[] {
    return this.workers().flatMap((w) => this.history.get(w) ?? []);
  }
}

/**
 * Updates not applied to `base` yet, layered on top of it: what the rules of one batch (or one step)
 * see before the caller publishes and applies them. A worker's history is copied on its first update.
 */
export class CapabilityLayer implements CapabilityView {
  private readonly history = new Map<string, CapabilitySnapshot[]>();
  private readonly cards = new Map<string, CardRecord>();
  private sortedWorkers: string[] | null = null;

  constructor(private readonly base: CapabilityView) {}

  apply(snapshot: CapabilitySnapshot): void {
    let history = this.history.get(snapshot.workerId);
    if (history === undefined) {
      history = [...this.base.historyOf(snapshot.workerId)];
      this.history.set(snapshot.workerId, history);
      this.sortedWorkers = null;
    }
    insertByValidFrom(history, snapshot);
  }

  rememberCard(record: CardRecord): void {
    this.cards.set(record.cardHash, record);
  }

  asOf(workerId: string, at: number): CapabilitySnapshot | undefined {
    const history = this.history.get(workerId);
    return history === undefined ? this.base.asOf(workerId, at) : latestAtOrBefore(history, at);
  }

  knows(workerId: string): boolean {
    return this.history.has(workerId) || this.base.knows(workerId);
  }

  workers(): readonly string[] {
    if (this.history.size === 0) return this.base.workers();
    this.sortedWorkers ??= [...new Set([...this.base.workers(), ...this.history.keys()])].sort();
    return this.sortedWorkers;
  }

  card(cardHash: string): CardRecord | undefined {
    return this.cards.get(cardHash) ?? this.base.card(cardHash);
  }

  historyOf(workerId: string): readonly CapabilitySnapshot[] {
    return this.history.get(workerId) ?? this.base.historyOf(workerId);
  }
}
