/**
 * One rule set over a streamed log: the core's one fold chunk after chunk (`BatchOrderFold`: by time, or batch by
 * batch as the reconciler recorded them), carrying the
 * correlation states and the capability table across chunks. An observation the rules throw on is
 * rejected as the reconciler rejects it (it dead-letters it with RECONCILER_RULES_REJECTED and goes
 * on): listed with where it came from, its correlation left as it was, and the rest still decided.
 * A rules module returning a decision that does not fit its schema stops the replay with an error
 * naming the observation (the reconciler could not encode it either): a partial result is never
 * presented as complete.
 */
import {
  BatchOrderFold,
  createDecider,
  type Decider,
  type PolicySource,
  type RecordedBatch,
  type RetentionPolicy,
  type RuleSet,
  ruleSetByName,
  RulesFailedError,
} from "@a2a-ledger/core";
import { rulesRejectedReason } from "@a2a-ledger/kafka";
import { isKnownType, validateRecord, type Decision, type Observation } from "@a2a-ledger/schemas";
import { decisionInScope, type ReplayScope } from "./replay-scope.ts";

/** The rules could not be run on an observation: which rules, which observation, where it came from. */
export class RulesError extends Error {
  override name = "RulesError";
  constructor(
    readonly rulesVersion: string,
    readonly where: string,
    readonly eventId: string,
    reason: string,
  ) {
    super(
      `rules ${rulesVersion} failed on the observation at ${where} (eventId ${JSON.stringify(eventId)}): ${reason}`,
    );
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

/**
 * Where a decision or rejection stands in the one-shard output: the chunk, the observation's position in
 * it (-1: the re-examination before the chunk), whether a re-examination sweep emitted it (after the
 * observation's own step) and then, in a sweep, its correlation (the sweep's order). Decisions with
 * the same key are one correlation's, so of one shard, in the order that shard emitted them.
 */
export type EmissionKey = readonly [chunk: number, position: number, sweep: -1 | 0 | 1, correlationId: string];

/** Where a chunk's observations are: its number in the source and each one's position in it. */
export interface ChunkAt {
  chunk: number;
  position(i: number): number;
  /** Where the one-shard replay emits a CorrelationExpired decided at `decidedAt` (see replay-run.ts). */
  expiryPosition?(decidedAt: number): number;
}

export class RuleSetRun {
  readonly decider: Decider;
  private readonly folder: BatchOrderFold;
  /** Decisions in scope, in the order the fold took them. */
  readonly decisions: Decision[] = [];
  /** Observations the rules threw on, in log order. */
  readonly rejected: Rejection[] = [];
  /** Decisions of modules are checked against their schemas; the shipped rule sets' are by their own tests. */
  private readonly checkDecisions: boolean;
  /** With `owns` (a shard): `keys[i]` and `rejectedKeys[i]` place `decisions[i]` and `rejected[i]` in the one-shard output. */
  readonly keys: EmissionKey[] = [];
  readonly rejectedKeys: EmissionKey[] = [];

  /** `owns`: a shard's run keeps the decisions and rejections of the correlations it owns only, with their keys. */
  constructor(
    readonly ruleSet: RuleSet,
    policy: PolicySource,
    private readonly scope: ReplayScope,
    private readonly owns?: (correlationId: string) => boolean,
    retention?: RetentionPolicy,
  ) {
    this.decider = createDecider(ruleSet);
    this.folder = new BatchOrderFold(this.decider, policy, retention);
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
  fold(
    observations: readonly Observation[],
    where: (i: number) => string,
    batch?: RecordedBatch,
    at?: ChunkAt,
    streamTime?: { at(i: number): number; end: number },
  ): void {
    let outcome: ReturnType<BatchOrderFold["fold"]>;
    try {
      outcome = this.folder.fold(observations, batch, streamTime);
    } catch (e) {
      // A rule set can also fail outside a step (e.g. a decision of a type the catalogue does not have).
      const error = e instanceof RulesFailedError ? e.cause : (e as Error);
      throw new RulesError(this.rulesVersion, "a chunk of the log", "?", error.message);
    }
    const owns = this.owns;
    if (owns !== undefined) {
      this.keep(outcome, observations, where, owns, at ?? { chunk: 0, position: (i) => i });
      return;
    }
    for (const r of outcome.rejected) {
      this.rejected.push({
        where: where(r.index),
        eventId: r.observation.eventId,
        correlationId: r.observation.correlationId,
        reason: rulesRejected,
        detail: r.error.message,
      });
    }
    for (const d of outcome.decisions) {
      if (this.checkDecisions) this.check(d, observations, where);
      if (decisionInScope(this.scope, d)) this.decisions.push(d);
    }
  }

  private keep(
    outcome: ReturnType<BatchOrderFold["fold"]>,
    observations: readonly Observation[],
    where: (i: number) => string,
    owns: (correlationId: string) => boolean,
    at: ChunkAt,
  ): void {
    for (const r of outcome.rejected) {
      if (!owns(r.observation.correlationId)) continue;
      this.rejected.push({
        where: where(r.index),
        eventId: r.observation.eventId,
        correlationId: r.observation.correlationId,
        reason: rulesRejected,
        detail: r.error.message,
      });
      this.rejectedKeys.push([at.chunk, at.position(r.index), 0, ""]);
    }
    outcome.decisions.forEach((d, i) => {
      if (!owns(d.correlationId)) return;
      if (this.checkDecisions) this.check(d, observations, where);
      if (!decisionInScope(this.scope, d)) return;
      const origin = outcome.origins[i] as { index: number; sweep: boolean };
      this.decisions.push(d);
      if (d.type === "CorrelationExpired" && at.expiryPosition !== undefined) {
        this.keys.push([at.chunk, at.expiryPosition(d.decidedAt), -1, d.correlationId]);
        return;
      }
      this.keys.push([
        at.chunk,
        origin.index === -1 ? -1 : at.position(origin.index),
        origin.sweep ? 1 : 0,
        origin.sweep ? d.correlationId : "",
      ]);
    });
  }

  private check(d: Decision, observations: readonly Observation[], where: (i: number) => string): void {
    const type = (d as { type?: unknown }).type;
    const issues = isKnownType("decisions", type)
      ? validateRecord("decisions", type, withoutType(d))
      : [{ path: "type", message: `unknown decision type ${JSON.stringify(type)}` }];
    if (issues.length === 0) return;
    const cause = d.causeEventIds?.[0];
    const i = observations.findIndex((o) => o.eventId === cause);
    const first = issues[0] as { path: string; message: string };
    throw new RulesError(
      this.rulesVersion,
      i === -1 ? "an unknown observation" : where(i),
      cause ?? "?",
      `returned a malformed decision ${JSON.stringify(d.decisionId ?? null)}: ${first.path === "" ? "" : `${first.path}: `}${first.message}`,
    );
  }
}

function withoutType(d: Decision): Record<string, unknown> {
  const { type: _type, ...rest } = d;
  return rest;
}
