/**
 * A re-dispatch (RedispatchCommanded): the logical task is sent to the target worker through its proxy,
 * under the same correlation id (header and message metadata), with the command's skill, attempt and
 * accepted output modes. The message text is the configured one for the skill — for the interrupted
 * state to resume when one is configured — and its messageId is derived from the decision id.
 *
 * `beforeSend` runs just before the message leaves (the journal writes "sending" there): an error before
 * it means nothing was sent; after it, the worker may have received the message. The dispatch is
 * recorded as of that moment (`occurredAt` is when it was sent, not when the worker answered); the
 * answer's state as of the answer.
 */
import { taskStateToJSON } from "@a2a-js/sdk";
import { A2AError } from "@a2a-js/sdk/errors";
import { normalizeTaskState } from "@a2a-ledger/core";
import type { ObservationInput } from "@a2a-ledger/ingest-client";
import type { RedispatchCommand } from "./command-record.ts";
import { DispatchAlert } from "./errors.ts";
import { answerState, redispatched, redispatchMessageId } from "./observations.ts";
import { callOptions, clientOf, fetchCard, ledgerMessage, ledgerMetadata, type LedgerNames } from "./worker-client.ts";
import { renderMessage, skillConfigFor, type WorkerConfig } from "./worker-config.ts";

export interface RedispatchOutcome {
  messageId: string;
  serverTaskId: string | null;
  observations: ObservationInput[];
}

/** The configured text for this command, or a DispatchAlert when the skill has none. */
export function redispatchText(command: RedispatchCommand, worker: WorkerConfig): string {
  const redispatch = skillConfigFor(worker, command.skillId)?.redispatch ?? null;
  if (redispatch === null)
    throw new DispatchAlert(
      "DISPATCHER_SKILL_NOT_CONFIGURED",
      `${worker.workerId} has no re-dispatch message for skill ${command.skillId ?? "(none)"} nor for "*"`,
    );
  const template =
    (command.resumeState === null ? undefined : redispatch.resume.get(command.resumeState)) ?? redispatch.message;
  return renderMessage(template, {
    correlationId: command.correlationId,
    attempt: command.attempt,
    skillId: command.skillId,
    resumeState: command.resumeState,
    fromServerTaskId: command.fromServerTaskId,
    workerId: command.targetWorkerId,
    decisionId: command.decisionId,
  });
}

export async function runRedispatch(
  command: RedispatchCommand,
  worker: WorkerConfig,
  workerUrl: string | null,
  timeoutMs: number,
  beforeSend: () => void | Promise<void>,
  now: () => number = Date.now,
): Promise<RedispatchOutcome> {
  const text = redispatchText(command, worker);
  const names: LedgerNames = {
    correlationId: command.correlationId,
    skillId: command.skillId,
    attempt: command.attempt,
  };
  const card = await fetchCard(worker.url, workerUrl, names, timeoutMs);
  let client;
  try {
    client = await clientOf(card, worker.transport);
  } catch (error) {
    throw new DispatchAlert(
      "DISPATCHER_CARD_UNAVAILABLE",
      `no client for ${worker.workerId} from its card: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  const messageId = redispatchMessageId(command.decisionId);
  const metadata: Record<string, string | number> = {
    [ledgerMetadata.correlationId]: command.correlationId,
    [ledgerMetadata.attempt]: command.attempt,
    [ledgerMetadata.decisionId]: command.decisionId,
  };
  if (command.skillId !== null) metadata[ledgerMetadata.skillId] = command.skillId;
  const configuration = {
    acceptedOutputModes: command.acceptedOutputModes,
    taskPushNotificationConfig: undefined,
    historyLength: undefined,
    returnImmediately: false,
  };
  await beforeSend();
  const sentAt = now();
  let result;
  try {
    result = await client.sendMessage(
      { tenant: "", message: ledgerMessage(text, messageId, metadata), configuration, metadata: undefined },
      callOptions(names, timeoutMs),
    );
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error);
    // An A2A error is the worker's answer: it did not take the task. Anything else leaves it unknown.
    if (error instanceof A2AError)
      throw new DispatchAlert(
        "DISPATCHER_DISPATCH_REFUSED",
        `${worker.workerId} refused message ${messageId}: ${detail}`,
      );
    throw new DispatchAlert(
      "DISPATCHER_OUTCOME_UNKNOWN",
      `message ${messageId} to ${worker.workerId} got no answer: ${detail}`,
    );
  }
  const answeredAt = now();
  const observations: ObservationInput[] = [redispatched(command, messageId, card, sentAt)];
  if (!("status" in result)) return { messageId, serverTaskId: null, observations };
  const state = normalizeTaskState(taskStateToJSON(result.status?.state ?? 0));
  if (state !== null && state !== "TASK_STATE_UNSPECIFIED")
    observations.push(answerState(command, { id: result.id, contextId: result.contextId, state }, answeredAt));
  return { messageId, serverTaskId: result.id, observations };
}
