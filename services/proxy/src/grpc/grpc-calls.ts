/**
 * The gRPC binding of A2A v1.0 (`lf.a2a.v1.A2AService`, specification/a2a.proto), in the proxy's terms:
 * which call a request path is, what its request message says (the task it concerns, and for
 * SendMessage what a dispatch record needs) and what an answer message shows. Messages are decoded with
 * @a2a-js/sdk's own codecs and read as ProtoJSON (the SDK's `toJSON`), so that the rules that read the
 * JSON bindings (a2a-request.ts, and a2a-response.ts of @a2a-ledger/ingest-client) read gRPC too. Pure and total: a message that does not
 * decode is reported as unreadable, never thrown.
 */
import { ListTasksResponse, SendMessageRequest, SendMessageResponse, StreamResponse, Task } from "@a2a-js/sdk";
import { A2AService } from "@a2a-js/sdk/server/grpc";
import { dispatchFields, type A2AMethod, type A2ARequest, type RequestHead } from "../a2a-request.ts";
import { sightingsOfPayload, type Sighting } from "@a2a-ledger/ingest-client";
import { grpcCodeName, grpcCodes, type GrpcStatus } from "./grpc-status.ts";

export const a2aServiceName = "lf.a2a.v1.A2AService";

export interface GrpcCall {
  method: A2AMethod;
  /** Whether the worker answers with a stream of messages (SendStreamingMessage, SubscribeToTask). */
  serverStreaming: boolean;
  /** The request message as the proxy records it; throws on bytes that are not this message. */
  readRequest(bytes: Buffer, metadata: RequestHead["headers"]): GrpcRequest;
  /** What one answer message shows; null for calls whose answers show no task. Throws on bytes that are not the message. */
  readAnswer: ((bytes: Buffer) => Sighting[]) | null;
}

export type GrpcRequest = Extract<A2ARequest, { kind: "grpc" }>;

const request = (method: A2AMethod, taskId: string | null, dispatch: GrpcRequest["dispatch"] = null): GrpcRequest => ({
  kind: "grpc",
  version: "1.0",
  method,
  taskId,
  dispatch,
});
const nonEmpty = (s: string): string | null => (s === "" ? null : s);

function sendCall(
  method: "SendMessage" | "SendStreamingMessage",
  decode: (b: Buffer) => SendMessageRequest,
  readAnswer: (b: Buffer) => Sighting[],
): GrpcCall {
  return {
    method,
    serverStreaming: method === "SendStreamingMessage",
    readRequest(bytes, metadata) {
      const dispatch = dispatchFields(SendMessageRequest.toJSON(decode(bytes)), metadata);
      return request(method, dispatch?.taskId ?? null, dispatch);
    },
    readAnswer,
  };
}

function taskCall(
  method: A2AMethod,
  serverStreaming: boolean,
  id: (b: Buffer) => string,
  readAnswer: ((b: Buffer) => Sighting[]) | null,
): GrpcCall {
  return { method, serverStreaming, readRequest: (bytes) => request(method, nonEmpty(id(bytes))), readAnswer };
}

/** A call about no one task (ListTasks, push configurations, the extended card): its request is only checked to be the method's message. */
function otherCall(method: A2AMethod, decode: (b: Buffer) => unknown): GrpcCall {
  return {
    method,
    serverStreaming: false,
    readRequest(bytes) {
      decode(bytes);
      return request(method, null);
    },
    readAnswer: null,
  };
}

const service = A2AService;
const streamAnswer = (b: Buffer): Sighting[] =>
  sightingsOfPayload(StreamResponse.toJSON(service.sendStreamingMessage.responseDeserialize(b)));
const taskAnswer = (b: Buffer): Sighting[] => sightingsOfPayload(Task.toJSON(service.getTask.responseDeserialize(b)));

const calls: ReadonlyMap<string, GrpcCall> = new Map<string, GrpcCall>([
  [
    service.sendMessage.path,
    sendCall(
      "SendMessage",
      (b) => service.sendMessage.requestDeserialize(b),
      (b) => sightingsOfPayload(SendMessageResponse.toJSON(service.sendMessage.responseDeserialize(b))),
    ),
  ],
  [
    service.sendStreamingMessage.path,
    sendCall("SendStreamingMessage", (b) => service.sendStreamingMessage.requestDeserialize(b), streamAnswer),
  ],
  [service.getTask.path, taskCall("GetTask", false, (b) => service.getTask.requestDeserialize(b).id, taskAnswer)],
  [
    service.cancelTask.path,
    taskCall("CancelTask", false, (b) => service.cancelTask.requestDeserialize(b).id, taskAnswer),
  ],
  [
    service.subscribeToTask.path,
    taskCall("SubscribeToTask", true, (b) => service.subscribeToTask.requestDeserialize(b).id, streamAnswer),
  ],
  [
    service.listTasks.path,
    {
      ...otherCall("ListTasks", (b) => service.listTasks.requestDeserialize(b)),
      readAnswer: (b) => sightingsOfPayload(ListTasksResponse.toJSON(service.listTasks.responseDeserialize(b))),
    },
  ],
  [
    service.createTaskPushNotificationConfig.path,
    otherCall("CreateTaskPushNotificationConfig", (b) =>
      service.createTaskPushNotificationConfig.requestDeserialize(b),
    ),
  ],
  [
    service.getTaskPushNotificationConfig.path,
    otherCall("GetTaskPushNotificationConfig", (b) => service.getTaskPushNotificationConfig.requestDeserialize(b)),
  ],
  [
    service.listTaskPushNotificationConfigs.path,
    otherCall("ListTaskPushNotificationConfigs", (b) => service.listTaskPushNotificationConfigs.requestDeserialize(b)),
  ],
  [
    service.deleteTaskPushNotificationConfig.path,
    otherCall("DeleteTaskPushNotificationConfig", (b) =>
      service.deleteTaskPushNotificationConfig.requestDeserialize(b),
    ),
  ],
  [
    service.getExtendedAgentCard.path,
    otherCall("GetExtendedAgentCard", (b) => service.getExtendedAgentCard.requestDeserialize(b)),
  ],
]);

/** The A2A call of a request path (`/lf.a2a.v1.A2AService/GetTask`), or null for any other path. */
export function grpcCallOf(path: string): GrpcCall | null {
  return calls.get(path) ?? null;
}

export type ReadResult<T> = { ok: true; value: T } | { ok: false; reason: string };

/** Runs a decoder, turning its exception into a reason. */
export function readWith<T>(read: () => T): ReadResult<T> {
  try {
    return { ok: true, value: read() };
  } catch (e) {
    return { ok: false, reason: e instanceof Error ? e.message : String(e) };
  }
}

/**
 * What a call's final status shows: `NOT_FOUND` is TaskNotFound (errorCode `NOT_FOUND`, as DESIGN §2
 * maps it) unless its ErrorInfo names another reason; any other non-OK status is an error.
 */
export function sightingsOfStatus(status: GrpcStatus): Sighting[] {
  if (status.code === null || status.code === grpcCodes.OK) return [];
  if (status.code === grpcCodes.NOT_FOUND && (status.reasons.length === 0 || status.reasons.includes("TASK_NOT_FOUND")))
    return [{ kind: "task-not-found", errorCode: "NOT_FOUND" }];
  return [{ kind: "error", errorCode: grpcCodeName(status.code) }];
}
