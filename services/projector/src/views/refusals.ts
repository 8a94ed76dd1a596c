/**
 * Refused emissions: what workers' own guards refused to emit (`EmissionRefused` observations), for a
 * task's lineage and a worker's page. Read from the event rows, newest last on a task and newest first on
 * a worker, at most `refusalLimit` of them.
 */
import type { Tables } from "../store/schema.ts";
import type { Reader } from "../store/store.ts";
import { iso } from "./lineage.ts";
import { eventCodec, type EventRow } from "./rows.ts";

export const refusalLimit = 200;

function refusalView(e: EventRow) {
  const r = JSON.parse(e.body) as {
    emission: string;
    kind: string;
    state: string | null;
    rawState: string | null;
    artifactId: string | null;
    parts: { mediaType: string | null }[];
    allowed: string[];
    skillId: string | null;
    cardHash: string | null;
  };
  return {
    eventId: e.eventId,
    correlationId: e.correlationId,
    occurredAt: iso(e.occurredAt),
    observer: e.observer,
    workerId: e.workerId,
    serverTaskId: e.serverTaskId,
    attempt: e.attempt,
    emission: r.emission,
    kind: r.kind,
    refused:
      r.emission === "STATUS"
        ? (r.state ?? r.rawState ?? "")
        : [...new Set(r.parts.map((p) => p.mediaType).filter((m) => m !== null))].join(", "),
    artifactId: r.artifactId,
    allowed: r.allowed,
    skillId: r.skillId,
    cardHash: r.cardHash,
  };
}

export async function refusalsOfTask(r: Reader, t: Tables, correlationId: string) {
  const rows = await r.all(
    `SELECT * FROM ${t.event} WHERE correlation_id = ? AND kind = 'observation' AND type = 'EmissionRefused' ORDER BY occurred_at, id LIMIT ?`,
    [correlationId, refusalLimit],
  );
  return rows.map((row) => refusalView(eventCodec.decode(row)));
}

export async function refusalsOfWorker(r: Reader, t: Tables, workerId: string) {
  const rows = await r.all(
    `SELECT * FROM ${t.event} WHERE worker_id = ? AND kind = 'observation' AND type = 'EmissionRefused' ORDER BY occurred_at DESC, id DESC LIMIT ?`,
    [workerId, refusalLimit],
  );
  return rows.map((row) => refusalView(eventCodec.decode(row)));
}
