/**
 * A correlation's lineage in the shape of A2A's task timeline (`Task.timeline`, `TimelineEntry`, Artifact
 * `startGeneration`/`endGeneration`, Task `generation`: a2aproject/A2A pull request 2129, "ADR-002", at
 * its head b5fe6101, proposed for v1.1), as ProtoJSON: one A2A `Task` per server task of each attempt.
 *
 * The ledger recorded observations, not the worker's own generation counter, so generations are the
 * ledger's, counted per server task in the order the observations were recorded (occurredAt, then event
 * id), starting at 1 and advanced by exactly one per mutation, as the spec counts them:
 *
 * - the dispatch message (the attempt's first server task only) is a `{message}` entry (ROLE_USER);
 * - a state different from the previous entry's is a `{status}` entry (several observers of the same
 *   transition, and repeated polls, are one entry; the ledger does not keep status messages);
 * - each artifact chunk advances the generation; the artifact carries the generation of its first
 *   chunk (`startGeneration`) and of its last (`endGeneration`, unset while it is still streaming).
 *
 * Timeline entries therefore have monotonic, not contiguous, generations, as the spec says. int64
 * values are strings (ProtoJSON). Parts carry only what the ledger recorded (media type, kind, size,
 * in part `metadata`), never content. What A2A has no field for (worker, attempt, a loss, refusals) is
 * in the Task's `metadata` under `a2a-ledger.` keys.
 */
import type { Reader } from "../store/store.ts";
import type { Tables } from "../store/schema.ts";
import { iso } from "./lineage.ts";
import { attemptCodec, dispatched, eventCodec, type AttemptRow, type EventRow } from "./rows.ts";

export const timelineSpecRevision = {
  repository: "a2aproject/A2A",
  pullRequest: 2129,
  revision: "b5fe6101b6d1ce9140b8292f141c39260274576d",
  base: "dev-1.1",
} as const;

/** Events of one correlation read at most; a longer history is cut and flagged. */
export const timelineEventLimit = 20_000;

type Json = Record<string, unknown>;

interface Part {
  kind: string;
  mediaType: string | null;
  sizeBytes: number;
}

interface TaskBuild {
  id: string;
  workerId: string;
  attempt: number | null;
  contextId: string | null;
  generation: number;
  timeline: Json[];
  lastState: string | null;
  lastStateAt: number | null;
  artifacts: Map<string, { artifactId: string; name: string | null; parts: Part[]; start: number; end: number | null }>;
  lostAt: number | null;
  refusals: Json[];
}

const gen = (n: number): string => String(n);

/** The A2A Tasks of a correlation's events (in log order) and attempts. Pure. */
export function a2aTasks(events: readonly EventRow[], attempts: readonly AttemptRow[]): Json[] {
  const tasks = new Map<string, TaskBuild>();
  const order: string[] = [];
  const firstTaskOfAttempt = new Set<number>();
  const sorted = [...events].sort((a, b) => a.occurredAt - b.occurredAt || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const taskOf = (e: EventRow, body: Json): TaskBuild => {
    const key = `${e.workerId ?? ""}\u0000${e.serverTaskId ?? ""}`;
    let t = tasks.get(key);
    if (t === undefined) {
      t = {
        id: e.serverTaskId ?? "",
        workerId: e.workerId ?? "",
        attempt: e.attempt,
        contextId: null,
        generation: 0,
        timeline: [],
        lastState: null,
        lastStateAt: null,
        artifacts: new Map(),
        lostAt: null,
        refusals: [],
      };
      tasks.set(key, t);
      order.push(key);
      const dispatch = attempts.find((a) => a.attempt === e.attempt && dispatched(a));
      if (e.attempt !== null && dispatch !== undefined && !firstTaskOfAttempt.has(e.attempt)) {
        firstTaskOfAttempt.add(e.attempt);
        t.generation += 1;
        t.timeline.push({
          message: {
            messageId: dispatch.messageId ?? "",
            taskId: t.id,
            role: "ROLE_USER",
            parts: [],
            metadata: {
              "a2a-ledger.dispatchedAt": iso(dispatch.dispatchedAt),
              "a2a-ledger.acceptedOutputModes": dispatch.acceptedModes,
              "a2a-ledger.observer": dispatch.observer,
            },
          },
          generation: gen(t.generation),
        });
      }
    }
    if (t.contextId === null && typeof body["contextId"] === "string") t.contextId = body["contextId"];
    return t;
  };
  for (const e of sorted) {
    if (e.kind !== "observation" || e.serverTaskId === null) continue;
    const body = JSON.parse(e.body) as Json;
    switch (e.type) {
      case "TaskStateObserved": {
        const t = taskOf(e, body);
        const state = String(body["state"]);
        if (state === t.lastState) break;
        t.generation += 1;
        t.lastState = state;
        t.lastStateAt = e.occurredAt;
        t.timeline.push({ status: { state, timestamp: iso(e.occurredAt) }, generation: gen(t.generation) });
        break;
      }
      case "ArtifactEmitted": {
        const t = taskOf(e, body);
        t.generation += 1;
        const artifactId = String(body["artifactId"]);
        const parts = (body["parts"] as Part[] | undefined) ?? [];
        let a = t.artifacts.get(artifactId);
        if (a === undefined || body["append"] !== true) {
          a = {
            artifactId,
            name: typeof body["name"] === "string" ? body["name"] : null,
            parts: [...parts],
            start: t.generation,
            end: null,
          };
          t.artifacts.set(artifactId, a);
        } else a.parts.push(...parts);
        if (body["lastChunk"] !== false) a.end = t.generation;
        break;
      }
      case "TaskNotFoundObserved": {
        const t = taskOf(e, body);
        t.lostAt ??= e.occurredAt;
        break;
      }
      case "EmissionRefused": {
        const t = taskOf(e, body);
        t.refusals.push({
          eventId: body["eventId"],
          at: iso(e.occurredAt),
          emission: body["emission"],
          kind: body["kind"],
          state: body["state"],
          parts: body["parts"],
          allowed: body["allowed"],
        });
        break;
      }
      default:
        break;
    }
  }
  return order.map((key) => {
    const t = tasks.get(key) as TaskBuild;
    const task: Json = {
      id: t.id,
      contextId: t.contextId ?? "",
      status: {
        state: t.lastState ?? "TASK_STATE_UNSPECIFIED",
        ...(t.lastStateAt === null ? {} : { timestamp: iso(t.lastStateAt) }),
      },
      artifacts: [...t.artifacts.values()].map((a) => ({
        artifactId: a.artifactId,
        ...(a.name === null ? {} : { name: a.name }),
        parts: a.parts.map((p) => ({
          ...(p.mediaType === null ? {} : { mediaType: p.mediaType }),
          metadata: { "a2a-ledger.kind": p.kind, "a2a-ledger.sizeBytes": p.sizeBytes },
        })),
        startGeneration: gen(a.start),
        ...(a.end === null ? {} : { endGeneration: gen(a.end) }),
      })),
      timeline: t.timeline,
      metadata: {
        "a2a-ledger.workerId": t.workerId,
        "a2a-ledger.attempt": t.attempt,
        "a2a-ledger.lostAt": iso(t.lostAt),
        "a2a-ledger.refusedEmissions": t.refusals,
      },
      generation: gen(Math.max(1, t.generation)),
    };
    return task;
  });
}

/** GET /v1/tasks/:correlationId/timeline?format=a2a; undefined when the correlation is unknown. */
export async function a2aTimeline(r: Reader, t: Tables, correlationId: string, timelineLength: number | undefined) {
  const known = await r.all(`SELECT 1 AS known FROM ${t.task} WHERE correlation_id = ?`, [correlationId]);
  if (known.length === 0) return undefined;
  const attempts = (
    await r.all(`SELECT * FROM ${t.attempt} WHERE correlation_id = ? ORDER BY attempt`, [correlationId])
  ).map((row) => attemptCodec.decode(row));
  const rows = await r.all(
    `SELECT * FROM ${t.event} WHERE correlation_id = ? AND kind = 'observation' ORDER BY occurred_at, id LIMIT ?`,
    [correlationId, timelineEventLimit + 1],
  );
  const events = rows.slice(0, timelineEventLimit).map((row) => eventCodec.decode(row));
  const tasks = a2aTasks(events, attempts);
  if (timelineLength !== undefined)
    for (const task of tasks) task["timeline"] = (task["timeline"] as Json[]).slice(-timelineLength);
  return {
    correlationId,
    format: "a2a",
    specification: timelineSpecRevision,
    truncated: rows.length > timelineEventLimit,
    tasks,
  };
}
