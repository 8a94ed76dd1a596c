/**
 * The one fold: a batch of observations through a rule set, over per-correlation states and the
 * capability table. The reconciler runs it per transaction of an input partition, replay runs it over a
 * whole log, and both get the same decisions for the same log. Nothing given is changed: the states a
 * batch touches are copies (returned in `states`), and the capability snapshots it derives are layered
 * over `capabilities` for the rest of the batch and returned for the caller to publish and apply.
 */
import type { CapabilitySnapshot, Decision, Observation } from "@a2a-ledger/schemas";
import { type CapabilityTable, CapabilityLayer, type CapabilityView, type CardRecord } from "./capabilities.ts";
import type { Decider, LedgerState } from "./decider.ts";
import type { PolicyConfig } from "./policy.ts";
import { isPolicyHistory, policyAt, type PolicySource, type PolicyVersion } from "./policy-history.ts";
import { dueAt, expiryDecision, type RetentionPolicy, type StreamRetention } from "./retention.ts";

export interface FoldInput {
  decider: Decider;
  /**
   * The trust policy: the recorded history (each observation judged by the version in force at its
   * occurredAt, which its decisions name in `policyVersion`), or one fixed vendor list (decisions name none).
   */
  policy: PolicySource;
  /** The capability table before the batch. */
  capabilities: CapabilityView;
  /** A correlation's state before the batch; undefined for one never seen. */
  stateOf(correlationId: string): LedgerState | undefined;
  /** Blocked correlations the caller holds beyond the batch (re-examined when capabilities change). */
  blocked?: Iterable<string>;
  /** Re-examine every blocked correlation before the batch (the capability table changed since the last fold). */
  recheck?: boolean;
  /**
   * The caller hands its states over: the fold may update what `stateOf` returns in place instead of
   * copying it first (a replay that keeps only the newest state; never a caller that may have to roll back).
   */
  inPlace?: boolean;
  /**
   * Retention on the partition the batch belongs to (retention.ts): its stream time advances with each
   * observation, and the correlations it has carried past their horizon leave before that observation
   * is stepped (listed in `expired`; one without an outcome with a CorrelationExpired decision). The
   * fold updates it as it goes: a caller that may roll back rebuilds it with its states.
   */
  retention?: StreamRetention;
  /**
   * The stream time the batch's `index`-th observation is folded at, when observations were left out
   * before it (a windowed or sharded replay): the latest occurredAt of every observation of the
   * partition up to it. Its own occurredAt otherwise.
   */
  streamTimeAt?: (index: number) => number;
  /** The stream time after the batch, when observations were left out after its last one (as `streamTimeAt`). */
  streamTimeEnd?: number;
}

/** An observation the rules threw on: its correlation's state is as it was before it. */
export interface RejectedObservation {
  index: number;
  observation: Observation;
  error: Error;
}

/**
 * Where in a fold a decision was emitted: at the observation `index` of the batch (-1: the re-examination
 * before the batch), by that observation's own step (and its correlation's re-examination right after it),
 * or by the sweep re-examining every blocked correlation in id order that a capability change starts.
 * With the decision's correlation it orders the decisions of one fold as the fold emits them, whichever
 * subset of the correlations another fold of the same observations holds (a sharded replay merges by it).
 */
export interface DecisionOrigin {
  index: number;
  sweep: boolean;
}

export interface FoldOutcome {
  decisions: Decision[];
  /** Per decision, where it was emitted (`origins[i]` is that of `decisions[i]`). */
  origins: DecisionOrigin[];
  capabilityUpdates: CapabilitySnapshot[];
  cards: CardRecord[];
  /** The state after the batch of every correlation it touched. */
  states: Map<string, LedgerState>;
  /** Correlations that left the state (retention): not in `states`; the caller forgets them (a changelog tombstone). */
  expired: Set<string>;
  rejected: RejectedObservation[];
  /**
   * Observations too late to fold (retention): for a correlation not in state, older than the shorter
   * horizon at the partition's stream time — a copy of an event of a correlation that already left (it
   * would open it anew only to leave again under the same decision ids), or an event that arrived later
   * than a horizon. Not folded; the reconciler dead-letters them (RECONCILER_OBSERVATION_TOO_LATE).
   */
  late: { index: number; observation: Observation }[];
}

/**
 * Folds a batch. Whenever capabilities change (a step derived snapshots, or `recheck`), every blocked
 * correlation — the caller's and the batch's, in correlation id order — is re-examined: one that now has
 * an eligible worker gets its RedispatchCommanded right there, as in a replay of the whole log. A
 * correlation is also re-examined the moment it blocks, against the changes the table already holds from
 * after its loss, so the order in which a loss and its rescuing probe are processed does not matter,
 * and after each of its own observations that did not block it anew (the rule set says whether that can lift it).
 */
/**
 * At most this many correlations leave in one sweep, so that one transaction stays small when many are
 * due at once (a first start on a changelog from before retention); the rest leave in the next sweeps,
 * or the moment an observation or a re-examination reaches them. The same in the reconciler and replay.
 */
export const sweepLimit = 5_000;

export function foldBatch(input: FoldInput, observations: Iterable<Observation>): FoldOutcome {
  const { decider } = input;
  const history = isPolicyHistory(input.policy) ? input.policy.versions : undefined;
  const layer = new CapabilityLayer(input.capabilities);
  const ctx: { capabilities: CapabilityLayer; policy: PolicyConfig } = {
    capabilities: layer,
    policy: history === undefined ? (input.policy as PolicyConfig) : policyAt(history, Number.NEGATIVE_INFINITY),
  };
  /** The version in force at `time`, set as the context's policy (a history only). */
  const judgeAt = (time: number): PolicyVersion | undefined => {
    if (history === undefined) return undefined;
    const version = policyAt(history, time);
    ctx.policy = version;
    return version;
  };
  const out: FoldOutcome = {
    decisions: [],
    origins: [],
    capabilityUpdates: [],
    cards: [],
    states: new Map(),
    expired: new Set(),
    rejected: [],
    late: [],
  };
  const blocked = new Set(input.blocked ?? []);
  /** The state a correlation the batch has not touched yet starts from (a copy, unless handed over). */
  const opened = (id: string): LedgerState => {
    const before = out.expired.has(id) ? undefined : input.stateOf(id);
    return before === undefined ? decider.initialState() : input.inPlace === true ? before : decider.clone(before);
  };
  const working = (id: string): LedgerState => out.states.get(id) ?? opened(id);
  let index = -1;
  let sweep = false;
  const retention = input.retention;
  /** A state the fold changed: its expiry moves with its last event. */
  const touched = (id: string, state: LedgerState) => {
    if (retention === undefined) return;
    const activity = decider.activity(state);
    retention.track(id, activity === undefined ? undefined : dueAt(activity, retention.policy));
  };
  /** A correlation the stream time carried past its horizon leaves, with its decision when it had no outcome. */
  const expire = (id: string, policy: RetentionPolicy) => {
    retention?.forget(id);
    const state = out.states.get(id) ?? (out.expired.has(id) ? undefined : input.stateOf(id));
    const activity = state === undefined ? undefined : decider.activity(state);
    const decision = activity === undefined ? undefined : expiryDecision(activity, policy, decider.rulesVersion);
    if (decision !== undefined) {
      const version = judgeAt(decision.decidedAt);
      if (version !== undefined) decision.policyVersion = version.version;
      out.decisions.push(decision);
      out.origins.push({ index, sweep: true });
    }
    out.states.delete(id);
    out.expired.add(id);
    blocked.delete(id);
  };
  /** Decisions taken without an observation (a re-examination, a fallback): applied, stamped and recorded. */
  const took = (id: string, result: { state: LedgerState; decisions: readonly Decision[] }) => {
    out.states.set(id, result.state);
    touched(id, result.state);
    for (const d of result.decisions) {
      // Taken without an observation: the decision names the policy version in force at its own time.
      const version = judgeAt(d.decidedAt);
      if (version !== undefined) d.policyVersion = version.version;
      out.decisions.push(d);
      out.origins.push({ index, sweep });
    }
    if (!decider.isBlocked(result.state)) blocked.delete(id);
  };
  /**
   * A correlation the stream time carried past what is due for it: a blocked one's fallback (default/4),
   * when that is what came due, then — should its expiry have passed too — it leaves.
   */
  const reached = (id: string, policy: RetentionPolicy) => {
    const state = out.states.get(id) ?? (out.expired.has(id) ? undefined : input.stateOf(id));
    const fallbackAt = state === undefined ? null : (decider.activity(state)?.fallbackAt ?? null);
    if (state !== undefined && retention !== undefined && fallbackAt !== null && fallbackAt < retention.time) {
      const before = sweep;
      sweep = true;
      const result = decider.fallBack(ctx, working(id), fallbackAt);
      took(id, result);
      sweep = before;
      if (!retention.isDue(id)) return;
    }
    expire(id, policy);
  };
  const reexamineOne = (id: string, trigger?: Observation) => {
    if (retention?.isDue(id) === true) {
      reached(id, retention.policy);
      if (out.expired.has(id)) return;
    }
    const result = decider.reexamine(ctx, working(id), trigger);
    if (result.decisions.length === 0) return;
    took(id, result);
  };
  const reexamine = () => {
    sweep = true;
    for (const id of [...blocked].sort()) reexamineOne(id);
    sweep = false;
  };
  if (input.recheck === true) reexamine();
  for (const observation of observations) {
    index++;
    const id = observation.correlationId;
    if (retention !== undefined) {
      retention.advance(observation.occurredAt);
      if (input.streamTimeAt !== undefined) retention.advance(input.streamTimeAt(index));
      for (const gone of retention.due(sweepLimit)) reached(gone, retention.policy);
      // Past its horizon but beyond this sweep's share: it leaves (or falls back) now, before its observation.
      if (retention.isDue(id)) reached(id, retention.policy);
      if (isTooLate(observation, retention) && !out.states.has(id) && (out.expired.has(id) || !input.stateOf(id))) {
        out.late.push({ index, observation });
        continue;
      }
    }
    const known = out.states.get(id);
    const state = known ?? opened(id);
    const version = judgeAt(observation.occurredAt);
    let result;
    try {
      result = decider.step(ctx, state, observation);
    } catch (error) {
      out.rejected.push({ index, observation, error: error instanceof Error ? error : new Error(String(error)) });
      // A correlation that just left stays gone: a rejected observation opens nothing.
      if (known === undefined && !out.expired.has(id)) out.states.set(id, state);
      continue;
    }
    if (result.state !== known) out.states.set(id, result.state);
    if (out.expired.has(id)) out.expired.delete(id);
    touched(id, result.state);
    if (result.cards.length > 0 || result.capabilityUpdates.length > 0) {
      for (const c of result.cards) {
        layer.rememberCard(c);
        out.cards.push(c);
      }
      for (const s of result.capabilityUpdates) {
        layer.apply(s);
        out.capabilityUpdates.push(s);
      }
    }
    if (result.decisions.length > 0) {
      for (const d of result.decisions) {
        if (version !== undefined) d.policyVersion = version.version;
        out.decisions.push(d);
        out.origins.push({ index, sweep: false });
      }
      // Only decisions block or unblock a correlation. One that blocks (ReconciliationBlocked) is
      // re-examined at once: the table may already hold a change from after its loss that rescues it
      // (another partition's probe processed first, or a probe whose clock runs ahead), and no further
      // change may ever come to trigger it.
      if (decider.isBlocked(result.state)) {
        blocked.add(id);
        if (result.decisions.some((d) => d.type === "ReconciliationBlocked")) reexamineOne(id);
        // Still blocked by an earlier block, and the observation decided something else (a violation):
        // it is one of the correlation's own observations all the same (below).
        else reexamineOne(id, observation);
      } else blocked.delete(id);
    } else if (decider.isBlocked(result.state)) {
      // The correlation's own observation may lift its block (default/3: a lost task seen again no longer
      // stands lost, so its worker may be a target again); the rule set decides, as of this observation.
      reexamineOne(id, observation);
    }
    if (result.capabilityUpdates.length > 0 && blocked.size > 0) reexamine();
  }
  if (retention !== undefined) {
    // The batch's end: what its last observations carried past the horizon leaves in this batch too.
    if (input.streamTimeEnd !== undefined) retention.advance(input.streamTimeEnd);
    for (const gone of retention.due(sweepLimit)) reached(gone, retention.policy);
  }
  return out;
}

/**
 * Whether an observation arrives too late to open a correlation: older than the shorter horizon at the
 * stream time. Every copy of an event of a correlation that left is (its last event was at least that old
 * when it left), so a redelivery after an eviction never decides again. Cards and probe results are
 * never too late: they teach the capability table (which orders them by their own time), not their
 * correlation, whose state holds no task.
 */
function isTooLate(observation: Observation, retention: StreamRetention): boolean {
  if (observation.type === "AgentCardObserved" || observation.type === "ProbeCompleted") return false;
  const { finishedMs, staleMs } = retention.policy;
  return observation.occurredAt + Math.min(finishedMs, staleMs) < retention.time;
}

/** Applies what a fold derived to the table later folds read (after publishing it). */
export function applyCapabilityUpdates(
  table: CapabilityTable,
  derived: { capabilityUpdates: readonly CapabilitySnapshot[]; cards: readonly CardRecord[] },
): void {
  for (const c of derived.cards) table.rememberCard(c);
  for (const s of derived.capabilityUpdates) table.apply(s);
}
