/**
 * The state of each partition this instance holds, restored from the changelog the first time it is
 * needed after an assignment, with the blocked correlations the re-examination looks at again.
 */
import type { Decider, LedgerState } from "@a2a-ledger/core";
import type { Admin, Kafka } from "@a2a-ledger/kafka";
import type { Logger } from "@a2a-ledger/logging";
import { type PartitionStates, restoreChangelog } from "./changelog.ts";
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

export class PartitionStore {
  private readonly states: PartitionStates = new Map();
  /** The changelog restore in progress, if any: concurrent partitions wait for one restore. */
  private restoring: Promise<void> | undefined;
  /** Blocked correlations per partition: re-examined whenever the capability table changes. */
  readonly blocked = new Map<number, Set<string>>();
  /** The capability table version each partition's blocked correlations were last re-examined at. */
  readonly recheckedAt = new Map<number, number>();

  constructor(
    private readonly kafka: Kafka,
    private readonly admin: Admin,
    private readonly config: ReconcilerConfig,
    private readonly decider: Decider,
    private readonly group: GroupMembership,
    private readonly metrics: ReconcilerMetrics,
    private readonly log: Logger,
  ) {}

  /**
   * State of a partition, restored from the changelog the first time after an assignment. A restore
   * takes as long as the changelog is large: `heartbeat` (the batch's) keeps the group membership
   * while it reads, so a large restore does not cost the partitions it is restoring.
   */
  async statesOf(partition: number, heartbeat: () => Promise<void> = async () => undefined): Promise<Map<string, LedgerState>> {
    for (;;) {
      const known = this.states.get(partition);
      if (known !== undefined) return known;
      if (this.restoring === undefined) {
        this.restoring = this.restore(partition).finally(() => (this.restoring = undefined));
      }
      await whileBeating(this.restoring, heartbeat, this.config.heartbeatMs);
    }
  }

  /** Restores every assigned partition without state (at least `partition`) in one read of their changelog partitions. */
  private async restore(partition: number): Promise<void> {
    const pending = new Set([...this.group.assigned].filter((p) => !this.states.has(p)));
    pending.add(partition);
    const partitions = [...pending].sort((a, b) => a - b);
    this.log.info({ partitions }, "restoring state from the changelog");
    // Fence every previous owner first, so its open transactions are resolved before the read.
    await Promise.all(partitions.map((p) => this.group.producerFor(p)));
    const remaining = this.metrics.restoreRemaining;
    const { states: restored, upTo } = await restoreChangelog(this.kafka, this.admin, this.config.topics.changelog, pending, this.config.groupId, this.decider, {
      stallMs: restoreStallMs,
      progress: (progress) => {
        for (const p of progress) remaining.set({ partition: String(p.partition) }, Number(p.end - p.position));
      },
      restored: ({ partition: p, records, correlations, offset, ms }) => {
        remaining.set({ partition: String(p) }, 0);
        this.metrics.partitionRestores.inc({ partition: String(p) });
        this.log.info({ partition: p, records, correlations, offset, ms }, "partition restored from the changelog");
      },
    });
    for (const [p, states] of restored) {
      this.states.set(p, states);
      this.blocked.set(p, new Set([...states].filter(([, s]) => this.decider.isBlocked(s)).map(([id]) => id)));
      // Restored blocked correlations are re-examined against the table as it is now.
      this.recheckedAt.delete(p);
    }
    this.metrics.restores.inc();
    this.log.info({ partitions, correlations: [...restored.values()].reduce((n, m) => n + m.size, 0), upTo }, "state restored from the changelog");
  }

  dropState(partition: number): void {
    this.states.delete(partition);
    this.blocked.delete(partition);
    this.recheckedAt.delete(partition);
  }

  dropAll(): void {
    for (const partition of [...this.states.keys()]) this.dropState(partition);
  }
}
