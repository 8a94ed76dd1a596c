/**
 * The worker view: one row per worker (seen from its cards, probes and capability snapshots, the latest
 * snapshot in force), its cards by hash (first and last fetch, fetch count) and its probe results.
 */
import type { CapabilitySnapshot, Observation } from "@a2a-ledger/schemas";
import type { ProjectorInput } from "../inputs.ts";
import { type BatchRows, cardKey } from "./batch-rows.ts";
import type { WorkerRow } from "./rows.ts";
import { later } from "./status.ts";

type Observed<T extends Observation["type"]> = Extract<Observation, { type: T }>;

/** The batch's copy of a worker's row, seen at `at` (its first and last sighting follow). */
function seenWorker(rows: BatchRows, workerId: string, at: number): WorkerRow {
  const worker = rows.workers.change(workerId, () => ({
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
  }));
  worker.firstSeen = worker.firstSeen === null ? at : Math.min(worker.firstSeen, at);
  worker.lastSeen = worker.lastSeen === null ? at : Math.max(worker.lastSeen, at);
  return worker;
}

function cardObserved(rows: BatchRows, o: Observed<"AgentCardObserved">): void {
  const worker = seenWorker(rows, o.workerId, o.occurredAt);
  worker.cardUrl ??= o.cardUrl;
  const key = cardKey(o.workerId, o.cardHash);
  if (rows.cards.get(key) === undefined) worker.cardCount += 1;
  const card = rows.cards.change(key, () => ({
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
  }));
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
}

function probeCompleted(rows: BatchRows, o: Observed<"ProbeCompleted">): void {
  seenWorker(rows, o.workerId, o.occurredAt).probeCount += 1;
  rows.out.probes.push({
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
}

function snapshot(rows: BatchRows, s: CapabilitySnapshot): void {
  const worker = seenWorker(rows, s.workerId, s.validFrom);
  if (worker.snapshotValidFrom === null || s.validFrom >= worker.snapshotValidFrom) {
    worker.snapshot = JSON.stringify(s);
    worker.snapshotValidFrom = s.validFrom;
    worker.cardHash = s.cardHash;
    worker.vendor = s.vendor;
    worker.taskStore = s.taskStore;
    if (s.cardUrl !== null) worker.cardUrl = s.cardUrl;
  }
}

export const workerView = {
  canHandle: (input: ProjectorInput): boolean =>
    input.kind === "snapshot" ||
    (input.kind === "observation" &&
      (input.record.type === "AgentCardObserved" || input.record.type === "ProbeCompleted")),
  evolve(rows: BatchRows, input: ProjectorInput): void {
    if (input.kind === "snapshot") snapshot(rows, input.record);
    else if (input.kind === "observation" && input.record.type === "AgentCardObserved")
      cardObserved(rows, input.record);
    else if (input.kind === "observation" && input.record.type === "ProbeCompleted") probeCompleted(rows, input.record);
  },
};
