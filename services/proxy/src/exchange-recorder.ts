/**
 * Turns one request/answer exchange with the worker into observations: the dispatch (for a new
 * SendMessage), every state, artifact and TaskNotFound the answer shows, each under its correlation id
 * (see correlation.ts). The dispatch goes out first: at once when the request names its correlation,
 * else as soon as the answer shows the task whose id becomes the correlation id.
 */
import {
  dispatchObservation,
  sightingObservations,
  type ObservationInput,
  type ObservationSource,
  type Sighting,
} from "@a2a-ledger/ingest-client";
import type { ObservationChannel } from "@a2a-ledger/schemas";
import { isNewDispatch, type A2AMethod, type A2ARequest, type DispatchFields } from "./a2a-request.ts";
import { correlationOfId, type CorrelationMemory } from "./correlation.ts";

export interface RecorderDeps {
  source: ObservationSource;
  memory: CorrelationMemory;
  emit: (observation: ObservationInput) => void;
  now: () => number;
}

export function channelOf(method: A2AMethod): ObservationChannel {
  switch (method) {
    case "SendMessage":
      return "SEND_RESPONSE";
    case "SendStreamingMessage":
    case "SubscribeToTask":
      return "STREAM";
    case "GetTask":
      return "GET";
    default:
      return "OTHER";
  }
}

export class ExchangeRecorder {
  private pendingDispatch: { fields: DispatchFields; deliveredAt: number | null } | null = null;
  private readonly method: A2AMethod;
  private readonly taskId: string | null;

  constructor(
    private readonly deps: RecorderDeps,
    request: Extract<A2ARequest, { kind: "jsonrpc" | "rest" | "grpc" }> & { method: A2AMethod },
    /** From the header or the message metadata; null when the request names none. */
    private readonly explicit: string | null,
  ) {
    this.method = request.method;
    this.taskId = request.taskId;
    if (isNewDispatch(request) && request.dispatch !== null)
      this.pendingDispatch = { fields: request.dispatch, deliveredAt: null };
  }

  /** The request reached the worker: a new dispatch is now a fact. Idempotent. */
  delivered(): void {
    if (this.pendingDispatch === null || this.pendingDispatch.deliveredAt !== null) return;
    this.pendingDispatch.deliveredAt = this.deps.now();
    if (this.explicit !== null) this.flushDispatch(this.explicit);
  }

  /** Records what one answer (or one stream event) showed. */
  observe(sightings: readonly Sighting[]): void {
    // An answer proves the request arrived, whatever order the socket events came in.
    this.delivered();
    const at = this.deps.now();
    const asked = { method: this.method, taskId: this.taskId };
    for (const o of sightingObservations(
      this.deps.source,
      sightings,
      asked,
      (taskId) => this.correlationFor(taskId),
      channelOf(this.method),
      at,
    ))
      this.deps.emit(o);
  }

  /**
   * The exchange is over: a dispatch whose answer showed no task is recorded under its messageId, and
   * without one (an invalid message the worker refused) under a correlation of its own.
   */
  finish(): void {
    if (this.pendingDispatch?.deliveredAt != null)
      this.flushDispatch(this.explicit ?? correlationOfId("message", this.pendingDispatch.fields.messageId));
    this.pendingDispatch = null;
  }

  private correlationFor(taskId: string): string {
    let correlation: string;
    if (this.explicit !== null) {
      this.deps.memory.remember(taskId, this.explicit);
      correlation = this.explicit;
    } else {
      correlation =
        this.deps.memory.lookup(taskId) ?? this.deps.memory.remember(taskId, correlationOfId("task", taskId));
    }
    if (this.pendingDispatch?.deliveredAt != null) this.flushDispatch(correlation);
    return correlation;
  }

  private flushDispatch(correlationId: string): void {
    const pending = this.pendingDispatch;
    if (pending?.deliveredAt == null) return;
    this.pendingDispatch = null;
    this.deps.emit(dispatchObservation(this.deps.source, correlationId, pending.fields, pending.deliveredAt));
  }
}
