/**
 * Why a record could not be decoded, in the terms every reader of the ledger's topics files a dead
 * letter under: the bytes are not Confluent wire format (`undecodable`), or the schema id is unknown or
 * the bytes do not decode with it (`unknown-schema`). A failure that says nothing about the record — the
 * registry unreachable, slow or overloaded — is no verdict (`undefined`): read the record again.
 */
import { SerdeError, WireFormatError } from "./serde.ts";

export type DecodeFailureKind = "undecodable" | "unknown-schema";

export interface DecodeFailure {
  kind: DecodeFailureKind;
  message: string;
}

export function classifyDecodeFailure(error: unknown): DecodeFailure | undefined {
  if (error instanceof WireFormatError) return { kind: "undecodable", message: error.message };
  // An unknown schema id, a writer schema that does not resolve to the catalogue's, bytes that do not decode.
  if (error instanceof SerdeError) return { kind: "unknown-schema", message: `${error.code}: ${error.message}` };
  const e = (typeof error === "object" && error !== null ? error : {}) as {
    status?: number;
    message?: string;
    code?: string;
    cause?: { code?: string };
  };
  const message = e.message ?? String(error);
  if (e.status === 404 || /not found/i.test(message)) return { kind: "unknown-schema", message };
  const transient =
    e.status !== undefined
      ? e.status >= 500 || e.status === 429
      : /ECONNREFUSED|ECONNRESET|ETIMEDOUT|EHOSTUNREACH|fetch failed|socket hang up|timeout/i.test(
          `${message} ${e.code ?? ""} ${e.cause?.code ?? ""}`,
        );
  if (transient) return undefined;
  // avsc refusing the bytes (truncated, trailing data, wrong schema) lands here.
  return { kind: "unknown-schema", message };
}
