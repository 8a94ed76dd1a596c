/**
 * The ledger of each partition this instance holds (the core's `PartitionLedger`: its states, blocked
 * correlations and retention), restored from the changelog the first time it is needed after an
 * assignment. A partition kept across a rebalance keeps its ledger, unless the changelog moved past what
 * this instance last wrote to it (another owner committed in between): then it is restored again.
 */
import { type Decider, type LedgerState, PartitionLedger } from "@a2a-ledger/core";
import { type Admin, endOffsets, type Kafka, topicConfig } from "@a2a-ledger/kafka";
import type { Logger } from "@a2a-ledger/logging";
import { type RestoreSeed, restoreChangelog } from "./changelog.ts";
import { takeSnapshot, unusable, writeSnapshot } from "./state-snapshot.ts";
import type { ReconcilerConfig } from "./config.ts";
import type { GroupMembership } from "./group-membership.ts";
import type { ReconcilerMetrics } from "./metrics.ts";

/** Awaits `work`, calling `heartbeat` every `everyMs` meanwhile (its failures are left to the consumer). */
export async function whileBeating<T>(work: Promise<T>, heartbeat: () => Promise<void>, everyMs: number): Promise<T> {
  const timer = setInterval(() => void heartbeat().catch(() => undefined), everyMs);
  try {
    return await work;
  } finally {
    clearInterval(timer);
  }
}

/**
 * A restore fails (and the consumer restarts) when the changelog read makes no progress for this long;
 * however large the changelog, a read that moves is never cut short.
 */
export const restoreStallMs = 60_000;

/**
 * What a caller may run at the points of a partition's restore. The service passes none; a test runs
 * another owner's commit just before the fence, where a zombie's commit can land. Not configuration: no
 * setting of a deployment reaches it.
 */
export interface RestoreHooks {
  /** After the assignment (kafkajs has fetched the partitions' positions), before their producers fence any previous owner. */
  beforeFence?(partitions: readonly number[]): Promise<void>;
}

export class PartitionStore {
  private readonly ledgers = new Map<number, PartitionLedger>();
  /**
   * The changelog offset each partition's state reflects: the end a restore read it to, then, after each
   * transaction of this instance that wrote the partition's changelog, the end that commit left (its
   * last record's offset + 2: the record, then the commit marker).
   */
  private readonly reflects = new Map<number, bigint>();
  /**
   * When each partition's state was last known to be the changelog's as of `reflects`: its restore, its
   * last commit (which no other owner had fenced), or its check after a rebalance. A local snapshot counts
   * its age from here: another owner's tombstones after `reflects` are at most this old.
   */
  private readonly reflectedAt = new Map<number, number>();
  /** Partitions kept across an assignment whose state is not yet checked against the changelog's end. */
  private readonly unverified = new Set<number>();
  /**
   * Each partition's committed offset as read after its producer fenced the previous owner (restore,
   * verify). kafkajs fetched the consumer's position earlier, at the assignment: a batch the previous
   * owner committed in between is fetched again, and its records below this offset are already folded.
   */
  private readonly resumeAt = new Map<number, bigint>();
  /** The changelog restore in progress, if any: concurrent partitions wait for one restore. */
  private restoring: Promise<void> | undefined;

  constructor(
    private readonly kafka: Kafka,
    private readonly admin: Admin,
    private readonly config: ReconcilerConfig,
    private readonly decider: Decider,
    private readonly group: GroupMembership,
    private readonly metrics: ReconcilerMetrics,
    private readonly log: Logger,
    private readonly hooks: RestoreHooks = {},
  ) {}

  /**
   * The ledger of a partition, restored from the changelog the first time after an assignment. A restore
   * takes as long as the changelog is large: `heartbeat` (the batch's) keeps the group membership
   * while it reads, so a large restore does not cost the partitions it is restoring.
   */
  async ledgerOf(partition: number, heartbeat: () => Promise<void> = async () => undefined): Promise<PartitionLedger> {
    for (;;) {
      const known = this.ledgers.get(partition);
      if (known !== undefined && !this.unverified.has(partition)) return known;
      if (known !== undefined) {
        await whileBeating(this.verify(partition, known), heartbeat, this.config.heartbeatMs);
        continue;
      }
      if (this.restoring === undefined) {
        this.restoring = this.restore(partition).finally(() => (this.restoring = undefined));
      }
      await whileBeating(this.restoring, heartbeat, this.config.heartbeatMs);
    }
  }

  /** Live correlations held per partition: the memory budget and its gauge count these. */
  liveByPartition(): Map<number, number> {
    return new Map([...this.ledgers].map(([partition, ledger]) => [partition, ledger.size]));
  }

  /** Live correlations held, every partition together. */
  liveCorrelations(): number {
    let n = 0;
    for (const ledger of this.ledgers.values()) n += ledger.size;
    return n;
  }

  /** Whether this instance holds state for `partition` (restored, or kept across a rebalance). */
  holds(partition: number): boolean {
    return this.ledgers.has(partition);
  }

  /** The ledger of `partition` if held, without restoring it. */
  heldLedger(partition: number): PartitionLedger | undefined {
    return this.ledgers.get(partition);
  }

  /**
   * A new assignment: the state of every partition no longer assigned is dropped; the state of a
   * partition kept is checked against the changelog before its next use (`verify`).
   */
  onAssignment(assigned: ReadonlySet<number>): void {
    this.resumeAt.clear();
    for (const partition of [...this.ledgers.keys()]) {
      if (assigned.has(partition)) this.unverified.add(partition);
      else this.dropState(partition);
    }
  }

  /**
   * After a commit of this instance on `partition`: `changelogEnd` is where it left the partition's
   * changelog (when it wrote to it). Nothing is recorded for a state that was dropped or replaced meanwhile.
   */
  committed(partition: number, ledger: PartitionLedger, changelogEnd: bigint | undefined): boolean {
    if (this.ledgers.get(partition) !== ledger) return false;
    if (changelogEnd !== undefined) this.reflects.set(partition, changelogEnd);
    this.reflectedAt.set(partition, Date.now());
    return true;
  }

  /**
   * A partition kept across a rebalance keeps its state only if nobody else wrote its changelog in
   * between. Its producer is initialised first (the fresh assignment's: a zombie's or another owner's
   * open transaction is completed or aborted, and its later writes are refused); then, if the
   * changelog's end is still the offset this state reflects, no other owner committed a change to it.
   * Any other end (another owner's commit, or only its aborted transaction's markers) restores it again.
   */
  private async verify(partition: number, ledger: PartitionLedger): Promise<void> {
    await this.group.producerFor(partition);
    await this.readCommitted([partition]);
    const end = (await endOffsets(this.admin, this.config.topics.changelog)).find(
      (p) => p.partition === partition,
    )?.high;
    if (this.ledgers.get(partition) !== ledger || !this.unverified.has(partition)) return;
    this.unverified.delete(partition);
    const reflects = this.reflects.get(partition);
    if (end !== undefined && reflects !== undefined && BigInt(end) === reflects) {
      this.reflectedAt.set(partition, Date.now());
      this.metrics.statesKept.inc({ partition: String(partition) });
      this.log.info({ partition, offset: end, correlations: ledger.size }, "state kept across the rebalance");
      return;
    }
    this.log.info(
      { partition, reflects: reflects?.toString(), end },
      "the changelog moved since this instance wrote it: state restored again",
    );
    this.dropState(partition);
  }

  /** Restores every assigned partition without state (at least `partition`) in one read of their changelog partitions. */
  private async restore(partition: number): Promise<void> {
    const pending = new Set([...this.group.assigned].filter((p) => !this.ledgers.has(p)));
    pending.add(partition);
    const partitions = [...pending].sort((a, b) => a - b);
    this.log.info({ partitions }, "restoring state from the changelog");
    await this.hooks.beforeFence?.(partitions);
    // Fence every previous owner first, so its open transactions are resolved before the read.
    await Promise.all(partitions.map((p) => this.group.producerFor(p)));
    await this.readCommitted(partitions);
    const seeds = await this.snapshotsOf(partitions);
    const remaining = this.metrics.restoreRemaining;
    const {
      states: restored,
      streamTimes,
      upTo,
    } = await restoreChangelog(
      this.kafka,
      this.admin,
      this.config.topics.changelog,
      pending,
      this.config.groupId,
      this.decider,
      {
        stallMs: restoreStallMs,
        progress: (progress) => {
          for (const p of progress) remaining.set({ partition: String(p.partition) }, Number(p.end - p.position));
        },
        restored: ({ partition: p, records, correlations, offset, ms }) => {
          remaining.set({ partition: String(p) }, 0);
          this.metrics.partitionRestores.inc({ partition: String(p) });
          this.metrics.restoreRecords.inc({ partition: String(p) }, records);
          const from = seeds.get(p)?.offset.toString();
          if (from !== undefined) this.metrics.snapshotRestores.inc({ partition: String(p) });
          this.log.info(
            { partition: p, records, correlations, offset, ms, ...(from === undefined ? {} : { fromSnapshot: from }) },
            "partition restored from the changelog",
          );
        },
      },
      seeds,
    );
    for (const [p, states] of restored) {
      // Its blocked correlations are re-examined against the table as it is now; its retention is indexed
      // at the stream time the partition's last commit recorded (before retention: its latest last event).
      const streamTime = streamTimes.get(p);
      this.ledgers.set(
        p,
        new PartitionLedger(this.decider, {
          states,
          retention: this.config.retention,
          ...(streamTime === undefined ? {} : { streamTime }),
        }),
      );
      this.unverified.delete(p);
      this.reflects.set(p, BigInt(upTo[p] ?? "0"));
      this.reflectedAt.set(p, Date.now());
    }
    this.metrics.restores.inc();
    this.log.info(
      { partitions, correlations: [...restored.values()].reduce((n, m) => n + m.size, 0), upTo },
      "state restored from the changelog",
    );
  }

  /** Reads the group's committed offsets of `partitions` (after their fence: no commit of another owner is pending). */
  private async readCommitted(partitions: readonly number[]): Promise<void> {
    const topic = this.config.topics.observations;
    const [offsets] = await this.admin.fetchOffsets({ groupId: this.config.groupId, topics: [topic] });
    for (const { partition, offset } of offsets?.partitions ?? [])
      if (partitions.includes(partition) && Number(offset) >= 0) this.resumeAt.set(partition, BigInt(offset));
  }

  /**
   * How many of `messages` (a partition's, in offset order) lie below the offset committed when its
   * producer fenced the previous owner: folded and committed already, by that owner.
   */
  alreadyCommitted(partition: number, messages: readonly { offset: string }[]): number {
    const resume = this.resumeAt.get(partition);
    if (resume === undefined) return 0;
    let n = 0;
    while (n < messages.length && BigInt((messages[n] as { offset: string }).offset) < resume) n++;
    return n;
  }

  /**
   * The local snapshots (`stateDir`) of the partitions about to be restored that still stand for their
   * changelog's prefix: each is taken (removed from disk) whether it is used or not.
   */
  private async snapshotsOf(partitions: readonly number[]): Promise<Map<number, RestoreSeed>> {
    const seeds = new Map<number, RestoreSeed>();
    const dir = this.config.stateDir;
    if (dir === undefined) return seeds;
    const topic = this.config.topics.changelog;
    const found = partitions.flatMap((partition) => {
      const snapshot = takeSnapshot(dir, topic, partition, (reason) =>
        this.log.warn({ partition, reason }, "local state snapshot not used"),
      );
      return snapshot === undefined ? [] : [{ partition, snapshot }];
    });
    if (found.length === 0) return seeds;
    const bounds = await endOffsets(this.admin, topic);
    const deleteRetentionMs = Number((await topicConfig(this.admin, topic, "delete.retention.ms")) ?? 86_400_000);
    for (const { partition, snapshot } of found) {
      const offsets = bounds.find((b) => b.partition === partition);
      const why =
        offsets === undefined
          ? "the changelog has no such partition"
          : unusable(
              snapshot.header,
              { topic, partition },
              { low: BigInt(offsets.low), high: BigInt(offsets.high), deleteRetentionMs, now: Date.now() },
            );
      if (why !== undefined) {
        this.log.warn({ partition, reason: why }, "local state snapshot not used");
        continue;
      }
      const states = new Map<string, LedgerState>();
      for (const [id, bytes] of snapshot.states) states.set(id, this.decider.deserialize(bytes));
      seeds.set(partition, { offset: BigInt(snapshot.header.offset), states, streamTime: snapshot.header.streamTime });
    }
    return seeds;
  }

  /**
   * At a clean stop, after the last commit: each partition's state as of the changelog offset it
   * reflects goes to `stateDir`, dated when it was last known to match the changelog, for the next
   * restore of that partition to read on from there. A partition not in the last assignment, or whose
   * state is not known to match the changelog (kept across a rebalance, unchecked), is left out. Returns
   * the partitions written.
   */
  writeSnapshots(): number[] {
    const dir = this.config.stateDir;
    if (dir === undefined) return [];
    const written: number[] = [];
    for (const [partition, ledger] of this.ledgers) {
      const offset = this.reflects.get(partition);
      const asOf = this.reflectedAt.get(partition);
      if (offset === undefined || asOf === undefined || this.unverified.has(partition)) continue;
      if (!this.group.assigned.has(partition)) continue;
      const time = ledger.streamTime;
      const serialized = new Map([...ledger.entries()].map(([id, state]) => [id, this.decider.serialize(state)]));
      writeSnapshot(
        dir,
        {
          topic: this.config.topics.changelog,
          partition,
          offset: offset.toString(),
          streamTime: time ?? null,
        },
        serialized,
        asOf,
      );
      written.push(partition);
    }
    return written;
  }

  dropState(partition: number): void {
    this.ledgers.delete(partition);
    this.reflects.delete(partition);
    this.reflectedAt.delete(partition);
    this.unverified.delete(partition);
  }
}
