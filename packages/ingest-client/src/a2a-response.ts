/**
 * What a worker's answer shows, in A2A terms: tasks and their states, status and artifact updates,
 * artifacts with their parts' media types, TaskNotFound. Reads v1.0 (ProtoJSON, `{task}` /
 * `{statusUpdate}` / `{artifactUpdate}` wrappers, `mediaType`) and v0.3 (`kind` discriminators,
 * `mimeType`, kebab-case states) alike. Pure and total: anything unrecognised yields no sighting.
 */
import type { PartKind } from "@a2a-ledger/schemas";

export interface PartSummary {
  kind: PartKind;
  mediaType: string | null;
  sizeBytes: number;
}

export interface ArtifactSighting {
  artifactId: string;
  name: string | null;
  parts: PartSummary[];
  /** The parts as JSON text: what distinguishes one chunk or version of an artifact from another. */
  content: string;
}

export type Sighting =
  | {
      kind: "task";
      taskId: string;
      contextId: string | null;
      state: string | null;
      timestamp: string | null;
      artifacts: ArtifactSighting[];
    }
  | { kind: "status"; taskId: string; contextId: string | null; state: string; timestamp: string | null }
  | { kind: "artifact"; taskId: string; artifact: ArtifactSighting; append: boolean; lastChunk: boolean }
  | { kind: "message"; taskId: string | null }
  | { kind: "task-not-found"; errorCode: string }
  | { kind: "error"; errorCode: string };

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
const text = (v: unknown): string | null => (typeof v === "string" && v !== "" ? v : null);

export const taskNotFoundJsonRpcCode = -32001;

/** Decoded size of base64 text without decoding it. */
function base64Size(b64: string): number {
  const clean = b64.replace(/[\s=]/g, "");
  return Math.floor((clean.length * 3) / 4);
}

const utf8Size = (s: string): number => Buffer.byteLength(s, "utf8");

function jsonSize(v: unknown): number {
  const json = JSON.stringify(v);
  return json === undefined ? 0 : utf8Size(json);
}

export function summarizePart(part: unknown): PartSummary {
  if (!isRecord(part)) return { kind: "OTHER", mediaType: null, sizeBytes: 0 };
  const file = isRecord(part["file"]) ? part["file"] : null;
  const mediaType =
    text(part["mediaType"]) ??
    text(part["mimeType"]) ??
    (file === null ? null : (text(file["mimeType"]) ?? text(file["mediaType"])));
  if (typeof part["text"] === "string") return { kind: "TEXT", mediaType, sizeBytes: utf8Size(part["text"]) };
  if (typeof part["raw"] === "string") return { kind: "RAW", mediaType, sizeBytes: base64Size(part["raw"]) };
  if (typeof part["url"] === "string") return { kind: "URL", mediaType, sizeBytes: utf8Size(part["url"]) };
  if ("data" in part && part["kind"] !== "file") return { kind: "DATA", mediaType, sizeBytes: jsonSize(part["data"]) };
  if (file !== null) {
    if (typeof file["bytes"] === "string") return { kind: "RAW", mediaType, sizeBytes: base64Size(file["bytes"]) };
    if (typeof file["uri"] === "string") return { kind: "URL", mediaType, sizeBytes: utf8Size(file["uri"]) };
  }
  return { kind: "OTHER", mediaType, sizeBytes: 0 };
}

export function artifactSighting(artifact: unknown): ArtifactSighting | null {
  if (!isRecord(artifact)) return null;
  const artifactId = text(artifact["artifactId"]);
  if (artifactId === null) return null;
  const parts = Array.isArray(artifact["parts"]) ? artifact["parts"] : [];
  return { artifactId, name: text(artifact["name"]), parts: parts.map(summarizePart), content: JSON.stringify(parts) };
}

function stateOf(status: unknown): { state: string | null; timestamp: string | null } {
  if (!isRecord(status)) return { state: null, timestamp: null };
  return { state: text(status["state"]), timestamp: text(status["timestamp"]) };
}

function taskSighting(task: Record<string, unknown>): Sighting | null {
  const taskId = text(task["id"]);
  if (taskId === null) return null;
  const artifacts = Array.isArray(task["artifacts"])
    ? task["artifacts"].map(artifactSighting).filter((a): a is ArtifactSighting => a !== null)
    : [];
  return { kind: "task", taskId, contextId: text(task["contextId"]), ...stateOf(task["status"]), artifacts };
}

function statusSighting(event: Record<string, unknown>): Sighting | null {
  const taskId = text(event["taskId"]);
  const { state, timestamp } = stateOf(event["status"]);
  if (taskId === null || state === null) return null;
  return { kind: "status", taskId, contextId: text(event["contextId"]), state, timestamp };
}

function artifactUpdateSighting(event: Record<string, unknown>): Sighting | null {
  const taskId = text(event["taskId"]);
  const artifact = artifactSighting(event["artifact"]);
  if (taskId === null || artifact === null) return null;
  // ProtoJSON leaves out false booleans: a missing flag is false.
  return {
    kind: "artifact",
    taskId,
    artifact,
    append: event["append"] === true,
    lastChunk: event["lastChunk"] === true,
  };
}

/** Sightings in an A2A result value: a SendMessage/stream result, a Task, or a ListTasks answer. */
export function sightingsOfPayload(value: unknown): Sighting[] {
  if (!isRecord(value)) return [];
  // v1.0 wrappers (SendMessageResponse, StreamResponse).
  if (isRecord(value["task"])) return nonNull([taskSighting(value["task"])]);
  if (isRecord(value["statusUpdate"])) return nonNull([statusSighting(value["statusUpdate"])]);
  if (isRecord(value["artifactUpdate"])) return nonNull([artifactUpdateSighting(value["artifactUpdate"])]);
  if (isRecord(value["message"]) && !("messageId" in value))
    return [{ kind: "message", taskId: text(value["message"]["taskId"]) }];
  if (Array.isArray(value["tasks"])) return nonNull(value["tasks"].map((t) => (isRecord(t) ? taskSighting(t) : null)));
  // v0.3 kinds, and a bare v1.0 Task (GetTask, CancelTask).
  switch (value["kind"]) {
    case "task":
      return nonNull([taskSighting(value)]);
    case "status-update":
      return nonNull([statusSighting(value)]);
    case "artifact-update":
      return nonNull([artifactUpdateSighting(value)]);
    case "message":
      return [{ kind: "message", taskId: text(value["taskId"]) }];
  }
  if ("id" in value && "status" in value) return nonNull([taskSighting(value)]);
  if ("messageId" in value && "role" in value) return [{ kind: "message", taskId: text(value["taskId"]) }];
  return [];
}

function nonNull(sightings: (Sighting | null)[]): Sighting[] {
  return sightings.filter((s): s is Sighting => s !== null);
}

/** A JSON-RPC response object (a whole answer or one stream event). */
export function sightingsOfJsonRpc(message: unknown): Sighting[] {
  if (!isRecord(message)) return [];
  if (isRecord(message["error"])) {
    const code = message["error"]["code"];
    if (code === taskNotFoundJsonRpcCode) return [{ kind: "task-not-found", errorCode: String(code) }];
    return [
      { kind: "error", errorCode: typeof code === "number" || typeof code === "string" ? String(code) : "unknown" },
    ];
  }
  return sightingsOfPayload(message["result"]);
}

/** Whether an HTTP+JSON error body is A2A's TaskNotFound (v1.0 `{error:{status:"NOT_FOUND"…}}`, v0.3 `{code:-32001}`). */
function isTaskNotFoundBody(body: unknown): boolean {
  if (!isRecord(body)) return false;
  if (body["code"] === taskNotFoundJsonRpcCode) return true;
  const error = body["error"];
  if (!isRecord(error)) return false;
  if (error["status"] === "NOT_FOUND" || error["code"] === taskNotFoundJsonRpcCode) return true;
  const details = Array.isArray(error["details"]) ? error["details"] : [];
  return details.some((d) => isRecord(d) && d["reason"] === "TASK_NOT_FOUND");
}

/** An HTTP+JSON answer (or one stream event) with its HTTP status. */
export function sightingsOfRest(status: number, body: unknown): Sighting[] {
  if (status === 404)
    return isTaskNotFoundBody(body)
      ? [{ kind: "task-not-found", errorCode: "404" }]
      : [{ kind: "error", errorCode: "404" }];
  if (status >= 400) return [{ kind: "error", errorCode: String(status) }];
  if (isRecord(body) && isRecord(body["error"]))
    return [{ kind: "error", errorCode: String(body["error"]["code"] ?? status) }];
  return sightingsOfPayload(body);
}
