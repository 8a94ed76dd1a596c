/**
 * Request bodies → a list of JSON values, one per event. Accepts one JSON object, a JSON array, or
 * NDJSON (one JSON value per line, blank lines ignored). UTF-8 only. Pure: no I/O.
 */
import { IngestError } from "./errors.ts";

export type BodyFormat = "json" | "ndjson";

const mediaTypes: Readonly<Record<string, BodyFormat>> = {
  "application/json": "json",
  "application/x-ndjson": "ndjson",
  "application/ndjson": "ndjson",
  "application/jsonl": "ndjson",
};

export const acceptedMediaTypes = Object.keys(mediaTypes);

/** The body format of a Content-Type header, or an INGEST_UNSUPPORTED_MEDIA_TYPE error. */
export function bodyFormatOf(contentType: string | undefined): BodyFormat {
  if (contentType === undefined || contentType.trim() === "") {
    throw new IngestError(
      "INGEST_UNSUPPORTED_MEDIA_TYPE",
      `Content-Type is missing; send ${acceptedMediaTypes.slice(0, 2).join(" or ")}`,
    );
  }
  const [essence = "", ...params] = contentType.split(";").map((p) => p.trim());
  const format = mediaTypes[essence.toLowerCase()];
  if (format === undefined) {
    throw new IngestError(
      "INGEST_UNSUPPORTED_MEDIA_TYPE",
      `Content-Type ${JSON.stringify(essence.slice(0, 100))} is not supported; send ${acceptedMediaTypes.slice(0, 2).join(" or ")}`,
    );
  }
  for (const param of params) {
    const [name = "", value = ""] = param.split("=").map((s) => s.trim().toLowerCase());
    if (name === "charset" && value.replace(/"/g, "") !== "utf-8" && value.replace(/"/g, "") !== "utf8") {
      throw new IngestError(
        "INGEST_UNSUPPORTED_MEDIA_TYPE",
        `charset ${JSON.stringify(value.slice(0, 40))} is not supported; bodies are UTF-8`,
      );
    }
  }
  return format;
}

const utf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: false });

function decode(body: Buffer): string {
  try {
    return utf8.decode(body);
  } catch {
    throw new IngestError("INGEST_MALFORMED_BODY", "The body is not valid UTF-8");
  }
}

function parseJson(text: string, index: number, what: string): unknown {
  try {
    return JSON.parse(text);
  } catch (e) {
    const reason = e instanceof Error ? e.message.slice(0, 200) : "unparseable";
    throw new IngestError("INGEST_MALFORMED_BODY", `${what} is not valid JSON`, [{ index, path: "", message: reason }]);
  }
}

/**
 * The events of a body, in order. `maxEvents` is enforced before values are parsed where the format
 * allows (NDJSON lines), so an oversized batch costs little.
 */
export function eventsOf(body: Buffer, format: BodyFormat, maxEvents: number): unknown[] {
  const text = decode(body);
  if (text.trim() === "") throw new IngestError("INGEST_MALFORMED_BODY", "The body is empty");
  if (format === "json") {
    const value = parseJson(text, 0, "The body");
    const events = Array.isArray(value) ? value : [value];
    if (events.length > maxEvents)
      throw new IngestError(
        "INGEST_TOO_MANY_EVENTS",
        `The batch holds ${events.length} events; the limit is ${maxEvents}`,
      );
    if (events.length === 0) throw new IngestError("INGEST_EMPTY_BATCH", "The JSON array holds no event");
    return events;
  }
  const lines: string[] = [];
  for (const line of text.split("\n")) {
    const trimmed = line.trim();
    if (trimmed === "") continue;
    lines.push(trimmed);
    if (lines.length > maxEvents)
      throw new IngestError("INGEST_TOO_MANY_EVENTS", `The batch holds more than ${maxEvents} events, the limit`);
  }
  return lines.map((line, index) => parseJson(line, index, `Line ${index + 1} of the NDJSON body`));
}
