/**
 * What the client answers, as discriminated unions on `kind` the caller must handle. A TaskNotFound is
 * never an exception: whether it means "lost, not finished" or "finished and purged" depends on the last
 * state seen of the task, and the caller must treat the two differently (DESIGN §4, R4 and R5).
 *
 * The Python client (`clients/python`) names the same results: `TaskAnswer`, `MessageAnswer`,
 * `Refused`, `Indeterminate`, `Purged`, `UnknownTask`, with the same `kind` strings.
 */
import type { A2AError } from "@a2a-js/sdk/errors";
import type { Message, Task } from "@a2a-js/sdk";
import type { TaskState } from "@a2a-ledger/schemas";

/** The worker answered with a task: its state normalised (a state outside the spec is UNSPECIFIED, `rawState` keeps it). */
export interface TaskAnswer {
  kind: "task";
  correlationId: string;
  workerId: string;
  task: Task;
  state: TaskState;
  rawState: string;
}

/** The worker answered a dispatch with a message and no task. */
export interface MessageAnswer {
  kind: "message";
  correlationId: string;
  workerId: string;
  message: Message;
}

/** The worker answered with an A2A error other than TaskNotFound (e.g. ContentTypeNotSupported): it did not take the message. */
export interface Refused {
  kind: "refused";
  correlationId: string;
  workerId: string;
  error: A2AError;
}

/**
 * TaskNotFound for a task whose last known state was not terminal (submitted, working, input- or
 * auth-required): the worker lost it. Neither failed nor resumable on that worker; the ledger decides
 * (TaskIndeterminate, then a re-dispatch or ReconciliationBlocked).
 */
export interface Indeterminate {
  kind: "indeterminate";
  correlationId: string;
  workerId: string;
  serverTaskId: string;
  lastState: TaskState;
  /** The error code the worker answered: "-32001" (JSON-RPC) or "404" (HTTP+JSON). */
  errorCode: string;
}

/** TaskNotFound for a task last seen in a terminal state: legal, the worker purged it (R4). */
export interface Purged {
  kind: "purged";
  correlationId: string;
  workerId: string;
  serverTaskId: string;
  lastState: TaskState;
  errorCode: string;
}

/** TaskNotFound for a task this client never saw (and the caller named no last state): nothing can be concluded. */
export interface UnknownTask {
  kind: "unknown-task";
  correlationId: string;
  workerId: string;
  serverTaskId: string;
  errorCode: string;
}

export type SendOutcome = TaskAnswer | MessageAnswer | Refused;
export type GetTaskOutcome = TaskAnswer | Indeterminate | Purged | UnknownTask | Refused;
export type NotFoundOutcome = Indeterminate | Purged | UnknownTask;
