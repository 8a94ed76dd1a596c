/**
 * Reads a copy of the worker's answer for observations as it passes (the client's bytes are relayed
 * elsewhere, untouched): event by event for a stream, whole (bounded by `maxRecordedBytes`) otherwise.
 * What the answer shows goes to the exchange's recorder; what cannot be read is counted as unrecorded.
 */
import zlib from "node:zlib";
import { parseJson, type A2ARequest } from "./a2a-request.ts";
import { sightingsOfJsonRpc, sightingsOfRest, type Sighting } from "@a2a-ledger/ingest-client";
import type { ExchangeRecorder } from "./exchange-recorder.ts";
import type { UnrecordedReason } from "./metrics.ts";
import { SseParser } from "./sse-parser.ts";

export type RecordedRequest = Extract<A2ARequest, { kind: "jsonrpc" | "rest" }>;

export interface AnswerReader {
  push(chunk: Buffer): void;
  end(): void;
}

export interface AnswerReaderOptions {
  maxRecordedBytes: number;
  unrecorded(reason: UnrecordedReason): void;
}

const isIdentity = (encoding: string | undefined): boolean =>
  encoding === undefined || encoding.trim() === "" || encoding.trim().toLowerCase() === "identity";

/** Decodes a content-encoded body copy for reading; null when the encoding is unknown or the data corrupt. */
export function decodedBody(body: Buffer, encoding: string | undefined, maxBytes: number): Buffer | null {
  if (isIdentity(encoding)) return body;
  const e = encoding?.trim().toLowerCase();
  try {
    if (e === "gzip" || e === "x-gzip") return zlib.gunzipSync(body, { maxOutputLength: maxBytes });
    if (e === "deflate") return zlib.inflateSync(body, { maxOutputLength: maxBytes });
    if (e === "br") return zlib.brotliDecompressSync(body, { maxOutputLength: maxBytes });
  } catch {
    return null;
  }
  return null;
}

/** A reader of one answer, or null when it cannot be read at all (a content-encoded stream). */
export function answerReader(
  request: RecordedRequest,
  status: number,
  stream: boolean,
  encoding: string | undefined,
  recorder: ExchangeRecorder,
  options: AnswerReaderOptions,
): AnswerReader | null {
  const sightingsOf = (value: unknown): Sighting[] =>
    request.kind === "jsonrpc" ? sightingsOfJsonRpc(value) : sightingsOfRest(status, value);
  if (stream) {
    if (!isIdentity(encoding)) {
      options.unrecorded("encoded_body");
      return null;
    }
    const parser = new SseParser(
      (event) => {
        const parsed = parseJson(Buffer.from(event.data));
        if (parsed.ok) recorder.observe(sightingsOf(parsed.value));
      },
      () => options.unrecorded("oversized_event"),
      options.maxRecordedBytes,
    );
    return { push: (chunk) => parser.push(chunk), end: () => parser.end() };
  }
  const chunks: Buffer[] = [];
  let size = 0;
  let tooLarge = false;
  return {
    push(chunk) {
      if (tooLarge) return;
      size += chunk.length;
      if (size > options.maxRecordedBytes) {
        tooLarge = true;
        chunks.length = 0;
        options.unrecorded("body_too_large");
        return;
      }
      chunks.push(chunk);
    },
    end() {
      if (tooLarge) return;
      const bytes = decodedBody(Buffer.concat(chunks, size), encoding, options.maxRecordedBytes);
      if (bytes === null) return options.unrecorded("encoded_body");
      const parsed = parseJson(bytes);
      if (parsed.ok) recorder.observe(sightingsOf(parsed.value));
      else if (status === 404) recorder.observe(sightingsOfRest(404, null));
    },
  };
}
