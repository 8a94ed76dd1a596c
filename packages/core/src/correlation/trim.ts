/**
 * Bounded state: when a collection of a correlation grows past its limit (`limits`), the oldest entries
 * decisions no longer need go first. Deterministic — a function of the state alone — so the reconciler
 * and replay evict the same and decide the same.
 * - tasks: ended or lost tasks of superseded attempts, then any task of a superseded attempt, then the
 *   oldest task; never the lost task being reconciled. A TaskNotFound for an evicted task is UNSEEN.
 * - artifacts: complete artifacts of superseded attempts, then any complete one, then the oldest. R3
 *   no longer compares against an evicted artifact.
 * - attempts: superseded attempts without a task kept, then the oldest superseded one (with its tasks);
 *   never the latest attempt or the one being reconciled.
 * - reported violation keys and parked canaries (lost ones first): oldest first. An evicted key may let
 *   a redundant report of a very old violation through once more.
 */
import { type CorrelationState, latestAttempt, limits, type TaskRecord } from "./state.ts";

function removeFirst<T>(items: T[], ...preferences: ((item: T) => boolean)[]): void {
  for (const ok of preferences) {
    const i = items.findIndex(ok);
    if (i !== -1) {
      items.splice(i, 1);
      return;
    }
  }
}

function artifactCount(s: CorrelationState): number {
  let n = 0;
  for (const t of s.tasks) n += t.artifacts.length;
  return n;
}

export function trim(s: CorrelationState): void {
  if (
    s.tasks.length <= limits.tasks &&
    s.attempts.length <= limits.attempts &&
    s.reported.size <= limits.reported &&
    s.canaries.length <= limits.canaries &&
    artifactCount(s) <= limits.artifacts
  )
    return;
  const latest = latestAttempt(s)?.attempt ?? 0;
  const loss = s.loss;
  const reconciling = (t: TaskRecord) =>
    loss !== null && t.workerId === loss.workerId && t.serverTaskId === loss.serverTaskId;
  const superseded = (t: TaskRecord) => t.attempt !== latest && !reconciling(t);
  while (s.tasks.length > limits.tasks)
    removeFirst(
      s.tasks,
      (t) => superseded(t) && (t.terminal || t.lost),
      superseded,
      (t) => !reconciling(t),
    );
  while (artifactCount(s) > limits.artifacts) {
    const owner =
      s.tasks.find((t) => superseded(t) && t.artifacts.some((a) => a.complete)) ??
      s.tasks.find((t) => t.artifacts.some((a) => a.complete)) ??
      s.tasks.find((t) => t.artifacts.length > 0);
    if (owner === undefined) break;
    removeFirst(
      owner.artifacts,
      (a) => a.complete,
      () => true,
    );
  }
  while (s.attempts.length > limits.attempts) {
    const keep = (n: number) => n === latest || (loss !== null && n === loss.attempt);
    const i = s.attempts.findIndex((a) => !keep(a.attempt) && !s.tasks.some((t) => t.attempt === a.attempt));
    const victim = i !== -1 ? i : s.attempts.findIndex((a) => !keep(a.attempt));
    if (victim === -1) break;
    const [gone] = s.attempts.splice(victim, 1);
    s.tasks = s.tasks.filter((t) => t.attempt !== gone?.attempt);
  }
  for (const key of s.reported) {
    if (s.reported.size <= limits.reported) break;
    s.reported.delete(key);
  }
  while (s.canaries.length > limits.canaries)
    removeFirst(
      s.canaries,
      (c) => c.lost,
      () => true,
    );
}
