/**
 * Decoding one topic record with the catalogue's Serde: the decoded record, or why it cannot be read
 * (as the reconciler's dead-letter reasons put it). A registry that cannot be reached is not the
 * record's fault: that is an error for the whole read.
 */
import { type Decoded, type Serde, SerdeError, WireFormatError } from "@a2a-ledger/schemas/serde";
import type { TopicRecord } from "./topic-stream.ts";
import { TopicUnavailableError } from "./topic-stream.ts";

function unreachable(error: unknown): boolean {
  const e = error as { status?: number; message?: string; code?: string; cause?: { code?: string } };
  if (e.status !== undefined) return e.status >= 500 || e.status === 429;
  return /ECONNREFUSED|ECONNRESET|ETIMEDOUT|EHOSTUNREACH|fetch failed|socket hang up|timeout/i.test(`${e.message ?? ""} ${e.code ?? ""} ${e.cause?.code ?? ""}`);
}

export async function decodeRecord(serde: Serde, record: TopicRecord): Promise<Decoded | string> {
  if (record.value === null) return "a tombstone (null value)";
  try {
    return await serde.decode(record.value);
  } catch (error) {
    if (error instanceof WireFormatError) return error.message;
    if (error instanceof SerdeError) return `the schema id is unknown or the bytes do not decode with it (${error.code}): ${error.message}`;
    if (unreachable(error)) throw new TopicUnavailableError(`the schema registry at ${serde.registryUrl} cannot be reached: ${(error as Error).message}`);
    return `the schema id is unknown or the bytes do not decode with it: ${(error as Error).message}`;
  }
}
