/**
 * Replaying in the order the reconciler read. Each reconciler transaction folds a batch of one
 * observation partition against the capability table it holds at that moment, which the other
 * partitions' transactions keep extending; two partitions read in the other order are judged against
 * another table. A replay merged by event time cannot know which order happened, so every transaction
 * records what it read (a2a.reconciler.batches.v1): its offsets, whether it re-examined blocked
 * correlations, the trust-policy versions it had, and how far its table reached per source partition
 * (`PartitionReads`: a snapshot's source is the observation partition that derived it and that batch's
 * last offset). Replay folds the same batches in the records' order, each against `SourcedCapabilities`
 * restricted to what that batch's table held — the same decisions, under any rule set.
 */
import type { CapabilitySnapshot, Observation, ReconcilerBatch } from "@a2a-ledger/schemas";
import { CapabilityTable, type CardRecord } from "./capabilities.ts";
import type { Decider, LedgerState } from "./decider.ts";
import { applyCapabilityUpdates, type FoldOutcome } from "./fold.ts";
import { isPolicyHistory, type PolicySource } from "./policy-history.ts";
import { PartitionLedger } from "./partition-ledger.ts";
import type { RetentionPolicy } from "./retention.ts";

/** Per source partition, one past the last batch offset whose snapshots a table holds (absent: none of them). */
export type PartitionReads = readonly { readonly partition: number; readonly offset: number }[];

/** What one reconciler transaction read: the fields of a ReconcilerBatch record replay needs. */
export interface RecordedBatch {
  partition: number;
  /** First and last observation offset folded; both null for a transaction that only re-examined. */
  fromOffset: number | null;
  toOffset: number | null;
  recheck: boolean;
  capabilityReads: PartitionReads;
  /** Batches (partition, last offset) whose snapshots the table held beyond the reads (its instance's own commits). */
  capabilityOwnBatches?: PartitionReads;
  /** The highest trust-policy version read (0: none). */
  policyVersions: number;
  /** The retention the reconciler evicted by (null or absent: it kept every correlation). */
  retention?: RetentionPolicy | null;
}

/** A ReconcilerBatch record (a2a.reconciler.batches.v1) as the fold takes it. */
export function recordedBatch(b: ReconcilerBatch): RecordedBatch {
  return {
    partition: b.partition,
    fromOffset: b.fromOffset,
    toOffset: b.toOffset,
    recheck: b.recheck,
    capabilityReads: b.capabilityReads,
    capabilityOwnBatches: b.capabilityOwnBatches,
    policyVersions: b.policyVersions,
    retention: b.retentionMs === null ? null : { finishedMs: b.retentionMs, staleMs: b.staleMs ?? b.retentionMs },
  };
}

/** Where a derived snapshot or card came from: the partition whose batch derived it, and that batch's last offset. */
export interface SnapshotSource {
  partition: number;
  offset: number;
}

interface Entry {
  snapshot?: CapabilitySnapshot;
  card?: CardRecord;
  source: SnapshotSource;
}

const readsKey = (reads: PartitionReads): string => reads.map((r) => `${r.partition}:${r.offset}`).join(",");

/**
 * Every snapshot and card a replay derived, each with its source, in the order derived; `viewFor` is
 * the table a batch with those reads was judged by. A batch's reads only name batches the replay
 * folded before it (the records' order is the commit order), so a view never misses a snapshot.
 */
export class SourcedCapabilities {
  private readonly entries: Entry[] = [];
  private last: { key: string; size: number; table: CapabilityTable } | undefined;

  /** What one batch derived (applied in the order the fold derived it). */
  add(
    derived: { capabilityUpdates: readonly CapabilitySnapshot[]; cards: readonly CardRecord[] },
    source: SnapshotSource,
  ): void {
    for (const card of derived.cards) this.entries.push({ card, source });
    for (const snapshot of derived.capabilityUpdates) this.entries.push({ snapshot, source });
  }

  /** Every snapshot and card derived so far: the table of what comes after the recorded batches. */
  all(): CapabilityTable {
    return this.viewFor(
      [...new Set(this.entries.map((e) => e.source.partition))].map((partition) => ({
        partition,
        offset: Number.MAX_SAFE_INTEGER,
      })),
    );
  }

  /**
   * The table of the snapshots and cards whose source the reads reach, or that come from one of `own`'s
   * batches, in the order they were derived; a snapshot derived twice (same worker, cause and time) once,
   * as the reconciler's follower applies it once.
   */
  viewFor(reads: PartitionReads, own: PartitionReads = []): CapabilityTable {
    const key = `${readsKey(reads)}|${readsKey(own)}`;
    // Entries added since cannot be visible under the same reads (see the class comment), but a table is
    // rebuilt when they are, so a caller that breaks that order still gets the truth.
    if (this.last !== undefined && this.last.key === key && this.last.size === this.entries.length)
      return this.last.table;
    const reach = new Map(reads.map((r) => [r.partition, r.offset]));
    const ownBatches = new Set(own.map((b) => `${b.partition}:${b.offset}`));
    const table = new CapabilityTable();
    const applied = new Set<string>();
    for (const e of this.entries) {
      if (
        e.source.offset >= (reach.get(e.source.partition) ?? 0) &&
        !ownBatches.has(`${e.source.partition}:${e.source.offset}`)
      )
        continue;
      if (e.card !== undefined) table.rememberCard(e.card);
      if (e.snapshot === undefined) continue;
      const id = `${e.snapshot.workerId}\u0000${e.snapshot.causeEventId}\u0000${e.snapshot.validFrom}`;
      if (applied.has(id)) continue;
      applied.add(id);
      table.apply(e.snapshot);
    }
    this.last = { key, size: this.entries.length, table };
    return table;
  }
}

/** The policy a batch was judged by: a recorded history up to the versions it had read; a fixed policy as it is. */
export function policyRead(policy: PolicySource, versions: number): PolicySource {
  if (!isPolicyHistory(policy)) return policy;
  return { versions: policy.versions.filter((v) => v.version <= versions) };
}

/** The ledger of a fold by time: every correlation, whatever its partition. */
const allPartitions = -1;

/**
 * A whole log folded chunk after chunk, as the reconciler folded it: a chunk with its batch record is
 * that batch, judged against the snapshots and policy versions its transaction read, re-examining its
 * partition's blocked correlations when it did; a chunk without one is folded by time against every
 * snapshot derived so far (a log without batch records, or what follows the recorded batches).
 * Each observation partition of the recorded batches has its own `PartitionLedger`, as each has in the
 * reconciler; past them, one ledger holds every correlation. States are updated in place.
 */
export class BatchOrderFold {
  private table = new CapabilityTable();
  private readonly sourced = new SourcedCapabilities();
  private recorded = false;
  /** By observation partition (recorded batches), or `allPartitions` (by time). */
  private readonly ledgers = new Map<number, PartitionLedger>();

  /**
   * `retention`: what chunks without a batch record evict by (none: they keep every correlation); a
   * recorded batch evicts by the retention its record names, as the reconciler did.
   */
  constructor(
    private readonly decider: Decider,
    private readonly policy: PolicySource,
    private readonly byTimeRetention?: RetentionPolicy,
  ) {}

  /** Every correlation's newest state, all ledgers together. */
  get states(): ReadonlyMap<string, LedgerState> {
    return new Map([...this.ledgers.values()].flatMap((l) => [...l.entries()]));
  }

  /**
   * Folds one chunk; `streamTime` gives the stream time at each of its observations and after the
   * last, when the caller left observations of the partition out (see FoldInput.streamTimeAt).
   */
  fold(
    observations: readonly Observation[],
    batch?: RecordedBatch,
    streamTime?: { at(index: number): number; end: number },
  ): FoldOutcome {
    if (batch !== undefined) this.recorded = true;
    else if (this.recorded) {
      // Past the recorded batches: every snapshot derived so far, every correlation in one ledger.
      this.recorded = false;
      this.table = this.sourced.all();
      const merged = PartitionLedger.merged(this.decider, this.ledgers.values(), this.byTimeRetention);
      this.ledgers.clear();
      this.ledgers.set(allPartitions, merged);
    }
    const partition = batch?.partition ?? allPartitions;
    const retention = batch === undefined ? this.byTimeRetention : (batch.retention ?? undefined);
    let ledger = this.ledgers.get(partition);
    if (ledger === undefined) {
      ledger = new PartitionLedger(this.decider, retention === undefined ? {} : { retention, streamTime: null });
      this.ledgers.set(partition, ledger);
    } else ledger.retainBy(retention);
    // A log whose chunks by time came first: their ledger holds what a recorded batch may continue.
    const byTime = partition === allPartitions ? undefined : this.ledgers.get(allPartitions);
    const outcome = ledger.fold(
      {
        policy: batch === undefined ? this.policy : policyRead(this.policy, batch.policyVersions),
        capabilities:
          batch === undefined ? this.table : this.sourced.viewFor(batch.capabilityReads, batch.capabilityOwnBatches),
        ...(batch === undefined ? {} : { recheck: batch.recheck }),
        ...(streamTime === undefined ? {} : { streamTime }),
        ...(byTime === undefined ? {} : { elsewhere: (id: string) => byTime.stateOf(id) }),
      },
      observations,
    );
    byTime?.release([...outcome.states.keys(), ...outcome.expired]);
    if (batch === undefined) applyCapabilityUpdates(this.table, outcome);
    else this.sourced.add(outcome, { partition: batch.partition, offset: batch.toOffset ?? -1 });
    return outcome;
  }
}
