/**
 * What a request to the worker is, in A2A terms: the protocol and version the client spoke, the A2A
 * method (always by its v1.0 name), the task it concerns and, for SendMessage, what a dispatch record
 * needs. Pure: a request line, headers and the body bytes in, a description out. Never throws; a body
 * that cannot be read is described as such and still forwarded unchanged.
 */
import { attemptMetadataKey, correlationMetadataKey, skillMetadataKey } from "@a2a-ledger/ingest-client";

export type A2AMethod =
  | "SendMessage"
  | "SendStreamingMessage"
  | "GetTask"
  | "ListTasks"
  | "CancelTask"
  | "SubscribeToTask"
  | "CreateTaskPushNotificationConfig"
  | "GetTaskPushNotificationConfig"
  | "ListTaskPushNotificationConfigs"
  | "DeleteTaskPushNotificationConfig"
  | "GetExtendedAgentCard";

const v1Methods: ReadonlySet<string> = new Set<A2AMethod>([
  "SendMessage",
  "SendStreamingMessage",
  "GetTask",
  "ListTasks",
  "CancelTask",
  "SubscribeToTask",
  "CreateTaskPushNotificationConfig",
  "GetTaskPushNotificationConfig",
  "ListTaskPushNotificationConfigs",
  "DeleteTaskPushNotificationConfig",
  "GetExtendedAgentCard",
]);

/** v0.3 JSON-RPC method names → v1.0. */
const v03Methods: Readonly<Record<string, A2AMethod>> = {
  "message/send": "SendMessage",
  "message/stream": "SendStreamingMessage",
  "tasks/get": "GetTask",
  "tasks/cancel": "CancelTask",
  "tasks/resubscribe": "SubscribeToTask",
  "tasks/pushNotificationConfig/set": "CreateTaskPushNotificationConfig",
  "tasks/pushNotificationConfig/get": "GetTaskPushNotificationConfig",
  "tasks/pushNotificationConfig/list": "ListTaskPushNotificationConfigs",
  "tasks/pushNotificationConfig/delete": "DeleteTaskPushNotificationConfig",
  "agent/getAuthenticatedExtendedCard": "GetExtendedAgentCard",
};

export const correlationHeader = "a2a-ledger-correlation-id";
export const skillHeader = "a2a-ledger-skill-id";
export const attemptHeader = "a2a-ledger-attempt";
/**
 * Keys read from `message.metadata` (first) and the request's `metadata`. The plain key after the
 * namespaced one is read too, for clients that name these fields without the ledger's prefix.
 */
export { attemptMetadataKey, correlationMetadataKey, skillMetadataKey };
const plainKeys: Readonly<Record<string, string>> = {
  [correlationMetadataKey]: "correlationId",
  [skillMetadataKey]: "skillId",
  [attemptMetadataKey]: "attempt",
};

export interface DispatchFields {
  messageId: string;
  /** Set on a follow-up message to an existing task: not a new dispatch. */
  taskId: string | null;
  acceptedOutputModes: string[];
  skillId: string | null;
  attempt: number | null;
  /** From message or request metadata. */
  correlationId: string | null;
}

export type A2ARequest =
  | { kind: "card"; version: "1.0" | "0.3" }
  | {
      kind: "jsonrpc";
      version: "1.0" | "0.3";
      id: string | number | null;
      /** Null for a method that is not A2A (forwarded, nothing recorded). */
      method: A2AMethod | null;
      rawMethod: string;
      taskId: string | null;
      dispatch: DispatchFields | null;
    }
  | {
      kind: "rest";
      version: "1.0" | "0.3";
      method: A2AMethod;
      taskId: string | null;
      dispatch: DispatchFields | null;
      readable: boolean;
    }
  /** A call of the gRPC binding (`lf.a2a.v1.A2AService`), read by grpc/grpc-calls.ts. */
  | { kind: "grpc"; version: "1.0"; method: A2AMethod; taskId: string | null; dispatch: DispatchFields | null }
  /** A body that looks like JSON-RPC but is not valid JSON or not a request object. */
  | { kind: "malformed-jsonrpc"; version: "1.0" | "0.3"; reason: string }
  | { kind: "other"; version: "1.0" | "0.3" };

export interface RequestHead {
  method: string;
  /** Path and query as received. */
  url: string;
  headers: Readonly<Record<string, string | string[] | undefined>>;
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
const text = (v: unknown): string | null => (typeof v === "string" && v !== "" ? v : null);

export function headerValue(headers: RequestHead["headers"], name: string): string | undefined {
  const v = headers[name];
  return Array.isArray(v) ? v[0] : v;
}

/** `A2A-Version` header: 1.x is v1.0; absent or anything else is read as v0.3, as the spec says. */
export function protocolVersion(headers: RequestHead["headers"]): "1.0" | "0.3" {
  const v = headerValue(headers, "a2a-version")?.trim();
  return v !== undefined && /^1(\.\d+)?$/.test(v) ? "1.0" : "0.3";
}

export function isCardPath(path: string): boolean {
  return path.endsWith("/.well-known/agent-card.json");
}

function positiveInt(v: unknown): number | null {
  const n = typeof v === "string" && /^\d{1,6}$/.test(v.trim()) ? Number(v) : typeof v === "number" ? v : NaN;
  return Number.isInteger(n) && n >= 1 && n <= 100_000 ? n : null;
}

function fromMetadata(message: Record<string, unknown>, params: Record<string, unknown>, key: string): unknown {
  const plain = plainKeys[key];
  for (const metadata of [message["metadata"], params["metadata"]]) {
    if (!isRecord(metadata)) continue;
    if (metadata[key] !== undefined) return metadata[key];
    if (plain !== undefined && metadata[plain] !== undefined) return metadata[plain];
  }
  return undefined;
}

/** Dispatch fields of a SendMessage body (v1.0 or v0.3 shape), or null without a message. */
export function dispatchFields(params: unknown, headers: RequestHead["headers"]): DispatchFields | null {
  if (!isRecord(params) || !isRecord(params["message"])) return null;
  const message = params["message"];
  const configuration = isRecord(params["configuration"]) ? params["configuration"] : {};
  const modes = Array.isArray(configuration["acceptedOutputModes"])
    ? configuration["acceptedOutputModes"].filter((m): m is string => typeof m === "string")
    : [];
  const skill = text(headerValue(headers, skillHeader)) ?? text(fromMetadata(message, params, skillMetadataKey));
  const attempt =
    positiveInt(headerValue(headers, attemptHeader)) ?? positiveInt(fromMetadata(message, params, attemptMetadataKey));
  return {
    messageId: text(message["messageId"]) ?? "",
    taskId: text(message["taskId"]),
    acceptedOutputModes: modes,
    skillId: skill,
    attempt,
    correlationId: text(fromMetadata(message, params, correlationMetadataKey)),
  };
}

function taskIdOfParams(method: A2AMethod, params: unknown): string | null {
  if (!isRecord(params)) return null;
  if (method === "SendMessage" || method === "SendStreamingMessage")
    return isRecord(params["message"]) ? text(params["message"]["taskId"]) : null;
  if (method === "GetTask" || method === "CancelTask" || method === "SubscribeToTask") {
    const id = text(params["id"]);
    if (id !== null) return id;
    // Resource-name form "tasks/{id}" of older drafts.
    const name = text(params["name"]);
    return name?.startsWith("tasks/") ? name.slice("tasks/".length) || null : null;
  }
  return null;
}

const restRoutes: { method: string[]; pattern: RegExp; a2a: A2AMethod }[] = [
  { method: ["POST"], pattern: /\/message:send$/, a2a: "SendMessage" },
  { method: ["POST"], pattern: /\/message:stream$/, a2a: "SendStreamingMessage" },
  { method: ["POST"], pattern: /\/tasks\/([^/]+):cancel$/, a2a: "CancelTask" },
  { method: ["GET", "POST"], pattern: /\/tasks\/([^/]+):subscribe$/, a2a: "SubscribeToTask" },
  { method: ["GET"], pattern: /\/tasks\/([^/:]+)$/, a2a: "GetTask" },
  { method: ["GET"], pattern: /\/tasks$/, a2a: "ListTasks" },
];

function decodeSegment(s: string): string | null {
  try {
    return decodeURIComponent(s);
  } catch {
    return null;
  }
}

/** Which request this is. `body` is the complete request body (possibly empty). */
export function classifyRequest(head: RequestHead, body: Buffer): A2ARequest {
  const version = protocolVersion(head.headers);
  const path = head.url.split("?", 1)[0] ?? "";
  if (head.method === "GET" && isCardPath(path)) return { kind: "card", version };

  for (const route of restRoutes) {
    if (!route.method.includes(head.method)) continue;
    const match = route.pattern.exec(path);
    if (match === null) continue;
    const taskId = match[1] === undefined ? null : decodeSegment(match[1]);
    if (route.a2a !== "SendMessage" && route.a2a !== "SendStreamingMessage")
      return { kind: "rest", version, method: route.a2a, taskId, dispatch: null, readable: true };
    const parsed = parseJson(body);
    const dispatch = parsed.ok ? dispatchFields(parsed.value, head.headers) : null;
    return {
      kind: "rest",
      version,
      method: route.a2a,
      taskId: dispatch?.taskId ?? null,
      dispatch,
      readable: parsed.ok,
    };
  }

  if (head.method !== "POST" || body.length === 0) return { kind: "other", version };
  const parsed = parseJson(body);
  // A2A's only POST routes besides HTTP+JSON's are JSON-RPC endpoints: a body that is not JSON is a malformed call.
  if (!parsed.ok) return { kind: "malformed-jsonrpc", version, reason: parsed.reason };
  const value = parsed.value;
  if (!isRecord(value) || !("jsonrpc" in value) || !("method" in value)) {
    return Array.isArray(value) || (isRecord(value) && "jsonrpc" in value)
      ? {
          kind: "malformed-jsonrpc",
          version,
          reason: Array.isArray(value) ? "a JSON-RPC batch (A2A has none)" : "not a JSON-RPC request object",
        }
      : { kind: "other", version };
  }
  const rawMethod = typeof value["method"] === "string" ? value["method"] : "";
  const id = typeof value["id"] === "string" || typeof value["id"] === "number" ? value["id"] : null;
  if (value["jsonrpc"] !== "2.0" || rawMethod === "")
    return { kind: "malformed-jsonrpc", version, reason: 'jsonrpc must be "2.0" and method a non-empty string' };
  const method = v1Methods.has(rawMethod) ? (rawMethod as A2AMethod) : (v03Methods[rawMethod] ?? null);
  const params = value["params"];
  const dispatch =
    method === "SendMessage" || method === "SendStreamingMessage" ? dispatchFields(params, head.headers) : null;
  return {
    kind: "jsonrpc",
    version,
    id,
    method,
    rawMethod,
    taskId: method === null ? null : taskIdOfParams(method, params),
    dispatch,
  };
}

type Parsed = { ok: true; value: unknown } | { ok: false; reason: string };

export function parseJson(body: Buffer): Parsed {
  if (body.length === 0) return { ok: false, reason: "empty body" };
  try {
    return { ok: true, value: JSON.parse(body.toString("utf8")) };
  } catch (e) {
    return { ok: false, reason: `not JSON: ${(e as Error).message}` };
  }
}

/** Whether this request starts new work on the worker: a SendMessage without a task id. */
export function isNewDispatch(request: A2ARequest): boolean {
  if (request.kind !== "jsonrpc" && request.kind !== "rest" && request.kind !== "grpc") return false;
  return (
    (request.method === "SendMessage" || request.method === "SendStreamingMessage") &&
    request.dispatch !== null &&
    request.dispatch.taskId === null
  );
}
