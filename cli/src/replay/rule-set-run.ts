/**
 * One rule set over a streamed log: the core's one fold (`foldBatch`) chunk after chunk, carrying the
 * correlation states and the capability table across chunks. An observation the rules throw on is
 * rejected as the reconciler rejects it (it dead-letters it with RECONCILER_RULES_REJECTED and goes
 * on): listed with where it came from, its correlation left as it was, and the rest still decided.
 * A rules module returning a decision that does not fit its schema stops the replay with an error
 * naming the observation (the reconciler could not encode it either): a partial result is never
 * presented as complete.
 */
import { applyCapabilityUpdates, CapabilityTable, createDecider, type Decider, foldBatch, type LedgerState, policyRead, type PolicySource, type RecordedBatch, type RuleSet, ruleSetByName, RulesFailedError, SourcedCapabilities } from "@a2a-ledger/core";
import { rulesRejectedReason } from "@a2a-ledger/kafka";
import { isKnownType, validateRecord, type Decision, type Observation } from "@a2a-ledger/schemas";
import { decisionInScope, type ReplayScope } from "./replay-scope.ts";

/** The rules could not be run on an observation: which rules, which observation, where it came from. */
export class RulesError extends Error {
  override name = "RulesError";
  constructor(readonly rulesVersion: string, readonly where: string, readonly eventId: string, reason: string) {
    super(`rules ${rulesVersion} failed on the observation at ${where} (eventId ${JSON.stringify(eventId)}): ${reason}`);
  }
}

/** An observation the rules threw on: what the reconciler would dead-letter, and where it is in the source. */
export interface Rejection {
  /** `FILE:LINE`, `FILE: byte N` or `TOPIC[PARTITION]@OFFSET`. */
  where: string;
  eventId: string;
  correlationId: string;
  /** The reason code the reconciler's dead-letter topic gives it. */
  reason: typeof rulesRejectedReason;
  /** What the rules threw. */
  detail: string;
}

const rulesRejected = rulesRejectedReason;

/** The blocked set of an event-time replay: every blocked correlation, whatever its partition. */
const allPartitions = -1;

export class RuleSetRun {
  readonly decider: Decider;
  table = new CapabilityTable();
  /** What batches in recorded order derived, by source: each batch is judged by the part its reads reach. */
  private readonly sourced = new SourcedCapabilities();
  private recordedOrder = false;
  readonly states = new Map<string, LedgerState>();
  /** Blocked correlations, by observation partition (recorded order) or all together: what each fold re-examines. */
  private readonly blocked = new Map<number, Set<string>>();
  /** Decisions in scope, in the order the fold took them. */
  readonly decisions: Decision[] = [];
  /** Observations the rules threw on, in log order. */
  readonly rejected: Rejection[] = [];
  /** Decisions of modules are checked against their schemas; the shipped rule sets' are by their own tests. */
  private readonly checkDecisions: boolean;

  constructor(readonly ruleSet: RuleSet, private readonly policy: PolicySource, private readonly scope: ReplayScope) {
    this.decider = createDecider(ruleSet);
    this.checkDecisions = ruleSetByName(ruleSet.rulesVersion) !== ruleSet;
  }

  get rulesVersion(): string {
    return this.ruleSet.rulesVersion;
  }

  /**
   * Folds a chunk; `where(i)` names the source position of `observations[i]`. With `batch` the chunk is
   * one reconciler transaction's batch, folded as it was live: against the capability table and the
   * policy versions it read, re-examining its partition's blocked correlations when it did. Chunks
   * without one after such batches (observations the reconciler has not read yet) see every snapshot.
   */
  fold(observations: readonly Observation[], where: (i: number) => string, batch?: RecordedBatch): void {
    if (batch !== undefined) this.recordedOrder = true;
    else if (this.recordedOrder) {
      this.recordedOrder = false;
      this.table = this.sourced.all();
      const all = new Set([...this.blocked.values()].flatMap((ids) => [...ids]));
      this.blocked.clear();
      this.blocked.set(allPartitions, all);
    }
    const partition = batch?.partition ?? allPartitions;
    const blocked = this.blocked.get(partition) ?? new Set<string>();
    this.blocked.set(partition, blocked);
    let outcome: ReturnType<typeof foldBatch>;
    try {
      // The run keeps only the newest state of each correlation: the fold may update them in place.
      outcome = foldBatch(
        {
          decider: this.decider,
          policy: batch === undefined ? this.policy : policyRead(this.policy, batch.policyVersions),
          capabilities: batch === undefined ? this.table : this.sourced.viewFor(batch.capabilityReads),
          stateOf: (id) => this.states.get(id),
          inPlace: true,
          blocked,
          ...(batch === undefined ? {} : { recheck: batch.recheck }),
        },
        observations,
      );
    } catch (e) {
      // A rule set can also fail outside a step (e.g. a decision of a type the catalogue does not have).
      const error = e instanceof RulesFailedError ? e.cause : (e as Error);
      throw new RulesError(this.rulesVersion, "a chunk of the log", "?", error.message);
    }
    for (const r of outcome.rejected) {
      this.rejected.push({ where: where(r.index), eventId: r.observation.eventId, correlationId: r.observation.correlationId, reason: rulesRejected, detail: r.error.message });
    }
    if (batch === undefined) applyCapabilityUpdates(this.table, outcome);
    else this.sourced.add(outcome, { partition: batch.partition, offset: batch.toOffset ?? -1 });
    for (const [id, state] of outcome.states) {
      this.states.set(id, state);
      if (this.decider.isBlocked(state)) blocked.add(id);
      else blocked.delete(id);
    }
    for (const d of outcome.decisions) {
      if (this.checkDecisions) this.check(d, observations, where);
      if (decisionInScope(this.scope, d)) this.decisions.push(d);
    }
  }

  private check(d: Decision, observations: readonly Observation[], where: (i: number) => string): void {
    const type = (d as { type?: unknown }).type;
    const issues = isKnownType("decisions", type) ? validateRecord("decisions", type, withoutType(d)) : [{ path: "type", message: `unknown decision type ${JSON.stringify(type)}` }];
    if (issues.length === 0) return;
    const cause = d.causeEventIds?.[0];
    const i = observations.findIndex((o) => o.eventId === cause);
    const first = issues[0] as { path: string; message: string };
    throw new RulesError(this.rulesVersion, i === -1 ? "an unknown observation" : where(i), cause ?? "?", `returned a malformed decision ${JSON.stringify(d.decisionId ?? null)}: ${first.path === "" ? "" : `${first.path}: `}${first.message}`);
  }
}

function withoutType(d: Decision): Record<string, unknown> {
  const { type: _type, ...rest } = d;
  return rest;
}
