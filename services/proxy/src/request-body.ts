/**
 * A client's request body, read whole (the proxy classifies it before forwarding) and bounded: past the
 * limit the read stops and the caller answers 413.
 */
import type { IncomingMessage } from "node:http";

export type BodyRead = { ok: true; body: Buffer } | { ok: false; reason: "too-large" | "gone" };

/** Resolves with the body; `too-large` as soon as it passes `maxBytes` (the rest is drained), `gone` when the client went away. */
export function readRequestBody(req: IncomingMessage, maxBytes: number): Promise<BodyRead> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    const finish = (value: BodyRead) => {
      if (done) return;
      done = true;
      resolve(value);
    };
    req.on("data", (chunk: Buffer) => {
      if (done) return;
      size += chunk.length;
      if (size > maxBytes) {
        chunks.length = 0;
        req.resume();
        finish({ ok: false, reason: "too-large" });
        return;
      }
      chunks.push(chunk);
    });
    req.on("end", () => finish({ ok: true, body: Buffer.concat(chunks, size) }));
    req.on("error", () => finish({ ok: false, reason: "gone" }));
    req.on("aborted", () => finish({ ok: false, reason: "gone" }));
  });
}
