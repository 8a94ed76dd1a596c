/**
 * Partitions without new observations still re-examine their blocked correlations when another
 * partition's probe changed the capability table: one transaction of decisions and changelog, no offsets.
 *
 * A partition's blocked set is known from its state: an assigned partition without state (not yet
 * restored since its assignment) is restored here first, so its blocked correlations are re-examined
 * without waiting for its next observation.
 */
import type { Logger } from "@a2a-ledger/logging";
import type { CapabilityFollower } from "./capability-follower.ts";
import type { GroupMembership } from "./group-membership.ts";
import type { PartitionStore } from "./restore.ts";
import type { PartitionTransactions } from "./transaction.ts";

export interface ReExaminationParts {
  readonly capabilities: CapabilityFollower;
  readonly group: GroupMembership;
  readonly store: PartitionStore;
  readonly transactions: PartitionTransactions;
  readonly log: Logger;
  /** False once the instance is stopping. */
  isRunning(): boolean;
}

export async function recheckIdle({ capabilities, group, store, transactions, log, isRunning }: ReExaminationParts): Promise<void> {
  if (!isRunning()) return;
  const version = capabilities.version;
  const membership = group.membership;
  for (const partition of group.assigned) {
    if (!isRunning() || group.membership !== membership) return;
    if (!store.holds(partition)) {
      try {
        await store.statesOf(partition);
      } catch (error) {
        log.error({ err: error, partition }, "restore for the re-examination failed; retried on the next tick");
        return;
      }
    }
    if ((store.blocked.get(partition)?.size ?? 0) === 0 || store.recheckedAt.get(partition) === version) continue;
    await group.exclusive(partition, async () => {
      // Only the owner produces: the partition may have moved while this waited for the lock.
      // And nothing starts once the instance is stopping.
      if (!isRunning() || group.membership !== membership || !group.assigned.has(partition)) return;
      await transactions.transact(partition, []);
    }).catch((error: unknown) => log.error({ err: error, partition }, "re-examination failed; retried on the next tick"));
  }
}
