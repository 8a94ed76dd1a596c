/**
 * Partitions without new observations still re-examine their blocked correlations when another
 * partition's probe changed the capability table: one transaction of decisions and changelog, no offsets.
 *
 * A partition's blocked set is known from its state: an assigned partition without state (not yet
 * restored since its assignment, or dropped after a failed transaction) is restored here first, so its
 * blocked correlations are re-examined without waiting for its next observation. A failed transaction
 * leaves no producer to commit with until a fresh assignment (only a fresh assignment initialises one),
 * and an idle partition brings no batch that would make the consumer rejoin: the re-examination asks for
 * the rejoin itself, and the next tick restores the partition and re-examines it.
 */
import type { Logger } from "@a2a-ledger/logging";
import type { CapabilityFollower } from "./capability-follower.ts";
import { RejoinGroupError } from "./errors.ts";
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
  /** Makes the consumer join its group afresh (a fresh assignment), after `error`. */
  rejoin(error: RejoinGroupError): void;
}

export async function recheckIdle({
  capabilities,
  group,
  store,
  transactions,
  log,
  isRunning,
  rejoin,
}: ReExaminationParts): Promise<void> {
  if (!isRunning()) return;
  const version = capabilities.version;
  const membership = group.membership;
  /** Logs a failure; true when the tick ends here (the consumer rejoins). */
  const failed = (error: unknown, partition: number, step: string): boolean => {
    if (error instanceof RejoinGroupError) {
      log.error(
        { err: error, partition, step },
        "re-examination failed; the consumer rejoins its group, and the partition is restored and re-examined after the assignment",
      );
      if (isRunning()) rejoin(error);
      return true;
    }
    log.error({ err: error, partition, step }, "re-examination failed; retried on the next tick");
    return false;
  };
  for (const partition of group.assigned) {
    if (!isRunning() || group.membership !== membership) return;
    if (!store.holds(partition)) {
      // After a failed transaction no producer may be initialised before a fresh assignment (a batch's
      // failure makes kafkajs rejoin, an idle one's asks for the rejoin below): the restore waits for it.
      if (!group.mayInitialise) continue;
      try {
        await store.ledgerOf(partition);
      } catch (error) {
        if (failed(error, partition, "restore")) return;
        continue;
      }
    }
    if (store.heldLedger(partition)?.recheckDue(version) !== true) continue;
    const outcome = await group
      .exclusive(partition, async () => {
        // Only the owner produces: the partition may have moved while this waited for the lock.
        // And nothing starts once the instance is stopping.
        if (!isRunning() || group.membership !== membership || !group.assigned.has(partition)) return;
        await transactions.transact(partition, []);
      })
      .then(
        () => undefined,
        (error: unknown) => error,
      );
    if (outcome !== undefined && failed(outcome, partition, "transaction")) return;
  }
}
