/**
 * The Confluent wire format written directly: magic byte 0, the 4-byte big-endian schema id, then the
 * Avro binary of the value, in one buffer of the exact size. One scratch buffer, grown on demand,
 * holds the frame while avsc writes it.
 */
import type avro from "avsc";

const headerBytes = 5;

export class WireWriter {
  private scratch: Buffer;

  constructor(initialBytes = 64 * 1024) {
    this.scratch = Buffer.allocUnsafe(initialBytes);
  }

  /** The framed Avro binary of `value` (a record's fields; other properties are ignored) under `schemaId`. */
  frame(schemaId: number, type: avro.Type, value: unknown): Buffer {
    let end = type.encode(value, this.scratch, headerBytes);
    while (end < 0) {
      // avsc returns minus the bytes missing; grow and write again.
      this.scratch = Buffer.allocUnsafe(Math.max(2 * this.scratch.length, this.scratch.length - end));
      end = type.encode(value, this.scratch, headerBytes);
    }
    const out = Buffer.allocUnsafe(end);
    out[0] = 0;
    out.writeInt32BE(schemaId, 1);
    this.scratch.copy(out, headerBytes, headerBytes, end);
    return out;
  }
}
