/**
 * What the ledger records of an A2A part (kind, media type, size), from its ProtoJSON form: exactly
 * one of `text`, `raw` (base64), `url`, `data`, plus `mediaType`.
 */
import type { PartSummary } from "./emission-check.ts";

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

export function summarizeJsonPart(part: unknown): PartSummary {
  if (!isRecord(part)) return { kind: "OTHER", mediaType: null, sizeBytes: 0 };
  const mediaType = typeof part["mediaType"] === "string" && part["mediaType"] !== "" ? part["mediaType"] : null;
  if (typeof part["text"] === "string")
    return { kind: "TEXT", mediaType, sizeBytes: Buffer.byteLength(part["text"], "utf8") };
  if (typeof part["raw"] === "string")
    return { kind: "RAW", mediaType, sizeBytes: Buffer.from(part["raw"], "base64").length };
  if (typeof part["url"] === "string")
    return { kind: "URL", mediaType, sizeBytes: Buffer.byteLength(part["url"], "utf8") };
  if ("data" in part)
    return { kind: "DATA", mediaType, sizeBytes: Buffer.byteLength(JSON.stringify(part["data"]) ?? "", "utf8") };
  return { kind: "OTHER", mediaType, sizeBytes: 0 };
}
