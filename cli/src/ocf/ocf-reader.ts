/**
 * Reads an Avro object container file of observations block by block, with the byte offset of every
 * block and record, so that a bad file is an error naming the byte where it goes wrong. avsc's own
 * BlockDecoder is not used for reading because it drops a truncated last block without a word; its
 * types still do all the Avro decoding (and the schema resolution of files written with an older,
 * compatible schema).
 *
 * Layout: magic `Obj\x01`, a metadata map (`avro.schema`, `avro.codec`), a 16-byte sync marker, then
 * blocks of (record count, byte size, records, sync marker). Codecs: null and deflate.
 */
import { open, type FileHandle } from "node:fs/promises";
import { inflateRawSync } from "node:zlib";
import avro from "avsc";
import type { Observation } from "@a2a-ledger/schemas";
import { chunkSize, InputError, type ObservationChunk, type ObservationSource } from "../sources/observation-source.ts";
import { fromBranch, observationFileType } from "./observation-schema.ts";

export const ocfMagic = Buffer.from("Obj\x01", "latin1");

const headerType = avro.Type.forSchema({
  type: "record",
  name: "org.apache.avro.file.Header",
  fields: [
    { name: "magic", type: { type: "fixed", name: "Magic", size: 4 } },
    { name: "meta", type: { type: "map", values: "bytes" } },
    { name: "sync", type: { type: "fixed", name: "Sync", size: 16 } },
  ],
});

const readSize = 1024 * 1024;
/** Larger headers or blocks are refused rather than buffered. */
const maxHeaderBytes = 16 * 1024 * 1024;
const maxBlockBytes = 256 * 1024 * 1024;

/** A window on the file: bytes from `base` on, read in 1 MiB pieces as needed. */
class FileWindow {
  buf = Buffer.alloc(0);
  /** File offset of buf[0]. */
  base = 0;
  pos = 0;
  eof = false;

  constructor(private readonly handle: FileHandle) {}

  get offset(): number {
    return this.base + this.pos;
  }

  /** Makes `n` bytes from pos available; false when the file ends first. */
  async ensure(n: number): Promise<boolean> {
    while (this.buf.length - this.pos < n && !this.eof) {
      const piece = Buffer.allocUnsafe(Math.max(readSize, n - (this.buf.length - this.pos)));
      const { bytesRead } = await this.handle.read(piece, 0, piece.length, this.base + this.buf.length);
      if (bytesRead === 0) this.eof = true;
      this.base += this.pos;
      this.buf = Buffer.concat([this.buf.subarray(this.pos), piece.subarray(0, bytesRead)]);
      this.pos = 0;
    }
    return this.buf.length - this.pos >= n;
  }

  /** A zig-zag varint long at pos (which must be available), or undefined when cut off. */
  long(): number | undefined {
    let shift = 1;
    let n = 0;
    let i = this.pos;
    for (;;) {
      if (i >= this.buf.length) return undefined;
      const b = this.buf[i++] as number;
      n += (b & 0x7f) * shift;
      shift *= 128;
      if ((b & 0x80) === 0) break;
      if (shift > 2 ** 63) return undefined;
    }
    this.pos = i;
    return n % 2 === 0 ? n / 2 : -(n + 1) / 2;
  }
}

export interface OcfHeader {
  schema: avro.Type;
  codec: string;
  sync: Buffer;
  /** Byte offset of the first block. */
  dataStart: number;
}

async function readHeader(w: FileWindow, label: string): Promise<OcfHeader> {
  if (!(await w.ensure(4)) || !w.buf.subarray(0, 4).equals(ocfMagic)) {
    throw new InputError(label, "byte 0", "not an Avro object container file (it does not start with Obj\\x01)");
  }
  let need = 4096;
  for (;;) {
    await w.ensure(need);
    const { value, offset } = headerType.decode(w.buf, w.pos) as {
      value: { meta: Record<string, Buffer>; sync: Buffer };
      offset: number;
    };
    if (offset !== -1) {
      w.pos = offset;
      const codec = value.meta["avro.codec"]?.toString() ?? "null";
      if (codec !== "null" && codec !== "deflate")
        throw new InputError(label, "byte 4", `unsupported codec ${JSON.stringify(codec)} (null and deflate are read)`);
      const text = value.meta["avro.schema"]?.toString();
      if (text === undefined) throw new InputError(label, "byte 4", "the header has no avro.schema");
      let schema: avro.Type;
      try {
        schema = avro.Type.forSchema(JSON.parse(text) as avro.Schema, { wrapUnions: "auto" });
      } catch (e) {
        throw new InputError(
          label,
          "byte 4",
          `the writer schema in the header is not a valid Avro schema: ${(e as Error).message}`,
        );
      }
      return { schema, codec, sync: Buffer.from(value.sync), dataStart: w.offset };
    }
    if (w.eof)
      throw new InputError(label, "byte 4", `truncated: the file ends at byte ${w.buf.length} inside the header`);
    if (need > maxHeaderBytes) throw new InputError(label, "byte 4", `header larger than ${maxHeaderBytes} bytes`);
    need *= 4;
  }
}

/** How a file's writer schema is read as observations; an error naming the schema when it cannot be. */
function resolverFor(label: string, writer: avro.Type): ReturnType<avro.Type["createResolver"]> | undefined {
  if (writer.equals(observationFileType)) return undefined;
  try {
    return observationFileType.createResolver(writer);
  } catch (e) {
    const name = (writer as { name?: string }).name ?? writer.typeName;
    throw new InputError(
      label,
      "byte 4",
      `written with an unknown schema (${name}): it does not resolve to the observation catalogue: ${(e as Error).message.split("\n")[0]}`,
    );
  }
}

/** Whether the file starts like an Avro object container file. */
export async function isOcfFile(path: string): Promise<boolean> {
  const handle = await open(path, "r");
  try {
    const head = Buffer.alloc(4);
    const { bytesRead } = await handle.read(head, 0, 4, 0);
    return bytesRead === 4 && head.equals(ocfMagic);
  } finally {
    await handle.close();
  }
}

/** The file as a source of chunks; every record is checked, a bad one named by its byte offset. */
export function ocfSource(path: string, size: number, label = path): ObservationSource {
  return {
    label,
    total: size,
    unit: "bytes",
    async *chunks(): AsyncGenerator<ObservationChunk> {
      const handle = await open(path, "r");
      try {
        const w = new FileWindow(handle);
        const header = await readHeader(w, label);
        const resolver = resolverFor(label, header.schema);
        let observations: Observation[] = [];
        let offsets: number[] = [];
        for (;;) {
          const blockStart = w.offset;
          if (!(await w.ensure(1))) break;
          await w.ensure(20);
          const count = w.long();
          const bytes = count === undefined ? undefined : w.long();
          if (count === undefined || bytes === undefined)
            throw new InputError(label, `byte ${blockStart}`, "truncated: the file ends inside a block header");
          if (count < 0 || bytes < 0 || bytes > maxBlockBytes)
            throw new InputError(label, `byte ${blockStart}`, `not a block header (count ${count}, size ${bytes})`);
          const dataStart = w.offset;
          if (!(await w.ensure(bytes + 16))) {
            throw new InputError(
              label,
              `byte ${blockStart}`,
              `truncated: a block of ${count} records needs ${bytes + 16} bytes from byte ${dataStart}, the file ends at byte ${w.base + w.buf.length}`,
            );
          }
          const raw = w.buf.subarray(w.pos, w.pos + bytes);
          if (!w.buf.subarray(w.pos + bytes, w.pos + bytes + 16).equals(header.sync)) {
            throw new InputError(
              label,
              `byte ${dataStart + bytes}`,
              "the sync marker after the block does not match the header's (corrupt or truncated file)",
            );
          }
          let data: Buffer;
          try {
            data = header.codec === "deflate" ? inflateRawSync(raw) : raw;
          } catch (e) {
            throw new InputError(label, `byte ${dataStart}`, `the block does not inflate: ${(e as Error).message}`);
          }
          let pos = 0;
          for (let i = 0; i < count; i++) {
            let decoded: { value: unknown; offset: number };
            try {
              decoded = observationFileType.decode(data, pos, resolver);
            } catch (e) {
              decoded = { value: undefined, offset: -2 };
              void e;
            }
            const at =
              header.codec === "deflate"
                ? `byte ${blockStart} (record ${i + 1} of the block)`
                : `byte ${dataStart + pos}`;
            if (decoded.offset < 0)
              throw new InputError(
                label,
                at,
                `record ${i + 1} of ${count} in the block does not decode with the file's schema`,
              );
            observations.push(fromBranch(decoded.value as Record<string, Record<string, unknown>>));
            offsets.push(header.codec === "deflate" ? blockStart : dataStart + pos);
            pos = decoded.offset;
          }
          if (pos !== data.length)
            throw new InputError(
              label,
              `byte ${blockStart}`,
              `the block holds ${data.length - pos} bytes after its ${count} records`,
            );
          w.pos += bytes + 16;
          if (observations.length >= chunkSize) {
            const at = offsets;
            yield { observations, where: (i) => `${label}: byte ${at[i]}`, progress: w.offset };
            observations = [];
            offsets = [];
          }
        }
        const at = offsets;
        yield { observations, where: (i) => `${label}: byte ${at[i]}`, progress: w.offset };
      } finally {
        await handle.close();
      }
    },
  };
}
