/**
 * An A2A client of one worker for orchestrators, on @a2a-js/sdk's own client, that records what it sees
 * straight to the ledger (no proxy needed) and answers in typed results (results.ts):
 *
 * - `connect` fetches the worker's card (recorded as AgentCardObserved under `card:<workerId>`) and
 *   builds the SDK client from it; every dispatch names the card's hash it relied on;
 * - `dispatch` sends a new task under a durable correlation id, carried in the message metadata (and in
 *   the ledger's headers), and records the dispatch, then every state and artifact of the answer;
 * - `followUp` sends a message to a task the worker already has (input for an interrupted task);
 * - `getTask` asks for a task: a TaskNotFound is `indeterminate` when the last state known of the task
 *   was not terminal, `purged` when it was, `unknown-task` when none is known — never an exception.
 *
 * The observations are built by `@a2a-ledger/ingest-client` (the same builders and answer reader the
 * recording proxy uses) from the answer's ProtoJSON, so the ledger sees the same facts either way.
 * Recording goes through an ObservationRecorder (recorder.ts) and never delays or loses the answer;
 * `recorder: null` records nothing (a recording proxy in front of the worker already does).
 */
import { randomUUID } from "node:crypto";
import { AgentCard, Role, Task, taskStateToJSON, type Message, type Part } from "@a2a-js/sdk";
import { ClientFactory, ClientFactoryOptions, type Client, type RequestOptions } from "@a2a-js/sdk/client";
import { A2AError, isRestError, TaskNotFoundError } from "@a2a-js/sdk/errors";
import { cardHash, normalizeTaskState } from "@a2a-ledger/core";
import {
  attemptHeaderName,
  attemptMetadataKey,
  cardObservation,
  correlationHeaderName,
  correlationMetadataKey,
  dispatchObservation,
  maxAgeOf,
  sightingObservations,
  sightingsOfPayload,
  skillHeaderName,
  skillMetadataKey,
  TaskSightings,
  taskNotFoundObservation,
  type ObservationInput,
  type ObservationSource,
} from "@a2a-ledger/ingest-client";
import type { ObservationChannel, TaskState } from "@a2a-ledger/schemas";
import { A2AClientError } from "./errors.ts";
import { notFoundVerdict } from "./not-found-verdict.ts";
import type { ObservationRecorder } from "./recorder.ts";
import type { GetTaskOutcome, SendOutcome, TaskAnswer } from "./results.ts";
import { TaskMemory } from "./task-memory.ts";

export const agentCardPath = "/.well-known/agent-card.json";

export type ClientTransport = "JSONRPC" | "HTTP+JSON";

export interface LedgerClientOptions {
  workerId: string;
  /** The worker's base URL: its card is at `${url}/.well-known/agent-card.json`. */
  url: string;
  /** Who is observing, as the ledger records it (e.g. `orchestrator:billing`). */
  observer: string;
  /** Where observations go; null records nothing (a recording proxy in front of the worker does). */
  recorder: ObservationRecorder | null;
  /** Default JSONRPC. */
  transport?: ClientTransport;
  /** Per call; default 60 s. */
  timeoutMs?: number;
  now?: () => number;
}

export interface DispatchCall {
  correlationId: string;
  text: string;
  skillId?: string | null;
  /** The output modes the orchestrator accepts; empty accepts anything. */
  acceptedOutputModes: string[];
  /** Default 1. */
  attempt?: number;
  /** Default a new UUID. The ledger de-duplicates a dispatch by it, so a retry of the same send keeps it. */
  messageId?: string;
}

export interface TaskCall {
  correlationId: string;
  taskId: string;
  /**
   * The last state the caller knows of the task (e.g. kept across a restart of the orchestrator); used
   * when this client saw none itself.
   */
  lastKnownState?: TaskState | null;
}

export interface FetchedCard {
  /** The card as the worker served it. */
  json: Record<string, unknown>;
  /** sha256 of its RFC 8785 form: the ledger's card identity. */
  hash: string;
  fetchedAt: number;
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

function requireText(value: string, name: string): void {
  if (typeof value !== "string" || value.trim() === "")
    throw new A2AClientError("A2A_CLIENT_BAD_REQUEST", `${name} must be a non-empty string`);
}

/** The ledger's names of a call as message metadata: the correlation always, skill and attempt when known. */
export function ledgerMetadataOf(names: {
  correlationId: string;
  skillId?: string | null;
  attempt?: number;
}): Record<string, string | number> {
  const out: Record<string, string | number> = { [correlationMetadataKey]: names.correlationId };
  if (names.skillId !== undefined && names.skillId !== null) out[skillMetadataKey] = names.skillId;
  if (names.attempt !== undefined) out[attemptMetadataKey] = names.attempt;
  return out;
}

/** The same names as HTTP headers, for a call without a message (GetTask) and for recording proxies. */
export function ledgerHeadersOf(names: {
  correlationId: string;
  skillId?: string | null;
  attempt?: number;
}): Record<string, string> {
  const out: Record<string, string> = { [correlationHeaderName]: names.correlationId };
  if (names.skillId !== undefined && names.skillId !== null) out[skillHeaderName] = names.skillId;
  if (names.attempt !== undefined) out[attemptHeaderName] = String(names.attempt);
  return out;
}

function textMessage(
  text: string,
  messageId: string,
  metadata: Record<string, string | number>,
  follow?: { taskId: string; contextId: string },
): Message {
  const part: Part = {
    content: { $case: "text", value: text },
    metadata: undefined,
    filename: "",
    mediaType: "text/plain",
  };
  return {
    messageId,
    contextId: follow?.contextId ?? "",
    taskId: follow?.taskId ?? "",
    role: Role.ROLE_USER,
    parts: [part],
    metadata,
    extensions: [],
    referenceTaskIds: [],
  };
}

/** Whether an error is the worker's A2A answer (it answered, with an error) rather than no answer. */
const isA2AAnswer = (e: unknown): e is A2AError => e instanceof A2AError;

/**
 * Whether the call got no answer at all: fetch's network failure (refused, reset, DNS) or the deadline.
 * Any other error the SDK throws comes from reading an answer that arrived (not JSON, no payload).
 */
function isNoAnswer(e: unknown): boolean {
  if (!(e instanceof Error)) return false;
  if (e.name === "TimeoutError" || e.name === "AbortError") return true;
  return e instanceof TypeError && e.message === "fetch failed";
}

export class LedgerA2AClient {
  private readonly memory = new TaskMemory();
  private readonly source: ObservationSource;
  private readonly now: () => number;
  private readonly timeoutMs: number;

  private constructor(
    private readonly options: LedgerClientOptions,
    private readonly client: Client,
    /** The card the client was built from. */
    readonly card: FetchedCard,
  ) {
    this.source = { workerId: options.workerId, observer: options.observer, sightings: new TaskSightings() };
    this.now = options.now ?? Date.now;
    this.timeoutMs = options.timeoutMs ?? 60_000;
  }

  get workerId(): string {
    return this.options.workerId;
  }

  /** Fetches the worker's card (recording the fetch) and builds the SDK client from it. */
  static async connect(options: LedgerClientOptions): Promise<LedgerA2AClient> {
    requireText(options.workerId, "workerId");
    requireText(options.observer, "observer");
    const base = options.url.replace(/\/+$/, "");
    const cardUrl = `${base}${agentCardPath}`;
    let response: Response;
    try {
      response = await fetch(cardUrl, {
        headers: { accept: "application/json", "A2A-Version": "1.0" },
        signal: AbortSignal.timeout(options.timeoutMs ?? 60_000),
      });
    } catch (e) {
      throw new A2AClientError(
        "A2A_CLIENT_CARD_UNAVAILABLE",
        `${cardUrl}: ${e instanceof Error ? e.message : String(e)}`,
        undefined,
        { cause: e },
      );
    }
    const text = await response.text();
    if (response.status !== 200)
      throw new A2AClientError("A2A_CLIENT_CARD_UNAVAILABLE", `${cardUrl} answered ${response.status}`, {
        status: response.status,
        body: text.slice(0, 500),
      });
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      throw new A2AClientError("A2A_CLIENT_CARD_UNAVAILABLE", `${cardUrl} is not JSON`, { body: text.slice(0, 500) });
    }
    if (!isRecord(json)) throw new A2AClientError("A2A_CLIENT_CARD_UNAVAILABLE", `${cardUrl} is not a JSON object`);
    const fetchedAt = (options.now ?? Date.now)();
    let client: Client;
    try {
      const factory = new ClientFactory(
        ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
          preferredTransports: [options.transport ?? "JSONRPC"],
        }),
      );
      client = await factory.createFromAgentCard(AgentCard.fromJSON(json));
    } catch (e) {
      throw new A2AClientError(
        "A2A_CLIENT_CARD_UNAVAILABLE",
        `no A2A client from the card at ${cardUrl}: ${e instanceof Error ? e.message : String(e)}`,
        undefined,
        { cause: e },
      );
    }
    const card: FetchedCard = { json, hash: cardHash(json), fetchedAt };
    options.recorder?.record([
      cardObservation(
        { workerId: options.workerId, observer: options.observer },
        `card:${options.workerId}`,
        {
          cardUrl,
          card: text,
          cacheMaxAgeSeconds: maxAgeOf(response.headers.get("cache-control") ?? undefined),
          etag: response.headers.get("etag"),
        },
        fetchedAt,
      ),
    ]);
    return new LedgerA2AClient(options, client, card);
  }

  /** A new task under `call.correlationId` (blocking until the worker answers: a final or interrupted state, or a message). */
  async dispatch(call: DispatchCall): Promise<SendOutcome> {
    requireText(call.correlationId, "correlationId");
    const messageId = call.messageId ?? randomUUID();
    const names = { correlationId: call.correlationId, skillId: call.skillId ?? null, attempt: call.attempt ?? 1 };
    const message = textMessage(call.text, messageId, ledgerMetadataOf(names));
    const configuration = {
      acceptedOutputModes: call.acceptedOutputModes,
      taskPushNotificationConfig: undefined,
      historyLength: undefined,
      returnImmediately: false,
    };
    const sentAt = this.now();
    const dispatched = dispatchObservation(
      this.source,
      call.correlationId,
      {
        messageId,
        skillId: names.skillId,
        acceptedOutputModes: call.acceptedOutputModes,
        attempt: names.attempt,
        card: { hash: this.card.hash, fetchedAt: this.card.fetchedAt },
      },
      sentAt,
    );
    return this.send(
      call.correlationId,
      () =>
        this.client.sendMessage({ tenant: "", message, configuration, metadata: undefined }, this.callOptions(names)),
      [dispatched],
    );
  }

  /** A message to a task the worker has (the input an interrupted task waits for). Not a new dispatch. */
  async followUp(
    task: { correlationId: string; taskId: string; contextId: string },
    text: string,
  ): Promise<SendOutcome> {
    requireText(task.correlationId, "correlationId");
    requireText(task.taskId, "taskId");
    const names = { correlationId: task.correlationId };
    const message = textMessage(text, randomUUID(), ledgerMetadataOf(names), {
      taskId: task.taskId,
      contextId: task.contextId,
    });
    return this.send(
      task.correlationId,
      () =>
        this.client.sendMessage(
          { tenant: "", message, configuration: undefined, metadata: undefined },
          this.callOptions(names),
        ),
      [],
    );
  }

  /** The task as the worker knows it, or what its TaskNotFound means (results.ts). */
  async getTask(call: TaskCall): Promise<GetTaskOutcome> {
    requireText(call.correlationId, "correlationId");
    requireText(call.taskId, "taskId");
    let task: Task;
    try {
      task = await this.client.getTask(
        { tenant: "", id: call.taskId, historyLength: 0 },
        this.callOptions({ correlationId: call.correlationId }),
      );
    } catch (e) {
      if (e instanceof TaskNotFoundError) {
        const errorCode = isRestError(e) ? "404" : "-32001";
        this.record([
          taskNotFoundObservation(this.source, call.correlationId, call.taskId, "GetTask", errorCode, this.now()),
        ]);
        const lastState = this.memory.lastState(call.taskId) ?? call.lastKnownState ?? null;
        return notFoundVerdict({
          correlationId: call.correlationId,
          workerId: this.workerId,
          serverTaskId: call.taskId,
          errorCode,
          lastState,
        });
      }
      if (isA2AAnswer(e))
        return { kind: "refused", correlationId: call.correlationId, workerId: this.workerId, error: e };
      throw isNoAnswer(e) ? this.noAnswer(e) : this.malformed(e);
    }
    return this.taskAnswer(call.correlationId, task, "GET", { method: "GetTask", taskId: call.taskId });
  }

  private callOptions(names: { correlationId: string; skillId?: string | null; attempt?: number }): RequestOptions {
    return { serviceParameters: ledgerHeadersOf(names), signal: AbortSignal.timeout(this.timeoutMs) };
  }

  private record(observations: ObservationInput[]): void {
    this.options.recorder?.record(observations);
  }

  private noAnswer(e: unknown): A2AClientError {
    const detail = e instanceof Error ? e.message : String(e);
    return new A2AClientError(
      "A2A_CLIENT_WORKER_UNREACHABLE",
      `${this.workerId} gave no A2A answer: ${detail}`,
      undefined,
      { cause: e },
    );
  }

  private malformed(e: unknown): A2AClientError {
    const detail = e instanceof Error ? e.message : String(e);
    return new A2AClientError(
      "A2A_CLIENT_MALFORMED_ANSWER",
      `${this.workerId} answered something that is not an A2A answer: ${detail}`,
      undefined,
      { cause: e },
    );
  }

  private async send(
    correlationId: string,
    call: () => Promise<Task | Message>,
    before: ObservationInput[],
  ): Promise<SendOutcome> {
    let result: Task | Message;
    try {
      result = await call();
    } catch (e) {
      // An A2A error is an answer: the message arrived, so a dispatch is a fact. Anything else leaves it unknown.
      if (isA2AAnswer(e)) {
        this.record(before);
        return { kind: "refused", correlationId, workerId: this.workerId, error: e };
      }
      if (isNoAnswer(e)) throw this.noAnswer(e);
      // An answer arrived, unreadable: the message reached the worker, so the dispatch is recorded.
      this.record(before);
      throw this.malformed(e);
    }
    this.record(before);
    const answer: unknown = result;
    if (!isRecord(answer))
      throw new A2AClientError(
        "A2A_CLIENT_MALFORMED_ANSWER",
        `${this.workerId} answered neither a task nor a message`,
        { answer },
      );
    if (!("status" in result)) {
      if ("messageId" in answer) return { kind: "message", correlationId, workerId: this.workerId, message: result };
      throw new A2AClientError(
        "A2A_CLIENT_MALFORMED_ANSWER",
        `${this.workerId} answered neither a task nor a message`,
        { answer },
      );
    }
    return this.taskAnswer(correlationId, result, "SEND_RESPONSE", { method: "SendMessage", taskId: null });
  }

  private taskAnswer(
    correlationId: string,
    task: Task,
    via: ObservationChannel,
    asked: { method: string; taskId: string | null },
  ): TaskAnswer {
    let json: unknown;
    try {
      json = Task.toJSON(task);
    } catch (e) {
      throw new A2AClientError(
        "A2A_CLIENT_MALFORMED_ANSWER",
        `${this.workerId} answered a task that is not an A2A Task`,
        undefined,
        { cause: e },
      );
    }
    if (typeof task.id !== "string" || task.id === "")
      throw new A2AClientError("A2A_CLIENT_MALFORMED_ANSWER", `${this.workerId} answered a task without an id`, {
        task: json,
      });
    const rawState =
      isRecord(json) && isRecord(json["status"]) && typeof json["status"]["state"] === "string"
        ? json["status"]["state"]
        : taskStateToJSON(task.status?.state ?? 0);
    const state = normalizeTaskState(rawState) ?? "TASK_STATE_UNSPECIFIED";
    this.memory.remember(task.id, state);
    this.record(
      sightingObservations(
        this.source,
        sightingsOfPayload({ task: json }),
        asked,
        () => correlationId,
        via,
        this.now(),
      ),
    );
    return { kind: "task", correlationId, workerId: this.workerId, task, state, rawState };
  }
}
