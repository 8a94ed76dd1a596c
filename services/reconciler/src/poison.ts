/**
 * Sorting a record that cannot be processed into a dead-letter reason, and the DLQ record that keeps
 * it whole: the original key, value and headers, plus the reason and where it came from.
 */
import type { IHeaders, KafkaMessage } from "kafkajs";
import { dlqHeader } from "@a2a-ledger/kafka";
import { classifyDecodeFailure } from "@a2a-ledger/schemas/serde";
import { type DeadLetterReason, deadLetterReasons, PoisonRecordError } from "./errors.ts";

export { dlqHeader } from "@a2a-ledger/kafka";

/** A decode failure that says nothing about the record (registry unreachable) is not poison: retry it. */
export function classifyDecodeError(error: unknown): PoisonRecordError | undefined {
  if (error instanceof PoisonRecordError) return error;
  const failure = classifyDecodeFailure(error);
  if (failure === undefined) return undefined;
  return new PoisonRecordError(
    failure.kind === "undecodable" ? "RECONCILER_UNDECODABLE" : "RECONCILER_UNKNOWN_SCHEMA",
    failure.message,
  );
}

export interface DeadLetter {
  key: Buffer | null;
  value: Buffer | null;
  headers: IHeaders;
}

export function deadLetter(
  source: { topic: string; partition: number },
  message: KafkaMessage,
  error: PoisonRecordError,
): DeadLetter {
  return {
    key: message.key,
    value: message.value,
    headers: {
      ...(message.headers ?? {}),
      [dlqHeader.reason]: error.reason,
      [dlqHeader.detail]: `${deadLetterReasons[error.reason as DeadLetterReason].message}: ${error.message}`.slice(
        0,
        2_000,
      ),
      [dlqHeader.topic]: source.topic,
      [dlqHeader.partition]: String(source.partition),
      [dlqHeader.offset]: message.offset,
    },
  };
}
