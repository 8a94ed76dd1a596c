/**
 * An incremental parser of Server-Sent Events (the WHATWG event-stream format): fed the stream's chunks
 * as they pass through the proxy, it calls back with each complete event's data. Lines may end in LF,
 * CRLF or CR and may be split anywhere across chunks, multi-byte characters included. Only what it needs
 * is kept: the current line and the current event's data, bounded by `maxEventBytes`.
 */
import { StringDecoder } from "node:string_decoder";

export interface SseEvent {
  /** The `event:` field, "message" when absent. */
  event: string;
  /** The `data:` lines joined by LF. */
  data: string;
}

export class SseParser {
  private readonly decoder = new StringDecoder("utf8");
  private line = "";
  private data: string[] = [];
  private dataBytes = 0;
  private event = "";
  private overflowed = false;
  /** A CR ended the previous chunk: an LF starting the next one belongs to it. */
  private pendingCr = false;

  constructor(
    private readonly onEvent: (event: SseEvent) => void,
    /** Called once per event larger than maxEventBytes, which is skipped. */
    private readonly onOversized: () => void = () => undefined,
    private readonly maxEventBytes = 16 * 1024 * 1024,
  ) {}

  push(chunk: Buffer): void {
    this.feed(this.decoder.write(chunk));
  }

  /** The stream ended: a last event without its blank line is not dispatched (as in browsers). */
  end(): void {
    this.feed(this.decoder.end());
  }

  private feed(text: string): void {
    let start = 0;
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (c !== 10 && c !== 13) continue;
      if (c === 10 && this.pendingCr && i === start && this.line === "") {
        // The LF of a CRLF split across chunks.
        this.pendingCr = false;
        start = i + 1;
        continue;
      }
      this.pendingCr = false;
      this.takeLine(this.line + text.slice(start, i));
      this.line = "";
      if (c === 13) {
        if (i + 1 < text.length) {
          if (text.charCodeAt(i + 1) === 10) i++;
        } else this.pendingCr = true;
      }
      start = i + 1;
    }
    if (start < text.length) {
      this.pendingCr = false;
      this.line += text.slice(start);
      if (this.line.length > this.maxEventBytes) {
        this.line = "";
        this.overflow();
      }
    }
  }

  private overflow(): void {
    if (!this.overflowed) this.onOversized();
    this.overflowed = true;
    this.data = [];
    this.dataBytes = 0;
  }

  private takeLine(line: string): void {
    if (line === "") {
      if (!this.overflowed && this.data.length > 0)
        this.onEvent({ event: this.event === "" ? "message" : this.event, data: this.data.join("\n") });
      this.data = [];
      this.dataBytes = 0;
      this.event = "";
      this.overflowed = false;
      return;
    }
    if (line.startsWith(":")) return;
    const colon = line.indexOf(":");
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? "" : line.slice(colon + 1);
    if (value.startsWith(" ")) value = value.slice(1);
    if (field === "data") {
      if (this.overflowed) return;
      this.dataBytes += value.length + 1;
      if (this.dataBytes > this.maxEventBytes) this.overflow();
      else this.data.push(value);
    } else if (field === "event") this.event = value;
  }
}
