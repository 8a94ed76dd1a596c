/**
 * State spans per attempt and observer, from the state observations of one correlation: each span
 * runs from a state change seen by one observer to that observer's next change (open at the end).
 * Repeated sightings of the same state extend a span instead of starting one, so a task with
 * thousands of polls still draws as a handful of spans. Indeterminate periods come from the
 * reconciler's decisions: from the TaskIndeterminate to the next attempt's dispatch, a
 * reconciliation, a failure, or the expiry that ended the reconciler's watch.
 */

export interface StateSighting {
  attempt: number | null;
  observer: string;
  serverTaskId: string | null;
  state: string;
  at: number;
  eventId: string;
}

export interface Span {
  state: string;
  serverTaskId: string | null;
  from: number;
  /** When the observer saw the next state; null while it is the latest. */
  to: number | null;
  /** The observation that opened the span. */
  eventId: string;
  sightings: number;
}

export interface ObserverLane {
  observer: string;
  spans: Span[];
}

/** Lanes per attempt (key: attempt number), observers in order of first sighting. Sightings must be in time order. */
export function spansByAttempt(sightings: readonly StateSighting[]): Map<number, ObserverLane[]> {
  const lanes = new Map<number, Map<string, Span[]>>();
  for (const s of sightings) {
    const attempt = s.attempt ?? 0;
    const byObserver = lanes.get(attempt) ?? (lanes.set(attempt, new Map()).get(attempt) as Map<string, Span[]>);
    const spans = byObserver.get(s.observer) ?? (byObserver.set(s.observer, []).get(s.observer) as Span[]);
    const open = spans[spans.length - 1];
    if (open !== undefined && open.state === s.state && open.serverTaskId === s.serverTaskId) {
      open.sightings += 1;
      continue;
    }
    if (open !== undefined) open.to = s.at;
    spans.push({
      state: s.state,
      serverTaskId: s.serverTaskId,
      from: s.at,
      to: null,
      eventId: s.eventId,
      sightings: 1,
    });
  }
  const out = new Map<number, ObserverLane[]>();
  for (const [attempt, byObserver] of lanes)
    out.set(
      attempt,
      [...byObserver].map(([observer, spans]) => ({ observer, spans })),
    );
  return out;
}

export interface DecisionMark {
  type: string;
  decisionId: string;
  at: number;
  attempt: number | null;
  serverTaskId: string | null;
  state: string | null;
}

export interface IndeterminatePeriod {
  attempt: number | null;
  serverTaskId: string | null;
  lastState: string | null;
  from: number;
  /** null while the task still waits. */
  to: number | null;
  decisionId: string;
  /** What ended it: a later attempt's dispatch, TaskReconciled, TaskFailed or CorrelationExpired. */
  endedBy: string | null;
}

/** Decisions that end an indeterminate period: an outcome, or the reconciler letting go of the correlation. */
const periodEnds = new Set(["TaskReconciled", "TaskFailed", "CorrelationExpired"]);

export function indeterminatePeriods(
  decisions: readonly DecisionMark[],
  dispatches: readonly { attempt: number; at: number | null }[],
): IndeterminatePeriod[] {
  const periods: IndeterminatePeriod[] = [];
  for (const d of decisions) {
    if (d.type !== "TaskIndeterminate") continue;
    const ends: { at: number; by: string }[] = [];
    for (const a of dispatches)
      if (a.at !== null && a.at >= d.at && (d.attempt === null || a.attempt > d.attempt))
        ends.push({ at: a.at, by: `attempt ${a.attempt} dispatched` });
    for (const e of decisions) if (periodEnds.has(e.type) && e.at >= d.at) ends.push({ at: e.at, by: e.type });
    ends.sort((a, b) => a.at - b.at);
    const end = ends[0];
    periods.push({
      attempt: d.attempt,
      serverTaskId: d.serverTaskId,
      lastState: d.state,
      from: d.at,
      to: end?.at ?? null,
      decisionId: d.decisionId,
      endedBy: end?.by ?? null,
    });
  }
  return periods;
}
