/**
 * Early answers that clients can read. When ingest answers before it read the whole request body (413
 * over the byte limit, 401, 415, 405, …), Node closes the connection as soon as the answer is written.
 * A client that is still sending (Python's urllib, most blocking clients: they write the whole body
 * before they read) then gets a broken pipe or a reset instead of the answer.
 *
 * So the connection lingers instead: the answer goes out with `Connection: close`, the write side is
 * half-closed, and the rest of the body is read and discarded until the client has sent it all, up to
 * `maxBytes` more bytes or `maxMs`, whichever comes first; then the socket closes. A client sending
 * more than that still loses the connection: the bound keeps a hostile client from holding it.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { Socket } from "node:net";

export interface LingerLimits {
  /** Most body bytes discarded after the answer. */
  maxBytes: number;
  /** Longest time the connection stays open after the answer. */
  maxMs: number;
}

export interface Lingering {
  /** Called when the answer is about to be sent; does nothing when the body was read whole. */
  afterEarlyAnswer(request: IncomingMessage, response: ServerResponse): void;
  /** Closes every lingering connection now (the server is stopping). */
  closeAll(): void;
  /** How many connections linger now. */
  readonly count: number;
}

export function lingering(limits: LingerLimits): Lingering {
  const open = new Set<() => void>();
  return {
    afterEarlyAnswer(request, response) {
      const socket = request.socket;
      // Injected requests (tests) have no real socket to keep open.
      if (request.complete || !(socket instanceof Socket)) return;
      let drained = 0;
      const close = (): void => {
        if (!open.delete(close)) return;
        clearTimeout(timer);
        socket.destroy();
      };
      const timer = setTimeout(close, limits.maxMs);
      timer.unref();
      open.add(close);
      response.setHeader("connection", "close");
      // Node ends a `Connection: close` answer with socket.destroySoon(), which destroys the socket as
      // soon as the answer is flushed: half-close instead, and keep reading until the body is in.
      socket.destroySoon = function halfClose(this: typeof socket) {
        if (this.writable) this.end();
      };
      // Read the rest of the body now, counting it (left alone, Node would discard it uncounted).
      request.on("data", (chunk: Buffer) => {
        drained += chunk.length;
        if (drained > limits.maxBytes) close();
      });
      request.once("end", () => {
        if (response.writableFinished) close();
        else response.once("finish", close);
      });
      socket.once("end", close);
      socket.once("close", close);
    },
    closeAll() {
      for (const close of [...open]) close();
    },
    get count() {
      return open.size;
    },
  };
}
