/**
 * gRPC's length-prefixed messages (the body of a gRPC call over HTTP/2): each message is one flag byte
 * (0 plain, 1 compressed with the call's `grpc-encoding`), a 4-byte big-endian length and that many
 * bytes. HTTP/2 DATA frames cut the stream anywhere, so the reader reassembles messages from chunks.
 *
 * The reader only reads a copy: the bytes it is given are relayed elsewhere, untouched. It is bounded
 * (a message longer than `maxMessageBytes` is skipped without being held, and reported) and total: a
 * flag byte other than 0 or 1 makes the rest of the stream unreadable (reported once, nothing more is
 * read), and a stream that ends inside a message is reported as truncated.
 */

export interface GrpcMessage {
  compressed: boolean;
  bytes: Buffer;
}

export type FrameProblem = "malformed" | "oversized" | "truncated";

export interface GrpcMessageSink {
  message(message: GrpcMessage): void;
  problem(problem: FrameProblem): void;
}

const prefixBytes = 5;

export class GrpcMessageReader {
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  /** Length of the message being read (prefix seen), or null while waiting for a prefix. */
  private expected: number | null = null;
  private compressed = false;
  /** Bytes of an oversized message still to skip. */
  private skipping = 0;
  private broken = false;

  constructor(
    private readonly sink: GrpcMessageSink,
    private readonly maxMessageBytes: number,
  ) {}

  /** How many whole messages were read so far (oversized ones included). */
  messages = 0;

  push(chunk: Buffer): void {
    if (this.broken || chunk.length === 0) return;
    this.append(chunk);
    this.drain();
  }

  /** The stream ended: a message begun and not finished is truncated. */
  end(): void {
    if (this.broken) return;
    if (this.skipping > 0 || this.expected !== null || this.pendingBytes > 0) this.sink.problem("truncated");
    this.pending = [];
    this.pendingBytes = 0;
  }

  private append(chunk: Buffer): void {
    this.pending.push(chunk);
    this.pendingBytes += chunk.length;
  }

  private take(n: number): Buffer {
    const all =
      this.pending.length === 1 ? (this.pending[0] as Buffer) : Buffer.concat(this.pending, this.pendingBytes);
    const head = all.subarray(0, n);
    const rest = all.subarray(n);
    this.pending = rest.length > 0 ? [rest] : [];
    this.pendingBytes = rest.length;
    return head;
  }

  private drain(): void {
    for (;;) {
      if (this.broken) return;
      if (this.skipping > 0) {
        const skipped = Math.min(this.skipping, this.pendingBytes);
        this.take(skipped);
        this.skipping -= skipped;
        if (this.skipping > 0) return;
        this.messages++;
        continue;
      }
      if (this.expected === null) {
        if (this.pendingBytes < prefixBytes) return;
        const prefix = this.take(prefixBytes);
        const flag = prefix[0];
        if (flag !== 0 && flag !== 1) {
          this.broken = true;
          this.pending = [];
          this.pendingBytes = 0;
          this.sink.problem("malformed");
          return;
        }
        const length = prefix.readUInt32BE(1);
        if (length > this.maxMessageBytes) {
          this.sink.problem("oversized");
          this.skipping = length;
          continue;
        }
        this.expected = length;
        this.compressed = flag === 1;
      }
      if (this.pendingBytes < this.expected) return;
      const bytes = Buffer.from(this.take(this.expected));
      this.expected = null;
      this.messages++;
      this.sink.message({ compressed: this.compressed, bytes });
    }
  }
}

/** One length-prefixed message (what a gRPC client or server writes). */
export function frameMessage(bytes: Uint8Array, compressed = false): Buffer {
  const out = Buffer.alloc(prefixBytes + bytes.length);
  out[0] = compressed ? 1 : 0;
  out.writeUInt32BE(bytes.length, 1);
  out.set(bytes, prefixBytes);
  return out;
}
