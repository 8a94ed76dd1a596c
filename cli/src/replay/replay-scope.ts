/**
 * What a replay covers: observations from `since` (inclusive) to `until` (exclusive) by their
 * `occurredAt`, optionally of one correlation. Decisions are in scope by the same measure — a
 * decision's `decidedAt` is its cause event's `occurredAt` — so recorded decisions and replayed ones
 * are cut from the log the same way.
 */
import { toEpochMillis } from "@a2a-ledger/core";
import type { Decision, Observation } from "@a2a-ledger/schemas";
import { UsageError } from "../io.ts";

export interface ReplayScope {
  since: number | undefined;
  until: number | undefined;
  correlationId: string | undefined;
}

export const wholeLog: ReplayScope = { since: undefined, until: undefined, correlationId: undefined };

const inWindow = (scope: ReplayScope, t: number) =>
  (scope.since === undefined || t >= scope.since) && (scope.until === undefined || t < scope.until);

export function observationInScope(scope: ReplayScope, o: Observation): boolean {
  return (
    inWindow(scope, o.occurredAt) && (scope.correlationId === undefined || o.correlationId === scope.correlationId)
  );
}

export function decisionInScope(scope: ReplayScope, d: Decision): boolean {
  return inWindow(scope, d.decidedAt) && (scope.correlationId === undefined || d.correlationId === scope.correlationId);
}

export const isPartial = (scope: ReplayScope) =>
  scope.since !== undefined || scope.until !== undefined || scope.correlationId !== undefined;

/** `--since` / `--until`: an ISO-8601 date-time with offset, or epoch milliseconds. */
function time(option: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const t = toEpochMillis(/^-?\d+$/.test(value.trim()) ? Number(value.trim()) : value.trim());
  if (!t.ok) throw new UsageError(`--${option} ${JSON.stringify(value)}: ${t.message}`);
  return t.value;
}

export function scopeFromOptions(o: {
  since?: string | undefined;
  until?: string | undefined;
  correlation?: string | undefined;
}): ReplayScope {
  const scope = { since: time("since", o.since), until: time("until", o.until), correlationId: o.correlation };
  if (scope.since !== undefined && scope.until !== undefined && scope.since >= scope.until)
    throw new UsageError("--since must be earlier than --until");
  if (scope.correlationId === "") throw new UsageError("--correlation needs an id");
  return scope;
}
