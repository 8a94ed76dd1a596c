/**
 * Observations from an NDJSON file: one ingest-JSON object per line, blank lines allowed. A bad line is
 * an error naming the line number and the field path — never skipped. Lines are capped at 1 MiB and must
 * be valid UTF-8.
 */
import { createReadStream, statSync } from "node:fs";
import type { Observation } from "@a2a-ledger/schemas";
import { parseObservationJson } from "@a2a-ledger/core";
import { chunkSize, InputError, type ObservationChunk, type ObservationSource } from "./observation-source.ts";

export const maxLineBytes = 1024 * 1024;

interface RawLine {
  line: number;
  bytes: Buffer;
  /** Bytes of the file read up to the end of this line. */
  end: number;
}

async function* rawLines(file: string, label: string): AsyncGenerator<RawLine> {
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  let line = 0;
  let read = 0;
  const take = (tail: Buffer): Buffer => {
    const bytes = pending.length === 0 ? tail : Buffer.concat([...pending, tail]);
    pending = [];
    pendingBytes = 0;
    return bytes;
  };
  const tooLong = () => new InputError(label, String(line + 1), `line longer than ${maxLineBytes} bytes (1 MiB)`);
  for await (const chunk of createReadStream(file, { highWaterMark: 1024 * 1024 }) as AsyncIterable<Buffer>) {
    let start = 0;
    for (;;) {
      const nl = chunk.indexOf(0x0a, start);
      if (nl === -1) {
        const rest = chunk.subarray(start);
        pendingBytes += rest.length;
        if (pendingBytes > maxLineBytes) throw tooLong();
        if (rest.length > 0) pending.push(rest);
        break;
      }
      const piece = chunk.subarray(start, nl);
      if (pendingBytes + piece.length > maxLineBytes) throw tooLong();
      line++;
      yield { line, bytes: take(piece), end: read + nl + 1 };
      start = nl + 1;
    }
    read += chunk.length;
  }
  if (pendingBytes > 0) yield { line: line + 1, bytes: take(Buffer.alloc(0)), end: read };
}

const utf8 = new TextDecoder("utf-8", { fatal: true });

function parseLine(label: string, { line, bytes }: RawLine): Observation | undefined {
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    throw new InputError(label, String(line), "not valid UTF-8");
  }
  if (line === 1 && text.startsWith("\uFEFF")) text = text.slice(1);
  if (text.trim() === "") return undefined;
  const result = parseObservationJson(text);
  if (!result.ok) {
    const first = result.issues[0] ?? { path: "", message: "invalid observation" };
    const more =
      result.issues.length > 1
        ? ` (and ${result.issues.length - 1} more: ${result.issues
            .slice(1)
            .map((i) => i.path || "(line)")
            .join(", ")})`
        : "";
    throw new InputError(label, String(line), `${first.path === "" ? "" : `${first.path}: `}${first.message}${more}`);
  }
  return result.observation;
}

/** The file as a source of chunks; `label` is how messages name it. */
export function ndjsonSource(file: string, label = file): ObservationSource {
  return {
    label,
    total: statSync(file).size,
    unit: "bytes",
    async *chunks(): AsyncGenerator<ObservationChunk> {
      let observations: Observation[] = [];
      let lines: number[] = [];
      let progress = 0;
      const chunk = (): ObservationChunk => {
        const at = lines;
        const out = { observations, where: (i: number) => `${label}:${at[i]}`, progress };
        observations = [];
        lines = [];
        return out;
      };
      for await (const raw of rawLines(file, label)) {
        progress = raw.end;
        const observation = parseLine(label, raw);
        if (observation === undefined) continue;
        observations.push(observation);
        lines.push(raw.line);
        if (observations.length >= chunkSize) yield chunk();
      }
      yield chunk();
    },
  };
}

/** Every observation of the file, in order; throws InputError at the first bad line. */
export async function readObservations(file: string, label = file): Promise<Observation[]> {
  const out: Observation[] = [];
  for await (const { observations } of ndjsonSource(file, label).chunks()) for (const o of observations) out.push(o);
  return out;
}
