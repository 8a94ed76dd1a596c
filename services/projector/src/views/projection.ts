/**
 * The pure heart of the projector: the rows a batch touches (loaded by the writer, read-only) plus the
 * batch's inputs → the rows to write, all of them new (batch-rows.ts). No I/O. Each view is an `evolve`
 * over the events it handles (`canHandle`): the task view (task-view.ts), the lineage (lineage-view.ts),
 * the workers, cards and probes (worker-view.ts), the violations and the dead letters (below). An event
 * row is made once, with its attempt: the lineage evolves first and says which attempt the event belongs
 * to. Every merge is order-independent across topics (maxima, minima, set unions, ids that dedupe), so
 * the views do not depend on how the five topics interleave; within one partition the log order decides.
 */
import type { Decision, Observation } from "@a2a-ledger/schemas";
import type { ProjectorInput, Source } from "../inputs.ts";
import { BatchRows, type Changes, eventKey, type Loaded } from "./batch-rows.ts";
import { lineageView } from "./lineage-view.ts";
import type { EventRow } from "./rows.ts";
import { countEvent, taskView } from "./task-view.ts";
import { workerView } from "./worker-view.ts";

/** What the writer must load before projecting a batch. */
export interface Needs {
  correlations: string[];
  /** (correlationId, row id `o:…`, `d:…`, `c:…`) of the batch's events, to skip ones already projected. */
  eventKeys: [string, string][];
  artifactIds: string[];
  /** Workers whose row is read-modify-written (cards, probes, snapshots). */
  workers: string[];
  cardHashes: string[];
  /** Workers only mentioned by task observations: a bare row is inserted if none exists. */
  mentionedWorkers: string[];
  /** Correlations the batch brings a RedispatchCommanded decision for: their stored events are loaded for the re-link. */
  redispatched: string[];
}

export const eventRowId = (input: ProjectorInput): string | undefined => {
  switch (input.kind) {
    case "observation":
      return `o:${input.record.eventId}`;
    case "decision":
      return `d:${input.record.decisionId}`;
    case "command":
      return `c:${input.record.decisionId}`;
    default:
      return undefined;
  }
};

const hasWorkerRow = (o: Observation) => o.type === "AgentCardObserved" || o.type === "ProbeCompleted";

export function needsOf(inputs: readonly ProjectorInput[]): Needs {
  const correlations = new Set<string>();
  const eventKeys = new Map<string, [string, string]>();
  const artifactIds = new Set<string>();
  const workers = new Set<string>();
  const cardHashes = new Set<string>();
  const mentioned = new Set<string>();
  const redispatched = new Set<string>();
  for (const input of inputs) {
    if (input.kind === "decision" && input.record.type === "RedispatchCommanded")
      redispatched.add(input.record.correlationId);
    if (input.kind === "observation" || input.kind === "decision" || input.kind === "command") {
      correlations.add(input.record.correlationId);
      const id = eventRowId(input) as string;
      eventKeys.set(eventKey(input.record.correlationId, id), [input.record.correlationId, id]);
    }
    if (input.kind === "observation") {
      const o = input.record;
      // An operator's resolution that names no worker mentions none.
      if (o.workerId !== null) (hasWorkerRow(o) ? workers : mentioned).add(o.workerId);
      if (o.type === "AgentCardObserved") cardHashes.add(o.cardHash);
      if (o.type === "ArtifactEmitted") artifactIds.add(o.artifactId);
    }
    if (input.kind === "snapshot") workers.add(input.record.workerId);
  }
  const sorted = (s: Set<string>) => [...s].sort();
  return {
    correlations: sorted(correlations),
    eventKeys: [...eventKeys.values()],
    artifactIds: sorted(artifactIds),
    workers: sorted(workers),
    cardHashes: sorted(cardHashes),
    mentionedWorkers: sorted(mentioned).filter((w) => !workers.has(w)),
    redispatched: sorted(redispatched),
  };
}

/** Which decision fields name a server task and an attempt. */
function decisionFacts(d: Decision): { serverTaskId: string | null; attempt: number | null; state: string | null } {
  switch (d.type) {
    case "TaskIndeterminate":
      return { serverTaskId: d.serverTaskId, attempt: d.attempt, state: d.lastState };
    case "TaskFailed":
      return { serverTaskId: d.serverTaskId, attempt: null, state: d.lastState };
    case "TaskReconciled":
      return { serverTaskId: d.serverTaskId, attempt: d.attempt, state: d.state };
    case "ContractViolation":
      return {
        serverTaskId: d.serverTaskId,
        attempt: d.attempts.length === 1 ? (d.attempts[0] as number) : null,
        state: null,
      };
    case "RedispatchCommanded":
      return { serverTaskId: d.fromServerTaskId, attempt: d.attempt, state: d.resumeState };
    case "ReconciliationBlocked":
      return { serverTaskId: null, attempt: null, state: d.lastState };
    default:
      return { serverTaskId: null, attempt: null, state: null };
  }
}

/** Violations, as the decisions recorded them. */
const violationView = {
  canHandle: (input: ProjectorInput): boolean => input.kind === "decision" && input.record.type === "ContractViolation",
  evolve(rows: BatchRows, input: ProjectorInput): void {
    if (input.kind !== "decision" || input.record.type !== "ContractViolation") return;
    const d = input.record;
    rows.out.violations.push({
      decisionId: d.decisionId,
      correlationId: d.correlationId,
      workerId: d.workerId,
      kind: d.kind,
      serverTaskId: d.serverTaskId,
      skillId: d.skillId,
      observed: d.observed,
      allowed: d.allowed,
      cardHash: d.cardHash,
      detail: d.detail,
      output: d.output,
      attempts: d.attempts,
      decidedAt: d.decidedAt,
      causeEventIds: d.causeEventIds,
      rulesVersion: d.rulesVersion,
    });
  },
};

/** Records no topic's schema could read, where they were. */
const deadLetterView = {
  canHandle: (input: ProjectorInput): boolean => input.kind === "dead-letter",
  evolve(rows: BatchRows, input: ProjectorInput): void {
    if (input.kind !== "dead-letter") return;
    rows.out.dlq.push({
      ...input.deadLetter,
      topic: input.source.topic,
      partition: input.source.partition,
      offset: input.source.offset,
      recordedAt: input.source.timestamp,
    });
  },
};

/** An event's row, made once its attempt is known. */
function eventRow(source: Source, input: Observed | Decided, attempt: number | null): EventRow {
  if (input.kind === "observation") {
    const o = input.record;
    return {
      correlationId: o.correlationId,
      id: `o:${o.eventId}`,
      kind: "observation",
      type: o.type,
      eventId: o.eventId,
      occurredAt: o.occurredAt,
      observer: o.observer,
      workerId: o.workerId,
      serverTaskId: "serverTaskId" in o ? o.serverTaskId : null,
      attempt,
      state: o.type === "TaskStateObserved" ? o.state : null,
      topic: source.topic,
      partition: source.partition,
      offset: source.offset,
      body: JSON.stringify(o),
    };
  }
  const d = input.record;
  const facts = decisionFacts(d);
  return {
    correlationId: d.correlationId,
    id: `${input.kind === "decision" ? "d" : "c"}:${d.decisionId}`,
    kind: input.kind,
    type: d.type,
    eventId: d.decisionId,
    occurredAt: d.decidedAt,
    observer: null,
    workerId: d.type === "RedispatchCommanded" ? d.targetWorkerId : d.workerId,
    serverTaskId: facts.serverTaskId,
    attempt: facts.attempt,
    state: facts.state,
    topic: source.topic,
    partition: source.partition,
    offset: source.offset,
    body: JSON.stringify(d),
  };
}

type Observed = { kind: "observation"; record: Observation };
type Decided = { kind: "decision" | "command"; record: Decision };

/**
 * Projects a batch as the topics interleave: the new rows to write (`rows` is not changed). The writer
 * then re-links the re-dispatched correlations (relink.ts). `planRedispatches`: see lineage-view.ts.
 */
export function project(
  rows: Readonly<Loaded>,
  inputs: readonly ProjectorInput[],
  options: { planRedispatches?: boolean } = {},
): Changes {
  const batch = new BatchRows(rows);
  const lineage = lineageView(options);
  const views = [taskView, workerView, violationView, deadLetterView];
  for (const input of inputs) {
    let attempt: number | null = null;
    if (input.kind === "observation" || input.kind === "decision" || input.kind === "command") {
      const { correlationId } = input.record;
      // A redelivery, or an id repeated, changes nothing.
      if (!batch.claimEvent(correlationId, eventRowId(input) as string)) continue;
      countEvent(batch, correlationId, input.kind === "observation" ? input.record.occurredAt : input.record.decidedAt);
      if (lineage.canHandle(input)) attempt = lineage.evolve(batch, input);
      batch.out.events.push(eventRow(input.source, input, attempt));
    }
    for (const view of views) if (view.canHandle(input)) view.evolve(batch, input);
  }
  return batch.changes();
}
