/**
 * Decoding one topic record with the catalogue's Serde: the decoded record, or why it cannot be read
 * (classified as every reader of the topics classifies it, `classifyDecodeFailure`). A registry that
 * cannot be reached is not the record's fault: that is an error for the whole read.
 */
import { classifyDecodeFailure, type Decoded, type Serde } from "@a2a-ledger/schemas/serde";
import type { TopicRecord } from "./topic-stream.ts";
import { TopicUnavailableError } from "./topic-stream.ts";

export async function decodeRecord(serde: Serde, record: TopicRecord): Promise<Decoded | string> {
  if (record.value === null) return "a tombstone (null value)";
  try {
    return await serde.decode(record.value);
  } catch (error) {
    const failure = classifyDecodeFailure(error);
    if (failure === undefined)
      throw new TopicUnavailableError(
        `the schema registry at ${serde.registryUrl} cannot be reached: ${(error as Error).message}`,
      );
    return failure.kind === "undecodable"
      ? failure.message
      : `the schema id is unknown or the bytes do not decode with it: ${failure.message}`;
  }
}
