/**
 * Changelog values of simple five-event correlations (dispatched, submitted, working, an artifact,
 * completed), each folded by the real decider (the default rule set) and serialised by it, as the
 * reconciler writes them. Shared by the heap measurement and the restore benchmark.
 */
import {
  CapabilityTable,
  createDecider,
  defaultRuleSet,
  foldBatch,
  parseObservationJson,
  type Decider,
  type LedgerState,
  type PolicyConfig,
} from "@a2a-ledger/core";
import type { Observation } from "@a2a-ledger/schemas";

export const decider: Decider = createDecider(defaultRuleSet);

function observation(fields: Record<string, unknown>): Observation {
  const parsed = parseObservationJson(JSON.stringify(fields));
  if (!parsed.ok) throw new Error(`not an observation: ${JSON.stringify(parsed.issues)}`);
  return parsed.observation;
}

/** The five observations of correlation `id` (worker w-acme, task `${id}-t`), from `t` on. */
export function fiveEvents(id: string, t: number): Observation[] {
  const base = { correlationId: id, observer: "proxy", workerId: "w-acme" };
  const task = { ...base, serverTaskId: `${id}-t` };
  return [
    {
      type: "TaskDispatched",
      ...base,
      skillId: "summarize",
      messageId: `${id}-m`,
      acceptedOutputModes: ["text/plain"],
      attempt: 1,
      cardFetchedAt: t - 1_000,
    },
    { type: "TaskStateObserved", ...task, contextId: `ctx-${id}`, state: "submitted", via: "stream" },
    { type: "TaskStateObserved", ...task, contextId: `ctx-${id}`, state: "working", via: "stream" },
    {
      type: "ArtifactEmitted",
      ...task,
      artifactId: `${id}-a`,
      name: "summary",
      parts: [{ kind: "TEXT", mediaType: "text/plain", sizeBytes: 1200 }],
    },
    { type: "TaskStateObserved", ...task, contextId: `ctx-${id}`, state: "completed", via: "stream" },
  ].map((o, i) => observation({ ...o, eventId: `${id}-e${i}`, occurredAt: t + i }));
}

/** A task lost while working (dispatched, working, then not found): the rules decide on it. */
export function lostTask(id: string, t: number): Observation[] {
  const base = { correlationId: id, observer: "proxy", workerId: "w-acme" };
  return [
    {
      type: "TaskDispatched",
      ...base,
      skillId: "summarize",
      messageId: `${id}-m`,
      acceptedOutputModes: ["text/plain"],
      attempt: 1,
      cardFetchedAt: t - 1_000,
    },
    {
      type: "TaskStateObserved",
      ...base,
      serverTaskId: `${id}-t`,
      contextId: `ctx-${id}`,
      state: "working",
      via: "stream",
    },
    { type: "TaskNotFoundObserved", ...base, serverTaskId: `${id}-t`, method: "GetTask", errorCode: "-32001" },
  ].map((o, i) => observation({ ...o, eventId: `${id}-e${i}`, occurredAt: t + i }));
}

/** `count` correlations `${prefix}-<i>`, folded `chunk` at a time; yields [correlationId, state as folded]. */
export function* correlationStates(prefix: string, count: number, chunk = 2_000): Generator<[string, LedgerState]> {
  const policy: PolicyConfig = { trustedVendors: [] };
  const capabilities = CapabilityTable.fromSnapshots([]);
  for (let from = 0; from < count; from += chunk) {
    const observations: Observation[] = [];
    for (let i = from; i < Math.min(count, from + chunk); i++)
      observations.push(...fiveEvents(`${prefix}-${i}`, Date.UTC(2026, 0, 1) + i * 10));
    const { states, rejected } = foldBatch({ decider, policy, capabilities, stateOf: () => undefined }, observations);
    if (rejected.length > 0)
      throw new Error(`the rules rejected ${rejected.length} observation(s): ${rejected[0]?.error.message}`);
    yield* states;
  }
}

/** `count` correlations `${prefix}-<i>`; yields [correlationId, changelog value]. */
export function* correlationValues(prefix: string, count: number): Generator<[string, Buffer]> {
  for (const [id, state] of correlationStates(prefix, count)) yield [id, Buffer.from(decider.serialize(state))];
}
