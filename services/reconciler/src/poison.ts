/**
 * Sorting a record that cannot be processed into a dead-letter reason, and the DLQ record that keeps
 * it whole: the original key, value and headers, plus the reason and where it came from.
 */
import type { IHeaders, KafkaMessage } from "kafkajs";
import { SerdeError, WireFormatError } from "@a2a-ledger/schemas/serde";
import { type DeadLetterReason, deadLetterReasons, PoisonRecordError } from "./errors.ts";

export const dlqHeader = {
  reason: "a2a-ledger.dlq.reason",
  detail: "a2a-ledger.dlq.detail",
  topic: "a2a-ledger.dlq.source.topic",
  partition: "a2a-ledger.dlq.source.partition",
  offset: "a2a-ledger.dlq.source.offset",
} as const;

/** A decode failure that says nothing about the record (registry unreachable) is not poison: retry it. */
export function classifyDecodeError(error: unknown): PoisonRecordError | undefined {
  if (error instanceof PoisonRecordError) return error;
  if (error instanceof WireFormatError) return new PoisonRecordError("RECONCILER_UNDECODABLE", error.message);
  // An unknown schema id, a writer schema that does not resolve to the catalogue's, bytes that do not decode.
  if (error instanceof SerdeError) return new PoisonRecordError("RECONCILER_UNKNOWN_SCHEMA", `${error.code}: ${error.message}`);
  const e = error as { status?: number; message?: string; code?: string; cause?: { code?: string } };
  const message = e.message ?? String(error);
  if (e.status === 404 || /not found/i.test(message)) return new PoisonRecordError("RECONCILER_UNKNOWN_SCHEMA", message);
  const transient = e.status !== undefined ? e.status >= 500 || e.status === 429 : /ECONNREFUSED|ECONNRESET|ETIMEDOUT|fetch failed|socket hang up|timeout/i.test(`${message} ${e.code ?? ""} ${e.cause?.code ?? ""}`);
  if (transient) return undefined;
  // avsc refusing the bytes (truncated, trailing data, wrong schema) lands here.
  return new PoisonRecordError("RECONCILER_UNKNOWN_SCHEMA", message);
}

export interface DeadLetter {
  key: Buffer | null;
  value: Buffer | null;
  headers: IHeaders;
}

export function deadLetter(source: { topic: string; partition: number }, message: KafkaMessage, error: PoisonRecordError): DeadLetter {
  return {
    key: message.key,
    value: message.value,
    headers: {
      ...(message.headers ?? {}),
      [dlqHeader.reason]: error.reason,
      [dlqHeader.detail]: `${deadLetterReasons[error.reason as DeadLetterReason]}: ${error.message}`.slice(0, 2_000),
      [dlqHeader.topic]: source.topic,
      [dlqHeader.partition]: String(source.partition),
      [dlqHeader.offset]: message.offset,
    },
  };
}
