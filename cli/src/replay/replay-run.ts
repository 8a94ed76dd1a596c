/**
 * Drives a source through one or more rule sets in one pass: every observation in scope, and the ones
 * outside it that shape the capability table (CapabilityScope: cards, probes, lost canaries), are
 * folded in log order by every rule set. So a windowed replay (`--since`) starts from the capability
 * table the log built before the window; a correlation that started before the window is judged
 * without its earlier observations (`startedBefore` names those). A shard of a sharded replay folds
 * only its own correlations and the shared ones of those in scope (replay-shard.ts).
 *
 * An exact partial replay (`whole`, from a first pass's counts) folds named correlations whole, in and
 * out of scope: the correlations in scope and the shared ones (a card fetch, a probe, a TaskNotFound: every
 * step that can change the capability table under the shipped rule sets, a lost real task's revocation
 * under default/3 and default/4 and a canary's re-observation under default/4 included). Its decisions
 * in scope are then the whole-log replay's.
 */
import { CapabilityScope } from "@a2a-ledger/core";
import type { Observation } from "@a2a-ledger/schemas";
import type { ObservationSource } from "../sources/observation-source.ts";
import { observationInScope, type ReplayScope } from "./replay-scope.ts";
import { ownedBy, type ReplayShard, sharesCapabilities } from "./replay-shard.ts";
import type { ChunkAt, RuleSetRun } from "./rule-set-run.ts";

export interface ReplayProgress {
  /** Progress units of the source consumed. */
  done: number;
  total: number;
  /** Observations read so far. */
  observations: number;
}

export interface ReplayCounts {
  /** Observations read from the source. */
  read: number;
  /** Observations in scope (the replay's events). */
  events: number;
  /** Distinct correlations of the observations in scope. */
  correlations: number;
  /** Correlations in scope that also have observations before the window. */
  startedBefore: ReadonlySet<string>;
  /** Correlations in the source with a card fetch, a probe or a TaskNotFound: what every shard folds whole. */
  shared: ReadonlySet<string>;
  /** The correlations of the observations in scope. */
  scoped: ReadonlySet<string>;
}

export async function runReplay(
  source: ObservationSource,
  runs: readonly RuleSetRun[],
  scope: ReplayScope,
  onProgress?: (p: ReplayProgress) => void,
  shard?: ReplayShard,
  whole?: ReadonlySet<string>,
): Promise<ReplayCounts> {
  const capabilityScope = new CapabilityScope();
  const correlations = new Set<string>();
  const before = new Set<string>();
  const shared = new Set<string>();
  const folds = (id: string) => shard === undefined || shard.shared.has(id) || ownedBy(shard, id);
  let read = 0;
  let events = 0;
  let chunkNumber = 0;
  /** Observations that shape the capability table: a one-shard replay folds them in and out of scope. */
  const capabilityShapes = new WeakSet<Observation>();
  for await (const chunk of source.chunks()) {
    const folded: Observation[] = [];
    const index: number[] = [];
    const all = chunk.observations;
    for (let i = 0; i < all.length; i++) {
      const o = all[i] as Observation;
      const shapes = capabilityScope.shapesCapabilities(o);
      if (shapes) capabilityShapes.add(o);
      const inScope = observationInScope(scope, o);
      if (sharesCapabilities(o)) shared.add(o.correlationId);
      if (inScope) {
        events++;
        correlations.add(o.correlationId);
      } else if (scope.since !== undefined && o.occurredAt < scope.since) before.add(o.correlationId);
      const taken = whole === undefined ? inScope && folds(o.correlationId) : whole.has(o.correlationId);
      if (taken || shapes) {
        folded.push(o);
        index.push(i);
      }
    }
    read += all.length;
    const where = (i: number) => chunk.where(index[i] as number);
    const streamTime = folded.length === all.length ? undefined : streamTimes(all, index);
    const at: ChunkAt = {
      chunk: chunkNumber++,
      position: (i: number) => index[i] as number,
      expiryPosition: (decidedAt) => expiryPosition(all, scope, capabilityShapes, decidedAt),
    };
    for (const run of runs) run.fold(folded, where, chunk.batch, at, streamTime);
    onProgress?.({ done: chunk.progress, total: source.total, observations: read });
  }
  const startedBefore = new Set([...before].filter((id) => correlations.has(id)));
  return { read, events, correlations: correlations.size, startedBefore, shared, scoped: correlations };
}

/**
 * The stream time (retention) at each folded observation and after the chunk, counting the observations
 * left out of the fold: a windowed or sharded replay evicts when the reconciler did.
 */
function streamTimes(all: readonly Observation[], index: readonly number[]): { at(i: number): number; end: number } {
  const running: number[] = [];
  let max = Number.NEGATIVE_INFINITY;
  for (const o of all) running.push((max = Math.max(max, o.occurredAt)));
  return { at: (i) => running[index[i] as number] as number, end: max };
}

/**
 * Where a one-shard replay of the chunk lets a correlation expiring at `decidedAt` go: before the first
 * observation it folds once the stream time has passed that instant, or at the chunk's end (its length).
 * A shard emits the same decision, maybe at another of its own observations; merged by this position,
 * the shards' output is the one-shard output.
 */
function expiryPosition(
  all: readonly Observation[],
  scope: ReplayScope,
  shapes: WeakSet<Observation>,
  decidedAt: number,
): number {
  let max = Number.NEGATIVE_INFINITY;
  let passed = false;
  for (let j = 0; j < all.length; j++) {
    const o = all[j] as Observation;
    max = Math.max(max, o.occurredAt);
    if (max > decidedAt) passed = true;
    if (passed && (observationInScope(scope, o) || shapes.has(o))) return j;
  }
  return all.length;
}
