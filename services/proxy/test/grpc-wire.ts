/**
 * gRPC on the wire for the relay's tests: one call over a raw node:http2 client, with what came back
 * exactly as it arrived (response headers, the DATA bytes, trailers, or the reset), so that answers made
 * directly and through the proxy can be compared byte for byte; and a raw socket for input that is not
 * HTTP/2 at all.
 */
import http2, { type IncomingHttpHeaders } from "node:http2";
import net from "node:net";

export interface RawAnswer {
  headers: IncomingHttpHeaders;
  /** Whether the answer was trailers-only (its status in `headers`). */
  trailersOnly: boolean;
  data: Buffer;
  trailers: IncomingHttpHeaders;
  /** The RST_STREAM code the stream closed with (0 = NO_ERROR). */
  rstCode: number;
}

/** The headers and trailers that carry meaning, without the ones that differ between two answers by nature (`date`). */
export function comparable(headers: IncomingHttpHeaders): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(headers)) if (name !== "date") out[name] = value;
  return out;
}

export function rawCall(
  target: string,
  path: string,
  body: Buffer | Buffer[],
  metadata: Record<string, string> = {},
  timeoutMs = 15_000,
): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const session = http2.connect(`http://${target}`);
    session.on("error", reject);
    const timer = setTimeout(() => {
      session.destroy();
      reject(new Error(`no answer from ${target}${path} within ${timeoutMs} ms`));
    }, timeoutMs);
    const req = session.request({
      ":method": "POST",
      ":path": path,
      "content-type": "application/grpc",
      te: "trailers",
      "a2a-version": "1.0",
      ...metadata,
    });
    let headers: IncomingHttpHeaders = {};
    let trailers: IncomingHttpHeaders = {};
    let trailersOnly = false;
    const chunks: Buffer[] = [];
    req.on("response", (h, flags) => {
      headers = h;
      trailersOnly = (flags & http2.constants.NGHTTP2_FLAG_END_STREAM) !== 0;
    });
    req.on("trailers", (t) => {
      trailers = t;
    });
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("error", () => undefined);
    req.on("close", () => {
      clearTimeout(timer);
      const rstCode = req.rstCode ?? 0;
      session.close();
      resolve({ headers, trailersOnly, data: Buffer.concat(chunks), trailers, rstCode });
    });
    for (const part of Array.isArray(body) ? body : [body]) req.write(part);
    req.end();
  });
}

/** Writes bytes on a plain TCP connection and resolves with what came back once the server closed it (or the time ran out). */
export function rawSocket(
  port: number,
  bytes: Buffer,
  timeoutMs = 5_000,
): Promise<{ received: Buffer; closedByServer: boolean }> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    const socket = net.connect(port, "127.0.0.1", () => socket.write(bytes));
    const timer = setTimeout(() => {
      socket.destroy();
      resolve({ received: Buffer.concat(chunks), closedByServer: false });
    }, timeoutMs);
    socket.on("data", (c) => chunks.push(c));
    socket.on("error", () => undefined);
    socket.on("close", () => {
      clearTimeout(timer);
      resolve({ received: Buffer.concat(chunks), closedByServer: true });
    });
  });
}
