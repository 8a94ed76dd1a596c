/**
 * Reading observations from an NDJSON file: one JSON object per line, blank lines allowed. A bad line is
 * an error naming the line number and the field path — never skipped. Lines are capped at 1 MiB and must
 * be valid UTF-8.
 */
import { createReadStream } from "node:fs";
import type { Observation } from "@a2a-ledger/schemas";
import { parseObservationJson } from "@a2a-ledger/core";

export const maxLineBytes = 1024 * 1024;

export class InputError extends Error {
  constructor(
    readonly file: string,
    readonly line: number,
    readonly path: string,
    readonly reason: string,
  ) {
    super(`${file}:${line}: ${path === "" ? "" : `${path}: `}${reason}`);
  }
}

async function* rawLines(file: string): AsyncGenerator<{ line: number; bytes: Buffer }> {
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  let line = 0;
  const take = (tail: Buffer): Buffer => {
    const bytes = pending.length === 0 ? tail : Buffer.concat([...pending, tail]);
    pending = [];
    pendingBytes = 0;
    return bytes;
  };
  const tooLong = () => new InputError(file, line + 1, "", `line longer than ${maxLineBytes} bytes (1 MiB)`);
  for await (const chunk of createReadStream(file) as AsyncIterable<Buffer>) {
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
      yield { line, bytes: take(piece) };
      start = nl + 1;
    }
  }
  if (pendingBytes > 0) yield { line: line + 1, bytes: take(Buffer.alloc(0)) };
}

const utf8 = new TextDecoder("utf-8", { fatal: true });

/** Every observation of the file, in order; throws InputError at the first bad line. */
export async function readObservations(file: string, label = file): Promise<Observation[]> {
  const out: Observation[] = [];
  for await (const { line, bytes } of rawLines(file)) {
    let text: string;
    try {
      text = utf8.decode(bytes);
    } catch {
      throw new InputError(label, line, "", "not valid UTF-8");
    }
    if (line === 1 && text.startsWith("\uFEFF")) text = text.slice(1);
    if (text.trim() === "") continue;
    const result = parseObservationJson(text);
    if (!result.ok) {
      const first = result.issues[0] ?? { path: "", message: "invalid observation" };
      const more = result.issues.length > 1 ? ` (and ${result.issues.length - 1} more: ${result.issues.slice(1).map((i) => i.path || "(line)").join(", ")})` : "";
      throw new InputError(label, line, first.path, `${first.message}${more}`);
    }
    out.push(result.observation);
  }
  return out;
}
