/**
 * The pure heart of the projector: the rows a batch touches (loaded by the writer) plus the batch's
 * inputs → the rows to write. No I/O. Every merge is order-independent across topics (maxima,
 * minima, set unions, ids that dedupe), so the views do not depend on how the five topics interleave;
 * within one partition the log order decides (attempts are linked in the order their observations
 * were recorded), and that order is the same on every read. Which attempt a dispatch or a server task
 * belongs to, when a sighting replaces a server task's last state, which decisions set the status and
 * which states are terminal are the core's lineage rules (@a2a-ledger/core lineage.ts), the ones the
 * reconciler's fold applies: the lineage shown here is the fold's (lineage.property.test.ts).
 */
import type { CapabilitySnapshot, Decision, Observation } from "@a2a-ledger/schemas";
import type { ProjectorInput, Source } from "../inputs.ts";
import type {
  ArtifactRow,
  AttemptRow,
  CardRow,
  DlqRow,
  EventRow,
  ProbeRow,
  ServerTaskRow,
  TaskKeyRow,
  TaskRow,
  ViolationRow,
  WorkerRow,
} from "./rows.ts";
import { dispatchTarget, nextAttemptNumber, openAttemptOf, plannedAttempt, replacesLastState } from "@a2a-ledger/core";
import {
  expiryWaitingSince,
  isTerminalState,
  later,
  statusDecision,
  statusOf,
  supersedes,
  waitingSince,
} from "./status.ts";

const sep = "\u0000";
export const serverTaskKey = (correlationId: string, workerId: string, serverTaskId: string) =>
  `${correlationId}${sep}${workerId}${sep}${serverTaskId}`;
export const artifactKey = (correlationId: string, workerId: string, serverTaskId: string, artifactId: string) =>
  `${serverTaskKey(correlationId, workerId, serverTaskId)}${sep}${artifactId}`;
export const eventKey = (correlationId: string, id: string) => `${correlationId}${sep}${id}`;
export const cardKey = (workerId: string, cardHash: string) => `${workerId}${sep}${cardHash}`;

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

/** Rows that exist, keyed as above. */
export interface Loaded {
  tasks: Map<string, TaskRow>;
  attempts: Map<string, AttemptRow[]>;
  serverTasks: Map<string, ServerTaskRow>;
  artifacts: Map<string, ArtifactRow>;
  events: Set<string>;
  workers: Map<string, WorkerRow>;
  cards: Map<string, CardRow>;
  /**
   * Every stored event row of the batch's correlations that the reconciler re-dispatched (a
   * RedispatchCommanded decision stored, or in the batch): their lineage is re-linked from them (relink.ts).
   */
  redispatched: Map<string, EventRow[]>;
}

export const emptyLoaded = (): Loaded => ({
  tasks: new Map(),
  attempts: new Map(),
  serverTasks: new Map(),
  artifacts: new Map(),
  events: new Set(),
  workers: new Map(),
  cards: new Map(),
  redispatched: new Map(),
});

export interface Changes {
  tasks: TaskRow[];
  taskKeys: TaskKeyRow[];
  /** Tasks that existed whose first_at moved earlier: their stored keys must follow. */
  movedTasks: { correlationId: string; firstAt: number }[];
  events: EventRow[];
  attempts: AttemptRow[];
  serverTasks: ServerTaskRow[];
  artifacts: ArtifactRow[];
  violations: ViolationRow[];
  workers: WorkerRow[];
  mentionedWorkers: string[];
  cards: CardRow[];
  probes: ProbeRow[];
  dlq: DlqRow[];
  /**
   * Correlations re-linked whole (relink.ts): their stored attempts, server tasks and artifacts are
   * replaced by the ones above, and their stored observation rows take these attempts.
   */
  relinked: { correlationId: string; eventAttempts: { id: string; attempt: number | null }[] }[];
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

const union = (into: string[], values: readonly string[]): string[] => {
  for (const v of values) if (!into.includes(v)) into.push(v);
  return into;
};

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

const taskDecisions = new Set([
  "TaskIndeterminate",
  "ReconciliationBlocked",
  "RedispatchCommanded",
  "TaskFailed",
  "TaskReconciled",
  "CorrelationExpired",
]);

export class BatchProjection {
  private readonly dirty = {
    tasks: new Set<string>(),
    attempts: new Set<string>(),
    serverTasks: new Set<string>(),
    artifacts: new Set<string>(),
    workers: new Set<string>(),
    cards: new Set<string>(),
  };
  private readonly out = {
    taskKeys: new Map<string, TaskKeyRow>(),
    events: [] as EventRow[],
    violations: [] as ViolationRow[],
    probes: [] as ProbeRow[],
    dlq: [] as DlqRow[],
  };
  private readonly mentioned = new Set<string>();
  private readonly loadedFirstAt: Map<string, number>;

  /**
   * `planRedispatches`: a RedispatchCommanded plans its attempt on the target, as the fold does. Only
   * where the decisions come in their canonical place among the observations (relink.ts); read as the
   * topics interleave, planning would make the views depend on that interleaving.
   */
  constructor(
    private readonly rows: Loaded,
    private readonly options: { planRedispatches?: boolean } = {},
  ) {
    this.loadedFirstAt = new Map([...rows.tasks].map(([id, t]) => [id, t.firstAt]));
  }

  apply(input: ProjectorInput): void {
    switch (input.kind) {
      case "observation":
        return this.observation(input.source, input.record);
      case "decision":
      case "command":
        return this.decision(input.source, input.record, input.kind);
      case "snapshot":
        return this.snapshot(input.record);
      case "dead-letter":
        this.out.dlq.push({
          ...input.deadLetter,
          topic: input.source.topic,
          partition: input.source.partition,
          offset: input.source.offset,
          recordedAt: input.source.timestamp,
        });
        return;
      case "skip":
        return;
    }
  }

  /** Registers an event row; false when it was projected before (a redelivery or a repeated eventId). */
  private event(row: EventRow): boolean {
    const key = eventKey(row.correlationId, row.id);
    if (this.rows.events.has(key)) return false;
    this.rows.events.add(key);
    this.out.events.push(row);
    const task = this.task(row.correlationId, row.occurredAt);
    task.firstAt = Math.min(task.firstAt, row.occurredAt);
    task.lastAt = Math.max(task.lastAt, row.occurredAt);
    task.eventCount += 1;
    return true;
  }

  private task(correlationId: string, at: number): TaskRow {
    let task = this.rows.tasks.get(correlationId);
    if (task === undefined) {
      task = {
        correlationId,
        hasTask: false,
        status: "running",
        firstAt: at,
        lastAt: at,
        eventCount: 0,
        violationCount: 0,
        attemptCount: 0,
        lastState: null,
        lastStateAt: null,
        lastStateEvent: null,
        lastObserver: null,
        terminalState: null,
        terminalAt: null,
        terminalEvent: null,
        decisionType: null,
        decisionAt: null,
        decisionRank: null,
        decisionId: null,
        indeterminateAt: null,
        blockedReason: null,
        waitingSince: null,
      };
      this.rows.tasks.set(correlationId, task);
    }
    this.dirty.tasks.add(correlationId);
    return task;
  }

  private key(kind: TaskKeyRow["kind"], value: string | null, correlationId: string): void {
    if (value === null || value === "") return;
    this.out.taskKeys.set(`${kind}${sep}${value}${sep}${correlationId}`, { kind, value, correlationId, firstAt: 0 });
  }

  private attemptsOf(correlationId: string): AttemptRow[] {
    let list = this.rows.attempts.get(correlationId);
    if (list === undefined) {
      list = [];
      this.rows.attempts.set(correlationId, list);
    }
    return list;
  }

  private attemptRow(correlationId: string, attempt: number): AttemptRow {
    return this.attemptsOf(correlationId).find((a) => a.attempt === attempt) as AttemptRow;
  }

  private addAttempt(row: AttemptRow): AttemptRow {
    const list = this.attemptsOf(row.correlationId);
    list.push(row);
    this.dirty.attempts.add(`${row.correlationId}${sep}${row.attempt}`);
    const task = this.task(row.correlationId, row.dispatchedAt ?? 0);
    task.attemptCount = list.length;
    return row;
  }

  /** The correlation's attempts as the core's lineage rules read them: in order, with their server task counts. */
  private slots(correlationId: string): (AttemptRow & { taskCount: number })[] {
    const counts = new Map<number, number>();
    for (const st of this.rows.serverTasks.values())
      if (st.correlationId === correlationId) counts.set(st.attempt, (counts.get(st.attempt) ?? 0) + 1);
    return [...this.attemptsOf(correlationId)]
      .sort((a, b) => a.attempt - b.attempt)
      .map((a) => ({ ...a, taskCount: counts.get(a.attempt) ?? 0 }));
  }

  private knownServerTask(correlationId: string, workerId: string, serverTaskId: string): ServerTaskRow | undefined {
    return this.rows.serverTasks.get(serverTaskKey(correlationId, workerId, serverTaskId));
  }

  /**
   * The server task a state, artifact or loss concerns. A new one joins the latest attempt on its
   * worker that has no task yet, else opens an inferred attempt with the latest attempt's terms (lineage.ts).
   */
  private serverTask(correlationId: string, workerId: string, serverTaskId: string, at: number): ServerTaskRow {
    const key = serverTaskKey(correlationId, workerId, serverTaskId);
    let row = this.rows.serverTasks.get(key);
    if (row === undefined) {
      const slots = this.slots(correlationId);
      const open = openAttemptOf(slots, workerId);
      let attempt: number;
      if (open !== undefined) attempt = open.attempt;
      else {
        const latest = slots[slots.length - 1];
        attempt = this.addAttempt({
          correlationId,
          attempt: nextAttemptNumber(slots),
          workerId,
          skillId: latest?.skillId ?? null,
          messageId: null,
          acceptedModes: latest?.acceptedModes ?? [],
          cardHash: null,
          dispatchedAt: null,
          dispatchEventId: null,
          observer: null,
          inferred: true,
        }).attempt;
      }
      row = {
        correlationId,
        workerId,
        serverTaskId,
        attempt,
        contextId: null,
        firstAt: at,
        lastState: null,
        lastStateAt: null,
        lastStateEvent: null,
        lostAt: null,
        lostEventId: null,
      };
      this.rows.serverTasks.set(key, row);
    }
    row.firstAt = Math.min(row.firstAt, at);
    this.dirty.serverTasks.add(key);
    this.key("server_task", serverTaskId, correlationId);
    return row;
  }

  private worker(workerId: string): WorkerRow {
    let row = this.rows.workers.get(workerId);
    if (row === undefined) {
      row = {
        workerId,
        firstSeen: null,
        lastSeen: null,
        cardHash: null,
        cardUrl: null,
        vendor: null,
        taskStore: null,
        snapshot: null,
        snapshotValidFrom: null,
        probeCount: 0,
        cardCount: 0,
      };
      this.rows.workers.set(workerId, row);
    }
    this.dirty.workers.add(workerId);
    return row;
  }

  private seen(worker: WorkerRow, at: number): void {
    worker.firstSeen = worker.firstSeen === null ? at : Math.min(worker.firstSeen, at);
    worker.lastSeen = worker.lastSeen === null ? at : Math.max(worker.lastSeen, at);
  }

  private observation(source: Source, o: Observation): void {
    const base: EventRow = {
      correlationId: o.correlationId,
      id: `o:${o.eventId}`,
      kind: "observation",
      type: o.type,
      eventId: o.eventId,
      occurredAt: o.occurredAt,
      observer: o.observer,
      workerId: o.workerId,
      serverTaskId: "serverTaskId" in o ? o.serverTaskId : null,
      attempt: null,
      state: o.type === "TaskStateObserved" ? o.state : null,
      topic: source.topic,
      partition: source.partition,
      offset: source.offset,
      body: JSON.stringify(o),
    };
    if (!this.event(base)) return;
    const task = this.task(o.correlationId, o.occurredAt);
    switch (o.type) {
      case "AgentCardObserved": {
        const worker = this.worker(o.workerId);
        this.seen(worker, o.occurredAt);
        worker.cardUrl ??= o.cardUrl;
        const key = cardKey(o.workerId, o.cardHash);
        let card = this.rows.cards.get(key);
        if (card === undefined) {
          card = {
            workerId: o.workerId,
            cardHash: o.cardHash,
            firstSeen: o.occurredAt,
            lastSeen: o.occurredAt,
            firstEventId: o.eventId,
            card: o.card,
            cardUrl: o.cardUrl,
            etag: o.etag,
            maxAgeSeconds: o.cacheMaxAgeSeconds,
            fetches: 0,
          };
          this.rows.cards.set(key, card);
          worker.cardCount += 1;
        }
        if (later(o.occurredAt, o.eventId, card.firstSeen, card.firstEventId) === false) {
          card.firstSeen = o.occurredAt;
          card.firstEventId = o.eventId;
        }
        if (o.occurredAt >= card.lastSeen) {
          card.lastSeen = o.occurredAt;
          card.etag = o.etag;
          card.maxAgeSeconds = o.cacheMaxAgeSeconds;
          card.cardUrl = o.cardUrl;
        }
        card.fetches += 1;
        this.dirty.cards.add(key);
        return;
      }
      case "ProbeCompleted": {
        const worker = this.worker(o.workerId);
        this.seen(worker, o.occurredAt);
        worker.probeCount += 1;
        this.out.probes.push({
          workerId: o.workerId,
          eventId: o.eventId,
          correlationId: o.correlationId,
          cardHash: o.cardHash,
          skillId: o.skillId,
          occurredAt: o.occurredAt,
          statesObserved: o.statesObserved,
          reobservable: o.reobservable,
          emittedModes: o.emittedModes,
          durable: o.durable,
          parkedCanaries: o.parkedCanaries,
        });
        return;
      }
      case "TaskDispatched": {
        task.hasTask = true;
        this.mentioned.add(o.workerId);
        this.key("worker", o.workerId, o.correlationId);
        const target = dispatchTarget(this.slots(o.correlationId), o);
        let attempt: AttemptRow;
        if (target.kind === "new") {
          attempt = this.addAttempt({
            correlationId: o.correlationId,
            attempt: target.attempt,
            workerId: o.workerId,
            skillId: o.skillId,
            messageId: o.messageId,
            acceptedModes: o.acceptedOutputModes,
            cardHash: o.cardHash,
            dispatchedAt: o.occurredAt,
            dispatchEventId: o.eventId,
            observer: o.observer,
            inferred: false,
          });
        } else {
          attempt = this.attemptRow(o.correlationId, target.attempt.attempt);
          if (target.kind === "fills") {
            // A planned re-dispatch or an inferred attempt on this worker is the attempt this dispatch starts.
            Object.assign(attempt, {
              skillId: o.skillId,
              messageId: o.messageId,
              acceptedModes: o.acceptedOutputModes,
              cardHash: o.cardHash,
              dispatchedAt: o.occurredAt,
              dispatchEventId: o.eventId,
              observer: o.observer,
              inferred: false,
            });
            this.dirty.attempts.add(`${o.correlationId}${sep}${attempt.attempt}`);
          } else if (attempt.dispatchedAt === null || o.occurredAt < attempt.dispatchedAt) {
            attempt.dispatchedAt = o.occurredAt;
            attempt.dispatchEventId = o.eventId;
            this.dirty.attempts.add(`${o.correlationId}${sep}${attempt.attempt}`);
          }
        }
        base.attempt = attempt.attempt;
        return;
      }
      case "TaskStateObserved": {
        task.hasTask = true;
        this.mentioned.add(o.workerId);
        this.key("worker", o.workerId, o.correlationId);
        this.key("context", o.contextId, o.correlationId);
        const st = this.serverTask(o.correlationId, o.workerId, o.serverTaskId, o.occurredAt);
        base.attempt = st.attempt;
        st.contextId ??= o.contextId;
        if (
          replacesLastState(
            st.lastState === null || st.lastStateAt === null
              ? null
              : { state: st.lastState, occurredAt: st.lastStateAt },
            o,
          )
        ) {
          st.lastState = o.state;
          st.lastStateAt = o.occurredAt;
          st.lastStateEvent = o.eventId;
        }
        if (later(o.occurredAt, o.eventId, task.lastStateAt, task.lastStateEvent)) {
          task.lastState = o.state;
          task.lastStateAt = o.occurredAt;
          task.lastStateEvent = o.eventId;
          task.lastObserver = o.observer;
        }
        if (isTerminalState(o.state) && later(o.occurredAt, o.eventId, task.terminalAt, task.terminalEvent)) {
          task.terminalState = o.state;
          task.terminalAt = o.occurredAt;
          task.terminalEvent = o.eventId;
        }
        return;
      }
      case "TaskNotFoundObserved": {
        task.hasTask = true;
        this.mentioned.add(o.workerId);
        this.key("worker", o.workerId, o.correlationId);
        // As the fold links it: a task id nobody saw joins only a dispatch still waiting for its task.
        if (
          this.knownServerTask(o.correlationId, o.workerId, o.serverTaskId) === undefined &&
          openAttemptOf(this.slots(o.correlationId), o.workerId) === undefined
        )
          return;
        const st = this.serverTask(o.correlationId, o.workerId, o.serverTaskId, o.occurredAt);
        base.attempt = st.attempt;
        if (st.lostAt === null || o.occurredAt < st.lostAt) {
          st.lostAt = o.occurredAt;
          st.lostEventId = o.eventId;
        }
        return;
      }
      case "EmissionRefused": {
        // A worker's guard refused to emit on this server task: it joins the task's attempt, changes no state.
        task.hasTask = true;
        this.mentioned.add(o.workerId);
        this.key("worker", o.workerId, o.correlationId);
        // A refusal changes no lineage (nothing reached a client): it names the task's attempt, or the one it would join.
        base.attempt =
          this.knownServerTask(o.correlationId, o.workerId, o.serverTaskId)?.attempt ??
          openAttemptOf(this.slots(o.correlationId), o.workerId)?.attempt ??
          null;
        return;
      }
      case "ArtifactEmitted": {
        task.hasTask = true;
        this.mentioned.add(o.workerId);
        this.key("worker", o.workerId, o.correlationId);
        const st = this.serverTask(o.correlationId, o.workerId, o.serverTaskId, o.occurredAt);
        base.attempt = st.attempt;
        const key = artifactKey(o.correlationId, o.workerId, o.serverTaskId, o.artifactId);
        let artifact = this.rows.artifacts.get(key);
        if (artifact === undefined) {
          artifact = {
            correlationId: o.correlationId,
            workerId: o.workerId,
            serverTaskId: o.serverTaskId,
            artifactId: o.artifactId,
            attempt: st.attempt,
            name: o.name,
            mediaTypes: [],
            partKinds: [],
            sizeBytes: 0,
            chunks: 0,
            complete: false,
            firstAt: o.occurredAt,
            lastAt: o.occurredAt,
            eventIds: [],
          };
          this.rows.artifacts.set(key, artifact);
        }
        artifact.name ??= o.name;
        union(
          artifact.mediaTypes,
          o.parts.map((p) => p.mediaType).filter((m): m is string => m !== null),
        );
        union(
          artifact.partKinds,
          o.parts.map((p) => p.kind),
        );
        artifact.sizeBytes += o.parts.reduce((sum, p) => sum + p.sizeBytes, 0);
        artifact.chunks += 1;
        if (o.lastChunk !== false) artifact.complete = true;
        artifact.firstAt = Math.min(artifact.firstAt, o.occurredAt);
        artifact.lastAt = Math.max(artifact.lastAt, o.occurredAt);
        artifact.eventIds.push(o.eventId);
        this.dirty.artifacts.add(key);
        return;
      }
    }
  }

  private decision(source: Source, d: Decision, kind: "decision" | "command"): void {
    const facts = decisionFacts(d);
    const row: EventRow = {
      correlationId: d.correlationId,
      id: `${kind === "decision" ? "d" : "c"}:${d.decisionId}`,
      kind,
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
    if (!this.event(row) || kind === "command") return;
    const task = this.task(d.correlationId, d.decidedAt);
    if (taskDecisions.has(d.type)) task.hasTask = true;
    const status = statusDecision(d.type);
    if (status !== undefined && supersedes(task, d.decidedAt, status.rank, d.decisionId)) {
      // An expiry keeps the time the task had waited on the queue before it (read before it applies).
      if (d.type === "CorrelationExpired") task.waitingSince = expiryWaitingSince(task, d.decidedAt);
      task.decisionType = d.type;
      task.decisionAt = d.decidedAt;
      task.decisionRank = status.rank;
      task.decisionId = d.decisionId;
      if (d.type === "ReconciliationBlocked") task.blockedReason = d.reason;
    }
    switch (d.type) {
      case "TaskIndeterminate":
        task.indeterminateAt = Math.max(task.indeterminateAt ?? d.decidedAt, d.decidedAt);
        break;
      case "RedispatchCommanded":
        this.key("worker", d.targetWorkerId, d.correlationId);
        if (this.options.planRedispatches === true) this.planned(d);
        break;
      case "ContractViolation":
        task.violationCount += 1;
        this.out.violations.push({
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
        break;
      default:
        break;
    }
  }

  /**
   * The attempt a re-dispatch plans on its target, as the fold plans it (lineage.ts `plannedAttempt`):
   * the target's next server task or dispatch joins it. When the attempt exists already (the
   * orchestrator's own dispatch, or a server task inferred it, came first), it only stops counting as
   * inferred: a re-dispatch announced it.
   */
  private planned(d: Extract<Decision, { type: "RedispatchCommanded" }>): void {
    const plan = plannedAttempt(this.slots(d.correlationId), d);
    if (plan !== undefined) {
      this.addAttempt({
        correlationId: d.correlationId,
        attempt: plan.attempt,
        workerId: plan.workerId,
        skillId: plan.skillId,
        messageId: null,
        acceptedModes: plan.acceptedOutputModes,
        cardHash: null,
        dispatchedAt: null,
        dispatchEventId: null,
        observer: null,
        inferred: false,
      });
      return;
    }
    const existing = this.attemptRow(d.correlationId, d.attempt);
    if (existing.inferred && existing.workerId === d.targetWorkerId) {
      existing.inferred = false;
      this.dirty.attempts.add(`${d.correlationId}${sep}${d.attempt}`);
    }
  }

  private snapshot(s: CapabilitySnapshot): void {
    const worker = this.worker(s.workerId);
    this.seen(worker, s.validFrom);
    if (worker.snapshotValidFrom === null || s.validFrom >= worker.snapshotValidFrom) {
      worker.snapshot = JSON.stringify(s);
      worker.snapshotValidFrom = s.validFrom;
      worker.cardHash = s.cardHash;
      worker.vendor = s.vendor;
      worker.taskStore = s.taskStore;
      if (s.cardUrl !== null) worker.cardUrl = s.cardUrl;
    }
  }

  changes(): Changes {
    const pick = <T>(keys: Set<string>, get: (key: string) => T | undefined): T[] =>
      [...keys]
        .sort()
        .map(get)
        .filter((v): v is T => v !== undefined);
    const tasks = pick(this.dirty.tasks, (k) => this.rows.tasks.get(k));
    for (const task of tasks) {
      task.status = statusOf(task);
      task.waitingSince = waitingSince(task);
    }
    const attempts = pick(this.dirty.attempts, (k) => {
      const [correlationId, n] = k.split(sep) as [string, string];
      return this.rows.attempts.get(correlationId)?.find((a) => a.attempt === Number(n));
    });
    const taskKeys = [...this.out.taskKeys.values()];
    for (const k of taskKeys) k.firstAt = this.rows.tasks.get(k.correlationId)?.firstAt ?? 0;
    return {
      tasks,
      taskKeys,
      movedTasks: tasks
        .filter((t) => this.loadedFirstAt.has(t.correlationId) && this.loadedFirstAt.get(t.correlationId) !== t.firstAt)
        .map((t) => ({ correlationId: t.correlationId, firstAt: t.firstAt })),
      events: this.out.events,
      attempts,
      serverTasks: pick(this.dirty.serverTasks, (k) => this.rows.serverTasks.get(k)),
      artifacts: pick(this.dirty.artifacts, (k) => this.rows.artifacts.get(k)),
      violations: this.out.violations,
      workers: pick(this.dirty.workers, (k) => this.rows.workers.get(k)),
      mentionedWorkers: [...this.mentioned].filter((w) => !this.dirty.workers.has(w)).sort(),
      cards: pick(this.dirty.cards, (k) => this.rows.cards.get(k)),
      probes: this.out.probes,
      dlq: this.out.dlq,
      relinked: [],
    };
  }
}

/** Projects a batch as the topics interleave; the writer then re-links the re-dispatched correlations (relink.ts). */
export function project(
  rows: Loaded,
  inputs: readonly ProjectorInput[],
  options: { planRedispatches?: boolean } = {},
): Changes {
  const projection = new BatchProjection(rows, options);
  for (const input of inputs) projection.apply(input);
  return projection.changes();
}
