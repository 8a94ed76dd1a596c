/**
 * The spool's record framing, pure: a record is `length` (u32 BE, bytes of the body) · `crc32` (u32 BE,
 * of the body) · body (UTF-8 JSON). A body is either an observation with its sequence number
 * `{"s": seq, "o": observation}` or an acknowledgement `{"a": seq}`: every observation up to `seq` has
 * been acknowledged by the ledger (or dropped for good) and is never needed again.
 *
 * Reading stops at the first record that is cut short or whose checksum or JSON does not hold: after a
 * crash only the last record of a segment can be torn (records are appended, and each batch is fsynced
 * before the next is written), so what follows a bad record is not trusted.
 */
import { crc32 } from "node:zlib";
import type { ObservationInput } from "@a2a-ledger/ingest-client";

export const headerBytes = 8;
/** Larger bodies are not records (a length read from garbage). */
export const maxBodyBytes = 256 * 1024 * 1024;

export type SpoolBody =
  | { kind: "observation"; seq: number; observation: ObservationInput }
  | { kind: "ack"; seq: number };

export function encodeRecord(body: SpoolBody): Buffer {
  const json = Buffer.from(
    JSON.stringify(body.kind === "observation" ? { s: body.seq, o: body.observation } : { a: body.seq }),
    "utf8",
  );
  const record = Buffer.allocUnsafe(headerBytes + json.length);
  record.writeUInt32BE(json.length, 0);
  record.writeUInt32BE(crc32(json), 4);
  json.copy(record, headerBytes);
  return record;
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
const isSeq = (v: unknown): v is number => typeof v === "number" && Number.isSafeInteger(v) && v >= 0;

function parseBody(json: Buffer): SpoolBody | null {
  let value: unknown;
  try {
    value = JSON.parse(json.toString("utf8"));
  } catch {
    return null;
  }
  if (!isRecord(value)) return null;
  if (isSeq(value["a"])) return { kind: "ack", seq: value["a"] };
  const o = value["o"];
  if (isSeq(value["s"]) && isRecord(o) && typeof o["type"] === "string" && typeof o["eventId"] === "string")
    return { kind: "observation", seq: value["s"], observation: o as unknown as ObservationInput };
  return null;
}

export interface DecodedSegment {
  records: { body: SpoolBody; bytes: number }[];
  /** Where reading stopped before the end: the offset of the first bad record and why; null when the segment read whole. */
  stoppedAt: { offset: number; reason: "cut-short" | "checksum" | "not-a-record" } | null;
}

/** Every good record of a segment's bytes, in order, up to the first bad one. */
export function decodeSegment(bytes: Buffer): DecodedSegment {
  const records: DecodedSegment["records"] = [];
  let offset = 0;
  while (offset < bytes.length) {
    if (bytes.length - offset < headerBytes) return { records, stoppedAt: { offset, reason: "cut-short" } };
    const length = bytes.readUInt32BE(offset);
    if (length > maxBodyBytes) return { records, stoppedAt: { offset, reason: "not-a-record" } };
    if (bytes.length - offset - headerBytes < length) return { records, stoppedAt: { offset, reason: "cut-short" } };
    const json = bytes.subarray(offset + headerBytes, offset + headerBytes + length);
    if (crc32(json) !== bytes.readUInt32BE(offset + 4)) return { records, stoppedAt: { offset, reason: "checksum" } };
    const body = parseBody(json);
    if (body === null) return { records, stoppedAt: { offset, reason: "not-a-record" } };
    records.push({ body, bytes: headerBytes + length });
    offset += headerBytes + length;
  }
  return { records, stoppedAt: null };
}
