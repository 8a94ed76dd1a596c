/**
 * One partition's ledger: the states of its correlations, which of them are blocked, the capability
 * table version the blocked ones were last re-examined at, and its retention (stream time and expiries).
 * It is the one home of the blocked lifecycle: the reconciler (one per assigned partition),
 * `BatchOrderFold` (one per recorded partition, or every partition together) and replay (the whole log)
 * fold through it, and none of them keeps a blocked set of its own. The re-examination triggers (every
 * blocked correlation when the table changed, one the moment it blocks, one after its own observation)
 * and the stamping of `policyVersion` are the fold's (fold.ts), run over what this holds.
 *
 * Two ways to fold:
 * - `fold` applies the outcome at once (replay: nothing rolls back; states are updated in place);
 * - `foldPending` changes no state until `commit` (the reconciler's transaction). The fold has advanced
 *   the retention all the same, so a pending fold that is never committed leaves the ledger unusable:
 *   the caller drops it and restores the partition, and any further use throws.
 */
import type { Observation } from "@a2a-ledger/schemas";
import type { CapabilityView } from "./capabilities.ts";
import type { Decider, LedgerState } from "./decider.ts";
import { foldBatch, type FoldOutcome } from "./fold.ts";
import type { PolicySource } from "./policy-history.ts";
import { dueAt, type RetentionPolicy, StreamRetention } from "./retention.ts";

export interface LedgerFoldInput {
  /** The trust policy (see FoldInput.policy). */
  policy: PolicySource;
  /** The capability table the batch is judged by. */
  capabilities: CapabilityView;
  /** Re-examine every blocked correlation before the batch (see `recheckDue`, or a recorded batch's flag). */
  recheck?: boolean;
  /** The stream time at each observation and after the last, when observations were left out (see FoldInput). */
  streamTime?: { at(index: number): number; end: number };
  /** A correlation's state held by another ledger (a by-time ledger's, before a recorded batch): taken over once folded. */
  elsewhere?: (correlationId: string) => LedgerState | undefined;
}

/**
 * A fold's outcome. `states` holds only the correlations the batch advanced (an observation folded or a
 * decision taken): one whose every observation was rejected or too late keeps the state it had, live and
 * in replay alike.
 */
export type LedgerFold = FoldOutcome;

export class PartitionLedger {
  private readonly states = new Map<string, LedgerState>();
  private readonly blocked = new Set<string>();
  /** The table version the blocked correlations were last re-examined at (undefined: never since the states were made). */
  private recheckedAt: number | undefined;
  private retention: StreamRetention | undefined;
  /** A pending fold not yet committed, or one dropped: the ledger may not fold again. */
  private pending: LedgerFold | "spoiled" | undefined;

  /**
   * A ledger over `states` (restored, or none), whose blocked set is what they say. With a retention
   * policy, each state's expiry is indexed at `streamTime` (the one its partition's last commit recorded);
   * without one, the latest last event among the states stands for it.
   */
  constructor(
    private readonly decider: Decider,
    options: {
      states?: Iterable<readonly [string, LedgerState]>;
      retention?: RetentionPolicy;
      /** The stream time; null: none yet, whatever the states' last events (the first observation sets it). */
      streamTime?: number | null;
    } = {},
  ) {
    for (const [id, state] of options.states ?? []) {
      this.states.set(id, state);
      if (decider.isBlocked(state)) this.blocked.add(id);
    }
    if (options.retention !== undefined) this.retention = this.indexed(options.retention, options.streamTime);
  }

  /** Every correlation of several ledgers in one (BatchOrderFold past the recorded batches), at their latest stream time. */
  static merged(decider: Decider, ledgers: Iterable<PartitionLedger>, retention?: RetentionPolicy): PartitionLedger {
    const all = [...ledgers];
    for (const l of all) l.usable();
    const times = all.map((l) => l.retention?.time).filter((t): t is number => t !== undefined && Number.isFinite(t));
    return new PartitionLedger(decider, {
      states: all.flatMap((l) => [...l.states]),
      ...(retention === undefined ? {} : { retention }),
      streamTime: times.length === 0 ? null : Math.max(...times),
    });
  }

  /** Correlations another ledger took over (see LedgerFoldInput.elsewhere): this one holds them no more. */
  release(correlationIds: Iterable<string>): void {
    this.usable();
    for (const id of correlationIds) {
      if (!this.states.delete(id)) continue;
      this.blocked.delete(id);
      this.retention?.forget(id);
    }
  }

  stateOf(correlationId: string): LedgerState | undefined {
    return this.states.get(correlationId);
  }

  /** Live correlations held. */
  get size(): number {
    return this.states.size;
  }

  /** Every correlation's state (a snapshot at a clean stop). */
  entries(): IterableIterator<[string, LedgerState]> {
    return this.states.entries();
  }

  /** The partition's stream time (retention); undefined without retention or before any event. */
  get streamTime(): number | undefined {
    const time = this.retention?.time;
    return time === undefined || !Number.isFinite(time) ? undefined : time;
  }

  /** The retention evicted by (undefined: every correlation is kept). */
  get retentionPolicy(): RetentionPolicy | undefined {
    return this.retention?.policy;
  }

  /**
   * Evict by `policy` from now on (a recorded batch names the retention its reconciler had): the expiries
   * are indexed anew when it differs, at the stream time reached; undefined stops evicting.
   */
  retainBy(policy: RetentionPolicy | undefined): void {
    this.usable();
    const known = this.retention;
    if (policy === undefined) {
      this.retention = undefined;
      return;
    }
    if (known !== undefined && known.policy.finishedMs === policy.finishedMs && known.policy.staleMs === policy.staleMs)
      return;
    this.retention = this.indexed(policy, known?.time, known === undefined ? undefined : known.ids());
  }

  /** How many correlations are blocked. */
  get blockedCount(): number {
    return this.blocked.size;
  }

  /** Whether blocked correlations wait for a look at the table of `tableVersion` (they were last examined at another). */
  recheckDue(tableVersion: number): boolean {
    return this.blocked.size > 0 && this.recheckedAt !== tableVersion;
  }

  /** The blocked correlations were examined against the table of `tableVersion` (a fold that changed nothing to commit). */
  markRechecked(tableVersion: number): void {
    this.recheckedAt = tableVersion;
  }

  /** Folds a batch and applies its outcome at once, updating the states in place. */
  fold(input: LedgerFoldInput, observations: Iterable<Observation>): LedgerFold {
    const outcome = this.run(input, observations, true);
    this.apply(outcome);
    return outcome;
  }

  /** Folds a batch and changes no state until `commit` (see the module comment). */
  foldPending(input: LedgerFoldInput, observations: Iterable<Observation>): LedgerFold {
    const outcome = this.run(input, observations, false);
    this.pending = outcome;
    return outcome;
  }

  /** The pending fold was committed: its states, expiries and blocked correlations apply; examined at `tableVersion`. */
  commit(outcome: LedgerFold, tableVersion?: number): void {
    if (this.pending !== outcome) throw new Error("commit of a fold that is not this ledger's pending one");
    this.pending = undefined;
    this.apply(outcome);
    if (tableVersion !== undefined) this.recheckedAt = tableVersion;
  }

  /** The pending fold will never be committed: the ledger is dropped (its retention has moved on). */
  discard(): void {
    this.pending = "spoiled";
  }

  private usable(): void {
    if (this.pending === "spoiled") throw new Error("this partition ledger was dropped: restore the partition");
    if (this.pending !== undefined) throw new Error("this partition ledger has a fold pending: commit it first");
  }

  private run(input: LedgerFoldInput, observations: Iterable<Observation>, inPlace: boolean): LedgerFold {
    this.usable();
    const elsewhere = input.elsewhere;
    /** Observations per correlation in this batch, to tell which ones only had observations not folded. */
    const count = new Map<string, number>();
    const counted = function* () {
      for (const o of observations) {
        count.set(o.correlationId, (count.get(o.correlationId) ?? 0) + 1);
        yield o;
      }
    };
    const outcome = foldBatch(
      {
        decider: this.decider,
        policy: input.policy,
        capabilities: input.capabilities,
        stateOf: elsewhere === undefined ? (id) => this.states.get(id) : (id) => this.states.get(id) ?? elsewhere(id),
        inPlace,
        blocked: this.blocked,
        recheck: input.recheck === true,
        ...(this.retention === undefined ? {} : { retention: this.retention }),
        ...(input.streamTime === undefined
          ? {}
          : { streamTimeAt: input.streamTime.at, streamTimeEnd: input.streamTime.end }),
      },
      counted(),
    );
    // A correlation whose every observation here was rejected or too late, and that no decision touched,
    // keeps the state it had (none, for one never seen): nothing of it is written or kept.
    for (const { observation } of [...outcome.rejected, ...outcome.late]) {
      const id = observation.correlationId;
      count.set(id, (count.get(id) ?? 0) - 1);
    }
    const decided = new Set(outcome.decisions.map((d) => d.correlationId));
    for (const id of outcome.states.keys())
      if ((count.get(id) ?? 0) <= 0 && !decided.has(id)) outcome.states.delete(id);
    return outcome;
  }

  private apply(outcome: LedgerFold): void {
    for (const [id, state] of outcome.states) {
      this.states.set(id, state);
      if (this.decider.isBlocked(state)) this.blocked.add(id);
      else this.blocked.delete(id);
    }
    for (const id of outcome.expired) {
      this.states.delete(id);
      this.blocked.delete(id);
    }
  }

  /** The states' expiries under `policy`, at `streamTime` (undefined: the latest last event among them; null: none). */
  private indexed(
    policy: RetentionPolicy,
    streamTime: number | null | undefined,
    ids?: Iterable<string>,
  ): StreamRetention {
    const retention = new StreamRetention(policy);
    if (streamTime !== undefined && streamTime !== null) retention.advance(streamTime);
    for (const id of ids ?? this.states.keys()) {
      const state = this.states.get(id);
      const activity = state === undefined ? undefined : this.decider.activity(state);
      if (activity === undefined) continue;
      retention.track(id, dueAt(activity, policy));
      if (streamTime === undefined) retention.advance(activity.lastEventAt);
    }
    return retention;
  }
}
