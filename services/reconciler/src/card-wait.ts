/**
 * A probe result waits for the card it names. Cards and probe results of one worker may sit on different
 * partitions (an orchestrator's `card:<worker>`, another prober's correlation), and a probe folded before
 * its card verifies nothing: `derive` applies a probe only to the card in force. So a batch takes its
 * observations up to the first ProbeCompleted whose card the capability table does not know yet (no
 * snapshot of that worker with that hash, and no card of it earlier in the batch or later in it, where
 * waiting cannot help); the probe and everything after it on that partition wait, not decided and not
 * committed, and are fetched again after a pause — by then the card's partition has usually folded it.
 *
 * Only a probe that occurred in the last five minutes waits (`probeCardWaitMaxAgeMs`): older ones are
 * history read again. The wait is bounded: a probe held for `probeCardWaitMs` (wall time) is taken as it is, and verifies
 * nothing, as before; that is logged and counted. Either way the batch records (a2a.reconciler.batches.v1)
 * say what each batch folded and which snapshots it read, so `replay --kafka` in recorded order folds the
 * probe where live folded it, against the same table, and decides alike. The dispatcher's own probes
 * never wait: it records the card it fetched under the probe's correlation just before the probe.
 */
import type { CapabilityView } from "@a2a-ledger/core";
import type { Logger } from "@a2a-ledger/logging";
import type { BatchItem } from "./batch.ts";

/** How long a probe waits for its card before it is folded without it. */
export const probeCardWaitMs = 10_000;
/**
 * A probe that occurred longer ago than this (by the reconciler's clock) is history read again (a new
 * group, a reset offset): its card may be long compacted away, and it never waits.
 */
export const probeCardWaitMaxAgeMs = 5 * 60_000;

type Probe = { workerId: string; cardHash: string };

const sameCard = (item: BatchItem, probe: Probe): boolean =>
  "observation" in item &&
  item.observation.type === "AgentCardObserved" &&
  item.observation.workerId === probe.workerId &&
  item.observation.cardHash === probe.cardHash;

/** Whether the table holds a snapshot of the worker's card with that hash (in force or not). */
function knows(table: CapabilityView, probe: Probe): boolean {
  for (const s of table.historyOf(probe.workerId)) if (s.cardHash === probe.cardHash) return true;
  return false;
}

/**
 * The index of the first probe in `items` (from `from` on) that should wait for its card, or
 * `items.length` when none should: a recent probe whose card is neither in the table nor in the batch.
 */
export function firstProbeAwaitingCard(
  items: readonly BatchItem[],
  table: CapabilityView,
  now: number,
  from = 0,
): number {
  for (let i = from; i < items.length; i++) {
    const item = items[i] as BatchItem;
    if (!("observation" in item) || item.observation.type !== "ProbeCompleted") continue;
    const probe = item.observation;
    if (probe.occurredAt < now - probeCardWaitMaxAgeMs) continue;
    if (knows(table, probe) || items.some((other) => sameCard(other, probe))) continue;
    return i;
  }
  return items.length;
}

export type CardWaitOutcome = "waiting" | "expired";

/** The probes each partition holds, with when they began to wait. */
export class ProbeCardWait {
  private readonly since = new Map<number, { offset: string; at: number }>();

  constructor(
    private readonly log: Logger,
    private readonly onOutcome: (outcome: CardWaitOutcome) => void = () => undefined,
    private readonly waitMs = probeCardWaitMs,
  ) {}

  /**
   * How many of `items` a batch of `partition` takes: all, or those before the first probe whose card
   * is unknown — unless that probe has waited its bound already, then all of them.
   */
  take(partition: number, items: readonly BatchItem[], table: CapabilityView, now = Date.now()): number {
    let index = firstProbeAwaitingCard(items, table, now);
    const held = this.since.get(partition);
    if (held !== undefined && index < items.length && (items[index] as BatchItem).offset === held.offset) {
      if (now - held.at < this.waitMs) return index;
      this.expired(partition, items[index] as BatchItem);
      index = firstProbeAwaitingCard(items, table, now, index + 1);
    }
    if (index === items.length) {
      this.since.delete(partition);
      return index;
    }
    this.since.set(partition, { offset: (items[index] as BatchItem).offset, at: now });
    this.onOutcome("waiting");
    return index;
  }

  private expired(partition: number, item: BatchItem): void {
    this.onOutcome("expired");
    const probe = "observation" in item ? item.observation : undefined;
    if (probe?.type !== "ProbeCompleted") return;
    this.log.warn(
      {
        partition,
        offset: item.offset,
        eventId: probe.eventId,
        workerId: probe.workerId,
        cardHash: probe.cardHash,
      },
      `a probe result waited ${this.waitMs / 1000} s for the card it names and is folded without it: it verifies nothing (post the card first, or record it under the probe's correlation)`,
    );
  }

  /** A rebalance: the partitions may move, and a probe that waits again waits anew. */
  clear(): void {
    this.since.clear();
  }
}
